"""Checks the generated code makes or the compiler makes on it: index
checks (so numba can compile without its own), writes through second
names, repeated writes through an index array."""
