"""Python's arithmetic operators. `g` is the cotangent of the result `ans`;
each template returns the cotangents of its operands (summed back over
broadcast axes by the compiler, since these are elementwise)."""
import operator

import numpy as np

from .. import runtime as rt
from ..extend import (K, MATMUL_OPERAND, adjoint, broadcast_args, broadcast_float,
                      ndims_are, nondifferentiable, takes_rule_of)


@adjoint(operator.add, kind=broadcast_args, elementwise=True)
def add(g, ans, x, y):
    return g, g


@adjoint(operator.sub, kind=broadcast_args, elementwise=True)
def sub(g, ans, x, y):
    return g, -g


@adjoint(operator.mul, kind=broadcast_args, elementwise=True)
def mul(g, ans, x, y):
    return g * y, g * x


@adjoint(operator.truediv, kind=broadcast_float, elementwise=True)
def truediv(g, ans, x, y):
    return g / y, -g * x / (y * y)


@adjoint(operator.pow, kind=broadcast_args, elementwise=True)
def pow(g, ans, x, y):
    # at 0 ** 0 the first is 0 (x ** (y - 1) would be inf), at x == 0 the second
    # (log(0) * 0 would be nan): as JAX and autograd
    return g * y * x ** (y - 1 + (y == 0)), g * np.log(x + (x == 0)) * ans


@adjoint(operator.pow, when=lambda x, y: y.tag == "int")
def pow_int(g, ans, x, y):
    return g * y * x ** (y - 1 + (y == 0)), None


@adjoint(operator.neg, kind=lambda args, kws: args[0], linear=(0,))
def neg(g, ans, x):
    return -g


@adjoint(operator.mod, kind=broadcast_args, elementwise=True)
def mod(g, ans, x, y):
    return g, -g * np.floor(x / y)


def _matmul_kind(args, kws):
    return K.matmul(*args)


@adjoint(operator.matmul, kind=_matmul_kind, linear=(0, 1),
         values={"x": MATMUL_OPERAND, "y": MATMUL_OPERAND})
def matmul(g, ans, x, y):
    return matmul_grad_left(g, x, y), matmul_grad_right(g, x, y)  # noqa: F821 (runtime)


@adjoint(operator.matmul, when=lambda x, y: x.ndim == 2 and y.ndim == 2)
def matmul_2d(g, ans, x, y):
    return g @ y.T, x.T @ g


# as np.matmul's (rules/contractions.py): numpy itself where the ndims are known
@adjoint(operator.matmul, when=lambda x, y: ndims_are(x, y, 2, 1))
def matmul_matrix_vector(g, ans, x, y):
    return np.outer(g, y), g @ x


@adjoint(operator.matmul, when=lambda x, y: ndims_are(x, y, 1, 2))
def matmul_vector_matrix(g, ans, x, y):
    return y @ g, np.outer(x, g)


@adjoint(operator.matmul, when=lambda x, y: ndims_are(x, y, 1, 1))
def matmul_vectors(g, ans, x, y):
    return g * y, g * x


nondifferentiable(operator.floordiv, kind=broadcast_args)
# bitwise operators: integers and booleans only, never differentiated
nondifferentiable(operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift,
                  kind=broadcast_args)


@adjoint(operator.matmul, when=lambda x, y: min(x.ndim, y.ndim) >= 2 and max(x.ndim, y.ndim) > 2)
def matmul_stacked(g, ans, x, y):
    return unbroadcast(g @ np.swapaxes(y, -1, -2), x), unbroadcast(np.swapaxes(x, -1, -2) @ g, y)  # noqa: F821


# python_power(a, b) is a ** b (transforms/emit/numba_forms.py: exponents that may be
# negative integers)
takes_rule_of(rt.python_power, operator.pow)
