"""np.argmin / np.argmax over an axis give an index array (the nearest
centre of each point), not a number: a gather through it (`c[k]`) repeats
centres, whose gradients add up. Typed as a number, the gradient was wrong
with no error, and a loop over k[i] was refused."""
import numpy as np
import pytest

from gradcheck import check_grad

C1 = np.array([0.5, 1.0, -0.8])
X1 = np.array([0.15, -0.3, 0.9, 1.2, -1.1])
C2 = np.array([[0.5, 0.2], [-1.0, 0.4], [0.3, -0.9]])
X2 = np.array([[0.4, 0.1], [0.6, 0.3], [-0.8, 0.5], [0.2, -1.1], [-1.2, 0.2]])


def nearest_product(c, x):
    k = np.argmin(np.abs(x[:, None] - c[None, :]), axis=1)
    return np.sum(x * c[k])


def farthest_by_argmax(c, x):
    k = np.argmax(np.abs(x[:, None] - c[None, :]), axis=-1)
    return np.sum(x * c[k] ** 2)


def quantisation_error(C, X):
    d = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=2)
    k = d.argmin(axis=1)
    return np.sum((X - C[k]) ** 2)


def assignment_loop(c, x):
    k = np.argmin(np.abs(x[:, None] - c[None, :]), axis=1)
    total = 0.0
    for i in range(x.shape[0]):
        total += (x[i] - c[k[i]]) ** 2
    return total


@pytest.mark.parametrize("f, args, wrt", [
    (nearest_product, (C1, X1), 0), (farthest_by_argmax, (C1, X1), 0),
    (quantisation_error, (C2, X2), 0), (quantisation_error, (C2, X2), 1),
    (assignment_loop, (C1, X1), 0), (assignment_loop, (C1, X1), 1)])
def test_gathers_through_the_nearest_centre(f, args, wrt, jit):
    check_grad(f, args, wrt=wrt, jit=jit)
