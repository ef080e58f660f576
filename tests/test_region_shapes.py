"""A region written from an array (`y[i, :] = x[i, :]`, `y[i, :] += x[i, :]`) sends its
cotangent through `unbroadcast` only when the shapes are not proven equal
(transforms/analysis/shape_classes.py, same_region_shapes): proven when both arrays have
one shape throughout and of one class (`y = np.zeros_like(x)`, `y = x.copy()`), indexed
by ints or by the same slices. Every form against finite differences, the proofs also by
the generated source."""
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad


def rows_copied(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i, :] = x[i, :]
    return np.sum(y * y * np.arange(1.0, 4.0))


def rows_added(x):
    y = x.copy()
    for i in range(1, x.shape[0]):
        y[i, :] += x[i - 1, :]
    return np.sum(y * y * np.arange(1.0, 4.0))


def same_slices(x):
    y = np.zeros_like(x)
    y[1:3] = x[1:3]
    y[:, 0] = x[:, 2]
    return np.sum(y ** 3)


def whole(x):
    y = np.ones_like(x)
    y[:] = x
    return np.sum(y ** 3)


# not proven: kept (a wrong proof would be a silently wrong gradient)

def other_argument(x, w):
    y = w.copy()  # x's rows may broadcast into w's
    for i in range(x.shape[0]):
        y[i, :] = x[i, :]
    return np.sum(y ** 3)


def other_slices(x):
    y = np.zeros_like(x)
    y[0:2, :1] = x[1:3, 2:3]
    return np.sum(y ** 3)


def broadcasting(x, c):
    y = x.copy()
    y[:, 1:] -= c[:, None]
    y[0] = x[1, 1:2]
    return np.sum(y ** 3)


def rebound_in_a_loop(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y = y[:, :2]  # (another shape each time)
        y = np.zeros_like(x)
        y[i, :] = x[i, :]
    return np.sum(y ** 3)


X = np.random.default_rng(56).normal(size=(4, 3))
CASES = [(rows_copied, (X,), True), (rows_added, (X,), True), (same_slices, (X,), True),
         (whole, (X,), True), (other_argument, (X[:, :1] * 1.0, X), False),
         (other_slices, (X,), False), (broadcasting, (X, X[:, 0] * 1.0), False),
         (rebound_in_a_loop, (X,), None)]


@pytest.mark.parametrize("f,args,proven", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient(f, args, proven):
    check_grad(f, args, wrt=tuple(range(len(args))), jit=False)


@pytest.mark.parametrize("f,args,proven", CASES[:1] + CASES[4:5],
                         ids=[c[0].__name__ for c in CASES[:1] + CASES[4:5]])
def test_gradient_compiled(f, args, proven):
    check_grad(f, args, wrt=tuple(range(len(args))), jit=True)


@pytest.mark.parametrize("f,args,proven", CASES, ids=[c[0].__name__ for c in CASES])
def test_source(f, args, proven):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = s2sad.grad(f, wrt=tuple(range(len(args))), jit=False).source_for(*args)
    # the adjoint of the write: dx (or a region of it) receives a region of dy
    written = [line for line in source.splitlines()
               if line.strip().startswith("dx") and "dy[" in line]
    assert written, source
    if proven is True:
        assert not any("unbroadcast" in line for line in written), source
    elif proven is False:
        assert any("unbroadcast" in line for line in written), source


# ---- elementwise operations of arrays proved of one shape --------------------
# (contributions.unbroadcast: no `unbroadcast` call, which numba compiles for
# a few tenths of a second, where nothing was broadcast)

def squares(u):
    return np.sum(u * u)


def same_class(u):
    v = np.sin(u)
    w = v * u  # (v has u's shape: an elementwise function of it)
    return np.sum(w * w)


def broadcast_rows(a, b):
    return np.sum(np.tanh(a * b))  # (3, 1) * (4,): both broadcast


def shrinking(u):
    v = u
    for _ in range(2):
        v = v[1:] * v[:-1]  # (v's shape changes: no shape proof)
    return np.sum(v * u[:v.shape[0]])


@pytest.mark.parametrize("f, args, unbroadcasts", [
    (squares, [np.array([0.5, -1.0, 2.0])], 0),
    (same_class, [np.array([0.5, -1.0, 2.0])], 0),
    (broadcast_rows, [np.array([[0.1], [0.2], [-0.3]]), np.array([1.0, 0.5, -0.5, 2.0])], 2),
    (shrinking, [np.array([0.5, -1.0, 2.0, 0.3, 0.9])], None),
])
def test_elementwise_operands_of_one_shape(f, args, unbroadcasts, jit):
    wrt = tuple(range(len(args)))
    check_grad(f, args, wrt=wrt, jit=jit)
    source = s2sad.grad(f, wrt=wrt).source_for(*args)
    if unbroadcasts is not None:
        assert source.count("unbroadcast(") == unbroadcasts
    # the plain twin proves nothing of shape classes; one name is proof enough
    plain = s2sad.grad(f, wrt=wrt, optimise=False)
    for p, o in zip(plain(*args), s2sad.grad(f, wrt=wrt, jit=jit)(*args)):
        np.testing.assert_allclose(p, o, rtol=1e-12)
