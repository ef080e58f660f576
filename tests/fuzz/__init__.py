"""Differential fuzzing of s2sad.

`generator` writes random functions in the language s2sad differentiates
(hypothesis strategies), `reference` rewrites each into an instrumented
twin that finite differences can trust (branch outcomes are traced, marker
values are replayed), `check` compares s2sad's gradients (jit on and off)
with finite differences and with each other, `shrink` reduces a failing
program, and `run` is the long run:

    python -m tests.fuzz.run --programs 10000 [--seed N] [--jit-fraction 0.1]
"""
