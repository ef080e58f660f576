"""Which functions of a generated module are recursive (s2sad/recursion.py):
the quick look at the text agrees with the parse it saves."""
import ast

import numpy as np
import pytest

import s2sad
from benchmarks.gradbench.det import det
from s2sad import recursion

SOURCES = {
    "no calls": ("def f(x):\n    return x\n\ndef g(x):\n    return 2 * x\n", set()),
    "a chain": ("def f(x):\n    return g(x)\n\ndef g(x):\n    return h(x)\n\n"
                "def h(x):\n    return x\n", set()),
    "itself": ("def f(x):\n    return f(x - 1) if x else 0\n\ndef g(x):\n    return f(x)\n",
               {"f"}),
    "each other": ("def f(x):\n    return g(x)\n\ndef g(x):\n    return f(x) if x else 0\n",
                   {"f", "g"}),
    "a name in a string": ("def f(x):\n    '''f(x) calls g(x)'''\n    return g(x)\n\n"
                           "def g(x):\n    s = 'f(x)'\n    return x\n", set()),
    "a decorator": ("def deco(h):\n    return h\n\n@deco\ndef f(x):\n    return f(x)\n",
                    {"f"}),
    "statements between": ("def f(x):\n    return g(x)\n\nLIMIT = 3\n\n"
                           "def g(x):\n    return f(x)\n", {"f", "g"}),
    "spaced call": ("def f(x):\n    return f (x)\n", {"f"}),
}


def _parsed(source, functions):
    return set(recursion._cycle(recursion._call_graph(ast.parse(source), functions)))


@pytest.mark.parametrize("case", sorted(SOURCES))
def test_the_text_and_the_parse_agree(case):
    source, expected = SOURCES[case]
    source = '"""A module."""\n' + source
    functions = frozenset(n.name for n in ast.parse(source).body
                          if isinstance(n, ast.FunctionDef))
    assert _parsed(source, functions) == expected
    recursion._recursive.cache_clear()
    assert recursion.recursive_functions(source, functions) == expected


def _rk4_like(k, x):
    for _ in range(3):
        x = x + 0.1 * _rate(k, x)
    return x


def _rate(k, x):
    return -k * x


@pytest.mark.parametrize("fn, args, recursive", [(det, (np.eye(3) + 0.1,), True),
                                                 (_rk4_like, (0.5, 1.0), False)])
def test_generated_modules(fn, args, recursive):
    d = s2sad.grad(fn, jit=False)
    d(*args)
    source = d.source
    functions = frozenset(n.name for n in ast.parse(source).body
                          if isinstance(n, ast.FunctionDef))
    recursion._recursive.cache_clear()
    found = recursion.recursive_functions(source, functions)
    assert found == _parsed(source, functions)
    assert bool(found) == recursive
