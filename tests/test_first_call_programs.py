"""The hand-written gradients benchmarks/first_call.py compiles beside
each program (what a person writing the gradient by hand waits for) are
gradients: checked against central finite differences of the program, as
plain Python (their numba compile is the benchmark's)."""
import textwrap

import numpy as np
import pytest

from benchmarks.first_call_programs import PROGRAMS


def _load(name):
    namespace = {}
    exec(textwrap.dedent(PROGRAMS[name][0]), namespace)
    return namespace


def _positions(f, wrt):
    import inspect
    names = list(inspect.signature(f).parameters)
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    return [names.index(w) if isinstance(w, str) else w for w in wrt]


def _central(f, args, pos, h=1e-6):
    x = np.asarray(args[pos], dtype=float)
    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        values = []
        for step in (h, -h):
            moved = x.copy()
            moved[idx] += step
            shifted = list(args)
            shifted[pos] = moved if x.ndim else float(moved)
            values.append(f(*shifted))
        out[idx] = (values[0] - values[1]) / (2 * h)
    return out


@pytest.mark.parametrize("name", [n for n in PROGRAMS if "def hand_grad" in PROGRAMS[n][0]])
def test_hand_gradient_matches_finite_differences(name):
    ns = _load(name)
    f, args = ns["f"], ns["ARGS"]
    got = ns["hand_grad"](*args)
    positions = _positions(f, ns["WRT"])
    got = got if len(positions) > 1 else (got,)
    assert len(got) == len(positions)
    # (gp_nll's kernel matrix, with a jitter of 1e-6, is ill-conditioned:
    # its gradient is of order 1e6 and differences lose four digits)
    rtol = 1e-3 if name == "gp_nll" else 1e-6
    for pos, g in zip(positions, got):
        np.testing.assert_allclose(g, _central(f, args, pos), rtol=rtol, atol=1e-8)


def test_numba_refuses_only_the_programs_without_a_hand_gradient():
    """mlp_dict (a dict) and softmax_xent are the ones numba does not
    compile (the table says n/a); every other program has its hand gradient."""
    without = {n for n in PROGRAMS if "def hand_grad" not in PROGRAMS[n][0]}
    assert without == {"mlp_dict", "softmax_xent"}
