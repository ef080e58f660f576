"""A value whose kind s2sad cannot know (here a parameter rebound to an
array of another rank: kinds are per variable) makes the kinds computed from
it unknown too; a primitive's kind rule never reads a rank from it, which
would make e.g. a 2-d array a number and sum its cotangent."""
import numpy as np

from gradcheck import check_grad

WEIGHTS = np.array([[1.0, -2.0], [0.5, 3.0]])


def gauss_kernel(u, scales):
    d = np.expand_dims(u / scales, 1) - np.expand_dims(u / scales, 0)
    return np.exp(-0.5 * np.sum(d ** 2, axis=2))


def weighted_kernel(x):
    x = np.reshape(x, (2, 2))  # x: 1-d, then 2-d
    k = gauss_kernel(x, np.array([1.0, 2.0]))
    return np.sum(k * WEIGHTS)


def test_kernel_of_a_rebound_parameter(jit):
    check_grad(weighted_kernel, [np.array([0.3, -0.7, 1.1, 0.4])], jit=jit)


# ---- a tape's record of an element of unknown kind ----------------------------------------
# (ADBench's gmm: a matrix built by helpers reaches a helper whose comprehension
# is recorded element by element; the plain derivative, every optimisation
# off, copied each element with `.copy()`, which numba refuses for a number)

def _scalar_multiply(a, scalar):
    return np.asarray([(a[i] * scalar) for i in range(a.size)])


def _columns(v):
    return np.column_stack([v * (i + 1.0) for i in range(v.size)])


def _q_times_x(L, x):
    res = x * 1.0
    for i in range(L.shape[0]):
        res = res + _scalar_multiply(L[:, i], x[i])
    return res


def products_of_built_matrices(W, x):
    Ls = np.asarray([_columns(w) for w in W])
    total = 0.0
    for k in range(Ls.shape[0]):
        total = total + np.sum(_q_times_x(Ls[k, :, :], x) ** 2)
    return total


def test_a_recorded_element_of_unknown_kind_compiles_in_the_plain_derivative(jit):
    import s2sad
    W, x = np.arange(6.0).reshape(2, 3) / 10, np.array([0.3, -0.2, 0.5])
    check_grad(products_of_built_matrices, [W, x], wrt=(0, 1), jit=jit)
    plain = s2sad.grad(products_of_built_matrices, wrt=(0, 1), optimise=False,
                       jit="require" if jit else False)
    eps = 1e-6
    expected = [(products_of_built_matrices(W, x + eps * e)
                 - products_of_built_matrices(W, x - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(plain(W, x)[1], expected, rtol=1e-6)
    assert "value_copy(" in plain.source
