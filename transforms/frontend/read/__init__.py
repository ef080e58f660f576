"""Reading a function: its source, tree and namespace (read.py), the imports it
makes, and the fence refusing what no pass lowered."""
