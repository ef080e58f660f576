"""The s2sad compiler: passes from a gast tree to a gast tree (parse and
resolve, desugar, normalise, kinds, activity, reverse mode, clean-up, emit).
Nothing here knows about numba."""
