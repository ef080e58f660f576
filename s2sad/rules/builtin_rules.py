"""Python builtins (and the casts np.float64(x) and x.item())."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import builtins

import numpy as np

from .. import runtime as rt
from ..extend import (K, adjoint, broadcast_args, first_arg, int_scalar, nondifferentiable,
                      refused)


@adjoint(builtins.abs, kind=first_arg, pointwise=True)
def abs(g, ans, x):
    return g * np.sign(x)


@adjoint(builtins.min, kind=broadcast_args, elementwise=True)
def min(g, ans, x, y):
    return g * (x <= y), g * (x > y)


@adjoint(builtins.max, kind=broadcast_args, elementwise=True)
def max(g, ans, x, y):
    return g * (x >= y), g * (x < y)


# sum(x) of a 1-d array adds its elements, as np.sum(x) (numba has no sum of a 2-d array);
@adjoint(builtins.float, kind=lambda args, kws: K.FLOAT, linear=(0,))
def float(g, ans, x):
    return g


# np.float64(x), the same cast as float(x) (of an array: a float64 copy)
@adjoint(np.float64, kind=lambda args, kws: args[0] if args[0].is_array else K.FLOAT,
         linear=(0,))
def float64(g, ans, x):
    return g


# x.item() (transforms/frontend/calls/bind.py writes it item_of(x))
@adjoint(rt.item_of, kind=lambda args, kws: K.scalar(args[0].scalar_dtype) if args[0].known
         else K.UNKNOWN, linear=(0,))
def item_of(g, ans, x):
    return unreduce(g, x, None)


@adjoint(builtins.pow, kind=broadcast_args, elementwise=True)
def pow(g, ans, base, exp):
    # as operators.pow: 0 ** 0 and x == 0 give 0, not inf or nan
    return g * exp * base ** (exp - 1 + (exp == 0)), g * np.log(base + (base == 0)) * ans


nondifferentiable(builtins.int, builtins.len, builtins.round, kind=int_scalar)
nondifferentiable(builtins.bool, kind=lambda args, kws: K.BOOL)
# np.int64(x) (of an array: an array of ints, an index): piecewise constant, as int(x)
nondifferentiable(np.int64, np.int32, np.intp,
                  kind=lambda args, kws: K.array(args[0].ndim, "i") if args[0].is_array else K.INT)
nondifferentiable(builtins.range, builtins.print, kind=lambda args, kws: K.UNKNOWN)
# sorted(x) is a list: an array in its place would add or repeat where the list
# joins (`+`, `*`), so it is refused with what to write where the front end
# has not made it a list comprehension (`s = sorted(x)`, sorted_forms.py; a
# dict argument's sorted(p) is unrolled before this, container_loops.py)
refused(builtins.sorted, kind=lambda args, kws: K.UNKNOWN,
        reason="sorted() of values that need a gradient, inside an expression or with "
               "key=, gives a list; assign it to a name first (s = sorted(x)), write "
               "np.sort(x) (an array, sorted along its last axis) or sort a list literal "
               "in place with L.sort()")
