"""What the autograd-style test files share (tests/test_autograd_styles*.py):
the case table, arguments drawn from one seed, and the check of a form
against finite differences."""
import os

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

FULL = os.environ.get("S2SAD_FULL", "") not in ("", "0")
rng = np.random.default_rng(42)


def R(*shape):
    return rng.standard_normal(shape) if shape else float(rng.standard_normal())


def U(lo, hi, *shape):
    return rng.uniform(lo, hi, shape) if shape else float(rng.uniform(lo, hi))


def to_scalar(x):
    # autograd.util.to_scalar
    return np.sum(np.sin(x))


class Cases(list):
    """pytest params (fn, args, wrt), named."""

    def case(self, name, fn, *args, wrt=0):
        self.append(pytest.param(fn, args, wrt, id=name))

    def split(self, refused, sample_compiled):
        """(accepted, compiled, refused) params: `refused` maps an id prefix
        to the exception s2sad raises; compiled: a sample, all with S2SAD_FULL=1
        (compiling is nearly all of the time: seconds a case, a minute for the
        first in a fresh cache)."""
        def refusal(name):
            return next((e for prefix, e in refused.items() if name.startswith(prefix)), None)
        accepted = [p for p in self if refusal(p.id) is None]
        compiled = [p for p in accepted if FULL or p.id in sample_compiled]
        refusals = [pytest.param(*p.values, refusal(p.id), id=p.id) for p in self if refusal(p.id)]
        return accepted, compiled, refusals


def check(fn, args, wrt, jit):
    """s2sad's gradient against central differences; a number's gradient
    must be a number."""
    if isinstance(args[0], list):  # np.append([1., 2., 3.], 4.): a list is an array
        got = s2sad.grad(fn, wrt=wrt, jit=jit)(*args)
        expected = s2sad.grad(fn, wrt=wrt, jit=jit)(np.array(args[0]), *args[1:])
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e)
        args = (np.array(args[0]),) + args[1:]
    df = check_grad(fn, args, wrt=wrt, jit=jit, rtol=1e-5, atol=1e-5)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    for p, g in zip(positions, df(*args)):
        # (not a 0-d array, as autograd and JAX give it)
        assert isinstance(args[p], np.ndarray) or not isinstance(g, np.ndarray), (p, type(g))
