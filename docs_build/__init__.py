"""What builds the documentation site (mkdocs.yml's hooks) and what its
tests share: the pages' code blocks, the tutorials run as scripts, and the
tables generated from the code."""
