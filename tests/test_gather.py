"""Scatter to gather along one loop (transforms/optimise/gather.py) on the
loops scientists write: neighbour reads (i +- 1, i +- 2, 2-D i +- 1, j +- 1),
intermediates used several times, accumulations with +=, -= and *=.

The adjoint of a name used twice is built in two statements (`dd = de *
prod` then `dd += dprod * k`); a gather that moves the additions of `dd`
into neighbours must move the whole of it, or leave the loop as it is.
Whole functions are checked against finite differences, compiled and as
Python; the pass is also run on its own on a hand-written adjoint loop and
the result executed against the original."""
import gast
import numpy as np
import pytest

from gradcheck import check_grad
from s2sad.transforms.emit.unparse import function_source
from s2sad.transforms.names import Namer
from s2sad.transforms.optimise.gather import gather_scatters

rng = np.random.default_rng(341)


# ---- whole functions ---------------------------------------------------------
def energy(x, k):
    """Neighbour differences, each used twice (its adjoint in two statements)."""
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        e += k * d * d + np.cos(x[i])
    return e


def laplacian(x, k):
    e = 0.0
    for i in range(1, x.shape[0] - 1):
        lap = x[i - 1] - 2 * x[i] + x[i + 1]
        e += k * lap * lap
    return e


def two_apart(x, k):
    e = 0.0
    for i in range(2, x.shape[0] - 2):
        d = x[i + 2] - x[i - 2] + x[i]
        e += k * d * d
    return e


def shared(x, k):
    """Several intermediates, each used more than once."""
    e = 0.0
    for i in range(x.shape[0] - 1):
        a = x[i + 1] * x[i]
        b = a * a
        e += b * a + np.sin(a) + k * b
    return e


def quotients(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] / x[i]
        e += k * d * d + d / x[i]
    return e


def subtracted(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        e -= k * d * d
    return e


def multiplied(x, k):
    e = 1.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        e *= 1.0 + k * d * d
    return e


def two_additions(x, k):
    e = 0.0
    for i in range(1, x.shape[0]):
        d = x[i] - x[i - 1]
        e += d * d * k
        e += np.exp(d) * d
    return e


def into_an_array(x, k):
    y = np.zeros_like(x)
    for i in range(1, x.shape[0] - 1):
        d = x[i + 1] - x[i - 1]
        y[i] = k * d * d
    return np.sum(y * y)


def five_point(x, k):
    e = 0.0
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            lap = x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1] - 4 * x[i, j]
            e += k * lap * lap
    return e


def gradients_2d(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        for j in range(x.shape[1] - 1):
            gx = x[i + 1, j] - x[i, j]
            gy = x[i, j + 1] - x[i, j]
            e += k * (gx * gx + gy * gy) + gx * gy
    return e


def diagonal(x, k):
    e = 0.0
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            d = x[i + 1, j + 1] - x[i - 1, j - 1]
            e += k * d * d
    return e


ONE_D = [energy, laplacian, two_apart, shared, quotients, subtracted, multiplied,
         two_additions, into_an_array]
TWO_D = [five_point, gradients_2d, diagonal]


@pytest.mark.parametrize("f", ONE_D, ids=lambda f: f.__name__)
def test_neighbour_loops(jit, f):
    x = rng.uniform(0.5, 1.5, 8)
    check_grad(f, (x, 0.7), wrt=(0, 1), jit=jit)


@pytest.mark.parametrize("f", TWO_D, ids=lambda f: f.__name__)
def test_neighbour_nests(jit, f):
    x = rng.uniform(0.5, 1.5, (6, 5))
    check_grad(f, (x, 0.7), wrt=(0, 1), jit=jit)


def test_the_energy_of_the_report(jit):
    """dx[0] of energy at linspace(0, 1, 6), k = 0.7 is -0.28 (it was -0.14)."""
    x = np.linspace(0, 1, 6)
    df = check_grad(energy, (x, 0.7), wrt=0, jit=jit)
    (g,) = df(x, 0.7)
    np.testing.assert_allclose(g[0], -2 * 0.7 * 0.2 + 0.0, rtol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 8])
def test_short_arrays(jit, n):
    check_grad(energy, (rng.uniform(0.5, 1.5, n), 0.7), wrt=(0, 1), jit=jit)


# ---- the pass on its own ----------------------------------------------------------
def _transformed(src):
    tree = gast.parse(src)
    fdef = tree.body[0]
    gather_scatters(fdef.body, Namer.for_function(fdef))
    new = function_source(fdef)
    env0, env1 = {"np": np}, {"np": np}
    exec(src, env0)
    exec(new, env1)
    return env0[fdef.name], env1[fdef.name], new


TWO_STATEMENTS = '''
def adjoint(x, k, de, b):
    dx = np.zeros(x.shape[0] + 4)
    for i in range(2, b):
        d = x[i + 1] - x[i]
        prod = k * d
        dprod = de * d
        dd = de * prod
        dd {op} dprod * k
        dx[i + 1] += dd
        dx[i] += -dd
        dx[i - 2] += dd * d
    return dx
'''


@pytest.mark.parametrize("op", ["+=", "-=", "*="])
@pytest.mark.parametrize("b", [-1, 2, 3, 4, 9])
def test_a_value_built_in_two_statements_is_added_whole(op, b):
    f0, f1, new = _transformed(TWO_STATEMENTS.format(op=op))
    x = rng.normal(size=12)
    np.testing.assert_allclose(f1(x, 0.7, 1.3, b), f0(x, 0.7, 1.3, b), rtol=1e-13, atol=1e-15,
                               err_msg=new)
