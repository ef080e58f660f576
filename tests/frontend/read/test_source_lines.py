"""A function's lines as the compiler reads them (read._code_lines, which
skips inspect's search of every module by file) are inspect's."""
import functools
import inspect
import json
import textwrap

import numpy as np
import pytest

from s2sad.transforms.frontend.read import read


def _decorated(f):
    @functools.wraps(f)
    def wrapper(*args):
        return f(*args)
    return wrapper


@_decorated
def _sample(x):
    return x * 2.0


class _Holder:
    @staticmethod
    def method(x,
               y):
        return x + y


_LAMBDA = lambda x: x + 1.0  # noqa: E731


@pytest.mark.parametrize("fn", [_sample, _sample.__wrapped__, _Holder.method, _LAMBDA,
                                 np.linspace.__wrapped__, json.dumps, textwrap.dedent])
def test_lines_are_inspects(fn):
    assert read._code_lines(fn) == inspect.getsourcelines(fn.__code__)


def test_a_wrapper_is_read_as_its_own_code():
    lines, first = read._code_lines(_sample)
    assert "def wrapper" in lines[1] and first == _decorated.__code__.co_firstlineno + 1


def test_a_function_made_by_exec_has_no_lines():
    namespace = {}
    exec("def made(x):\n    return x\n", namespace)
    with pytest.raises(OSError):
        read._code_lines(namespace["made"])
