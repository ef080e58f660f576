"""Differential fuzzing of s2sad.

* `generator`: random functions in the language s2sad differentiates, as
  hypothesis strategies (`programs()`), or from a seed (`program`, `collect`),
  built from `expressions`, `calls` (keywords, defaults, axes...) and
  `statements` (on the pieces in `model`), with
  `spellings` steering clear of known bugs;
* `reference`: the instrumented twin of a program that finite differences
  can trust (branch and kink outcomes are traced, marker values replayed);
* `check`: s2sad's gradient (jit off, and on for some programs) against
  finite differences and jit against Python, the value against the primal,
  the caller's arrays untouched; programs run in worker processes, a batch
  per module file;
* `shrink`: reduces a failing program to a small one failing the same way;
* `run`: the long run,

      python -m tests.fuzz.run --programs 10000 [--seed N] [--jit-fraction 0.1]
      python -m tests.fuzz.run --recheck fuzz-failures.txt.jsonl [--shrink 1]

The short run is tests/test_fuzz.py; every bug found is a test in
tests/test_fuzz_regressions.py, and `generator.KNOWN_BUGS` keeps both runs
away from bugs that are still open.
"""
