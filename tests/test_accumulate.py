"""How generated code accumulates adjoints (transforms/accumulate.py): the
cotangent of a whole-array reduction is not materialised as an array when
it only meets that array elementwise.

Checked against finite differences, compiled and as Python; the generated
source is checked where finite differences cannot see the difference."""
import numpy as np

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(5)


def logsumexp(x):
    m = np.max(x)
    return np.log(np.sum(np.exp(x - m))) + m


def test_a_sum_cotangent_meets_its_array_as_a_scalar(jit):
    x = rng.normal(size=7)
    check_grad(logsumexp, (x,), jit=jit)
    src = s2sad.grad(logsumexp, jit=False).source_for(x)
    assert "unreduce" not in src and "dsum2 * exp" in src, src


def sum_read_twice(x, y):
    s = np.sum(x * x)
    return s * np.sum(y) + np.sum(np.sin(y))


def test_a_cotangent_read_otherwise_stays_an_array(jit):
    args = (rng.normal(size=(3, 4)), rng.normal(size=(3, 4)))
    check_grad(sum_read_twice, args, wrt=(0, 1), jit=jit)


def mean_of_broadcast(x, b):
    return np.mean(x * b)   # b (4,) broadcasts against x (3, 4)


def test_a_reduction_over_a_broadcast_product(jit):
    args = (rng.normal(size=(3, 4)), rng.normal(size=4))
    check_grad(mean_of_broadcast, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(mean_of_broadcast, wrt=(0, 1), jit=False).source_for(*args)
    assert "unreduce" in src, src  # met x and b, not the product itself
