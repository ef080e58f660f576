"""Emission: the last rewrites for the backend and unparsing to source."""
