"""ADBench's objectives as ADBench wrote them (benchmarks/adbench/), their
gradients and Jacobians against central differences, compiled and not."""
import os
import warnings

import numpy as np
import pytest

import s2sad
from benchmarks.adbench.cases import cases

CASES = {c[0]: c for c in cases()}

# objectives s2sad does not differentiate as written yet (each says why)
NOT_YET = {}


def _differences(fn, args, k, eps=1e-6):
    """d fn / d args[k] by central differences: output shape + argument
    shape, a tuple for a tuple output."""
    x = np.array(args[k], dtype=float)

    def at(v):
        new = list(args)
        new[k] = v
        out = fn(*new)
        return tuple(np.asarray(o, float) for o in out) if isinstance(out, tuple) \
            else (np.asarray(out, float),)

    outs = at(x)
    jac = [np.empty(o.shape + x.shape) for o in outs]
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        for j, (a, b) in enumerate(zip(at(up), at(down))):
            jac[j][(Ellipsis,) + i] = (a - b) / (2 * eps)
    return tuple(jac) if len(outs) > 1 else jac[0]


def _expected(how, fn, args, wrt):
    parts = [_differences(fn, args, k) for k in (wrt if isinstance(wrt, tuple) else (wrt,))]
    return tuple(parts) if isinstance(wrt, tuple) else parts[0]


def _compare(got, want, path="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{path}: {type(got)}"
        for k, (g, w) in enumerate(zip(got, want)):
            _compare(g, w, f"{path}[{k}]")
        return
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6, err_msg=path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_objective_as_written(name, jit, request):
    if name in NOT_YET:
        request.applymarker(pytest.mark.xfail(reason=NOT_YET[name], strict=True))
    _, how, fn, args, wrt = CASES[name]
    derivative = getattr(s2sad, how)(fn, wrt=wrt, jit=jit)
    with warnings.catch_warnings():
        # compiled means compiled: no part of it may fall back to Python
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        got = derivative(*args)
    _compare(got, _expected(how, fn, args, wrt))


@pytest.mark.skipif(os.environ.get("S2SAD_FULL", "") in ("", "0"),
                    reason="numba compiles each plain derivative for minutes: S2SAD_FULL=1")
@pytest.mark.parametrize("name", sorted(CASES))
def test_plain_twin_compiles(name):
    """The self-check compiles a derivative's plain twin (every optimisation
    off) when a call is slow; numba must accept it, whatever the load."""
    _, how, fn, args, wrt = CASES[name]
    plain = getattr(s2sad, how)(fn, wrt=wrt, jit="require", optimise=False, check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        got = plain(*args)
    _compare(got, _expected(how, fn, args, wrt))
