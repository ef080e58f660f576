"""Systematic rule tests, in the spirit of autograd's test_systematic: every
gradient rule registered for a numpy / math / builtins / operator function,
over a grid of ranks, axis forms, keyword/positional/method spellings,
broadcasting partners, special points and domains, checked against central
finite differences (grad, jit off and on; jvp; hvp/hessian), and a grid of
calls the rules do not implement, which must be refused.

    cases.py       a case: the function's source, its arguments (drawn from the
                   case id), its kind (value, tie, either, refuse)
    families_*.py  the rows of the grid: elementwise, arrays, special points,
                   ties and refusals
    grid.py        the whole grid (data only, deterministic), rule coverage, the
                   CI samples
    check.py       runs one case, returns its results
    run.py         the full grid: python -m tests.systematic.run [--jit] [--limit N]
    tests/test_systematic.py   a deterministic sample for CI
"""
