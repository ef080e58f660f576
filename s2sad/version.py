"""The package's version, in a module that imports nothing: the cache key,
the generated source's docstring and exported modules read it without
importing the package's top level (which imports them)."""
__version__ = "0.1.0"
