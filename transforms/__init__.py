"""The s2sad compiler: passes from a gast tree to a gast tree, in the order
a derivative is made (program.py drives them):

  frontend/  parse and resolve, bind calls, desugar, lower containers,
             closures and effects, normalise, specialise to argument kinds
  analysis/  kinds, activity, definitions, aliasing, loop accesses, shapes
  reverse/   reverse mode: sweeps, tapes, checkpointed loops, recursion
  forward/   forward mode
  optimise/  clean-up and exact optimisations of the generated code
  checks/    index checks and refusals of writes the derivative cannot follow
  emit/      backend rewrites and unparsing to source

The modules here (syntax, names, errors, ops, templates, ...) are shared by
every stage. Nothing here knows about numba."""
