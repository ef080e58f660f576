"""Every error s2sad raises about the user's code or arguments is an
s2sad.S2sadError, and stays the builtin class TensorFlow's API raises
(LookupError for a missing gradient, TypeError, ValueError), so both
`except s2sad.S2sadError` and `except LookupError` catch it."""
import glob
import os
import re

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
        for k, line in enumerate(open(f, encoding="utf-8"), 1):
            if re.match(r"\s*raise (LookupError|TypeError|ValueError)\(", line):
                found.append(f"{os.path.relpath(f, ROOT)}:{k}: {line.strip()}")
    assert not found, "\n".join(found)
