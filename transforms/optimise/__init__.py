"""Optimisations of generated code that keep it exact: clean-up and
in-place accumulation, scatter to gather, per-point partial
sums, reciprocals, folded copies, tape order, ascending and parallel loops."""
