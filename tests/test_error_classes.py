"""Every error s2sad raises about the user's code or arguments is an
s2sad.S2sadError, and stays the builtin class TensorFlow's API raises
(LookupError for a missing gradient, TypeError, ValueError), so both
`except s2sad.S2sadError` and `except LookupError` catch it."""
import glob
import os
import tokenize

import numpy as np
import pytest

import s2sad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def no_rule(x):
    return np.sum(np.i0(x))


def test_a_missing_gradient_is_both(jit):
    with pytest.raises(s2sad.S2sadError) as info:
        s2sad.grad(no_rule, jit=jit)(np.array([1.0, 2.0]))
    assert isinstance(info.value, LookupError) and isinstance(info.value, s2sad.NoGradientError)
    assert "np.i0" in str(info.value)


def test_a_wrong_argument_is_both():
    with pytest.raises(s2sad.S2sadError) as info:
        s2sad.grad(no_rule, wrt="y", jit=False)(np.ones(2))
    assert isinstance(info.value, ValueError)
    with pytest.raises(s2sad.S2sadError) as info:
        s2sad.grad(no_rule, jit=False)("text")
    assert isinstance(info.value, TypeError)


def test_the_compiler_and_the_api_raise_no_bare_builtin():
    """(s2sad/runtime and s2sad/definitions mimic numpy, which raises the
    builtins; they are left out.)"""
    files = glob.glob(os.path.join(ROOT, "transforms", "**", "*.py"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "s2sad", "*.py"))
    found = []
    for f in files:
        with open(f, "rb") as source:
            tokens = [t for t in tokenize.tokenize(source.readline)
                      if t.type in (tokenize.NAME, tokenize.OP)]  # (code: no strings)
        for a, b, c in zip(tokens, tokens[1:], tokens[2:]):
            if a.string == "raise" and b.string in ("LookupError", "TypeError", "ValueError") \
                    and c.string == "(":
                found.append(f"{os.path.relpath(f, ROOT)}:{a.start[0]}: {a.line.strip()}")
    assert not found, "\n".join(found)
