"""Statements: Python's statement forms, control flow and operators written as
the plain statements and counted loops the passes follow, then normalised to
one operation per statement."""
