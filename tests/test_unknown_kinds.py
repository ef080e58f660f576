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
