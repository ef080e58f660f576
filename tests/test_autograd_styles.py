"""numpy code the way HIPS autograd's own tests write it (`def fun(x): return
np.sum(x, axis=0)`, `lambda x: np.dot(x, mat)`, keyword spellings, closures
over module arrays; autograd's tests/test_numpy.py and test_systematic.py),
run through s2sad and checked against central finite differences of numpy's
own values, as plain Python and (sampled unless S2SAD_FULL=1) compiled.
tests/test_autograd_styles_more.py has the rest (linalg, scalar and binary
operations, graphs, higher order, logic, containers). The function forms
follow autograd's; the arguments and the checking are ours."""
import operator as op
import warnings
import zlib
from functools import partial

import numpy as np
import pytest

import s2sad
from s2sad import UnsupportedSyntaxError
from autograd_style_checks import FULL, R, U, Cases, check
from gradcheck import check_jvp

CASES = Cases()
case = CASES.case

# ---- test_numpy.py ---------------------------------------------------------------------

def fun_dot(x, y): return np.dot(x, y)


mat1, mat2, vect1, vect2, vect3 = R(4, 5), R(4, 5), R(4), R(5), R(5)
case("dot-mat-vec", fun_dot, mat1, vect2, wrt=(0, 1))
case("dot-mat-matT", fun_dot, mat1, mat2.T.copy(), wrt=(0, 1))
case("dot-vec-mat", fun_dot, vect1, mat1, wrt=(0, 1))
case("dot-vec-vec", fun_dot, vect2, vect3, wrt=(0, 1))
case("dot-mat-float", fun_dot, mat1, 0.7, wrt=(0, 1))
case("dot-float-mat", fun_dot, 0.7, mat1, wrt=(0, 1))
case("dot-vec-float", fun_dot, vect1, 0.7, wrt=(0, 1))
case("dot-float-vec", fun_dot, 0.7, vect1, wrt=(0, 1))


def fun_outer(x, y): return np.outer(x, y)


case("outer", fun_outer, vect2, vect3, wrt=(0, 1))


def fun_max(x): return np.max(x)
def fun_max_axis(x): return np.max(x, axis=1)
def fun_max_axis_keepdims(x): return np.max(x, axis=1, keepdims=True)
def fun_min(x): return np.min(x)
def fun_min_axis(x): return np.min(x, axis=1)
def fun_min_axis_keepdims(x): return np.min(x, axis=1, keepdims=True)
def fun_sum_1(x): return np.sum(x)
def fun_sum_2(x): return np.sum(x, axis=0)
def fun_sum_3(x): return np.sum(x, axis=0, keepdims=True)
def fun_sum_axis_tuple(x): return np.sum(x, axis=(1, 2))
def fun_flipud(x): return np.flipud(x)
def fun_fliplr(x): return np.fliplr(x)
def fun_rot90(x): return np.rot90(x)
def fun_cumsum_axis0(x): return np.cumsum(x, axis=0)
def fun_cumsum_axis1(x): return np.cumsum(x, axis=1)
def fun_cumsum(x): return np.cumsum(x)
def fun_mean_1(x): return np.mean(x)
def fun_mean_2(x): return np.mean(x, axis=0)
def fun_mean_3(x): return np.mean(x, axis=0, keepdims=True)


def fun_non_numpy_sum(x, y):
    return sum([x, y])


case("max", fun_max, R(4, 5))
case("max-axis", fun_max_axis, R(3, 4, 5))
case("max-axis-keepdims", fun_max_axis_keepdims, R(3, 4, 5))
case("min", fun_min, R(4, 5))
case("min-axis", fun_min_axis, R(3, 4, 5))
case("min-axis-keepdims", fun_min_axis_keepdims, R(3, 4, 5))
case("sum-1", fun_sum_1, R(4, 5))
case("sum-2", fun_sum_2, R(4, 5))
case("sum-3", fun_sum_3, R(4, 5))
case("sum-axis-tuple", fun_sum_axis_tuple, R(4, 5, 3))
case("flipud", fun_flipud, R(4, 5))
case("fliplr", fun_fliplr, R(4, 5))
case("rot90", fun_rot90, R(4, 5))
case("cumsum-axis0", fun_cumsum_axis0, R(4, 5))
case("cumsum-axis1", fun_cumsum_axis1, R(4, 5))
case("cumsum-1d", fun_cumsum, R(6))
case("cumsum-no-axis", fun_cumsum, R(4, 5))
case("non-numpy-sum", fun_non_numpy_sum, R(4, 5), R(4, 5), wrt=(0, 1))
case("mean-1", fun_mean_1, R(4, 5))
case("mean-2", fun_mean_2, R(4, 5))
case("mean-3", fun_mean_3, R(4, 5))


def fun_index_ints(x): return x[3, 0, 1]
def fun_index_slice(x): return x[::-1, 2:4, :]
def fun_index_lists(x): return x[[0, 1, 2], :, :]
def fun_index_mixed(x): return x[3, 2:, [1, 3]]
def fun_vector_slice(x): return x[2:4]


def fun_index_slice_fanout(x):
    y = x[::-1, 2:4, :]
    z = x[::-1, 3:5, :]
    return y + z


def fun_index_multiple_slices(x):
    y = x[2:6]
    z = y[1:3]
    return z


def fun_reshape_method(x): return x.reshape((5 * 4, 6))
def fun_reshape_call(x): return np.reshape(x, (5 * 4, 6))
def fun_reshape_method_nolist(x): return x.reshape(5 * 4, 6)
def fun_ravel_method(x): return x.ravel()
def fun_ravel_call(x): return np.ravel(x)
def fun_flatten_method(x): return x.flatten()


A546 = R(5, 6, 4)
case("index-ints", fun_index_ints, A546)
case("index-slice", fun_index_slice, A546)
case("index-lists", fun_index_lists, A546)
case("index-mixed", fun_index_mixed, A546)
case("vector-slice", fun_vector_slice, R(5))
case("index-slice-fanout", fun_index_slice_fanout, A546)
case("index-multiple-slices", fun_index_multiple_slices, R(7))
case("reshape-method", fun_reshape_method, A546)
case("reshape-call", fun_reshape_call, A546)
case("reshape-method-nolist", fun_reshape_method_nolist, A546)
case("ravel-method", fun_ravel_method, A546)
case("ravel-call", fun_ravel_call, A546)
case("flatten-method", fun_flatten_method, A546)
case("append-list", np.append, [1., 2., 3.], 4., wrt=(0, 1))
case("append-arr", np.append, np.array([1., 2., 3.]), 4., wrt=(0, 1))

A_cat, B_cat = R(5, 6, 4), R(4, 6, 4)


def fun_simple_concatenate(x): return np.concatenate((A_cat, x))
def fun_concatenate_axis_0(x): return np.concatenate((B_cat, x, B_cat))
def fun_concatenate_axis_1(x): return np.concatenate((A_cat, x, A_cat), axis=1)
def fun_concatenate_axis_1_unnamed(x): return np.concatenate((A_cat, x, A_cat), 1)


case("simple-concatenate", fun_simple_concatenate, R(4, 6, 4))
case("concatenate-axis-0", fun_concatenate_axis_0, R(4, 6, 4))
case("concatenate-axis-1", fun_concatenate_axis_1, R(5, 6, 4))
case("concatenate-axis-1-unnamed", fun_concatenate_axis_1_unnamed, R(5, 6, 4))

offset = 3


def fun_trace(x): return np.trace(x, offset=offset)
def fun_split_0(x): return np.split(x, 2)[0]
def fun_diag(x): return np.diag(x)
def fun_transpose(x): return x.T
def fun_roll(x): return np.roll(x, 2, axis=1)
def fun_triu(x): return np.triu(x, k = 2)
def fun_tril(x): return np.tril(x, k = 2)
def fun_clip(x): return np.clip(x, a_min=0.1, a_max=1.1)
def fun_prod_1(x): return np.prod(x)
def fun_prod_2(x): return np.prod(x, axis=0)
def fun_prod_3(x): return np.prod(x, axis=0, keepdims=True)


case("trace", fun_trace, R(5, 6))
case("trace2", fun_trace, R(6, 5))
case("split", fun_split_0, R(10))
case("trace-extradims", fun_trace, R(5, 6, 4, 3))
case("diag", fun_diag, R(5, 5))
case("transpose", fun_transpose, R(4, 4))
case("roll", fun_roll, R(4, 5))
case("triu", fun_triu, R(5, 5))
case("tril", fun_tril, R(5, 5))
case("clip", fun_clip, R(5, 5))
case("prod-1", fun_prod_1, R(2, 3) ** 2 / 10.0 + 0.1)
case("prod-2", fun_prod_2, R(2, 3) ** 2 + 0.1)
case("prod-3", fun_prod_3, R(2, 3) ** 2 + 0.1)
case("prod-4", fun_prod_1, R(7) ** 2 + 0.1)


def fun_1d_array(x):
    return np.array([x, x * 1.0, x + 2.5])


def fun_2d_array(x):
    return np.array([[x   , x * 1.0, x + 2.5],
                     [x**2, x      , x / 2.0]])


def fun_1d_array_fanout(x):
    A = np.array([x, x * 1.0, x + 2.5])
    return A + A


def fun_2d_array_fanout(x):
    A = np.array([[x   , x * 1.0, x + 2.5],
                  [x**2, x      , x / 2.0]])
    return A + A


def fun_array_from_scalar(x):
    return np.array(x)


def fun_array_from_arrays(x):
    return np.array([x, x])


def fun_array_from_arrays_2(x):
    return np.array([[2*x, x + 1],
                     [x  ,     x]])


def fun_len(x):
    assert len(x) == 3
    return x


case("1d-array", fun_1d_array, 3.0)
case("2d-array", fun_2d_array, 3.0)
case("1d-array-fanout", fun_1d_array_fanout, 3.0)
case("2d-array-fanout", fun_2d_array_fanout, 3.0)
case("array-from-scalar", fun_array_from_scalar, 3.0)
case("array-from-arrays", fun_array_from_arrays, R(3, 2))
case("array-from-arrays-2", fun_array_from_arrays_2, R(3, 2))
case("len", fun_len, R(3, 2))

c32 = R(3, 2)


def fun_r_basic(x):
    c = np.random.randn(3, 2)  # noqa: F841 (as autograd wrote it)
    b = np.r_[x]
    return b


def fun_r_double(x):
    b = np.r_[x, x]
    return b


def fun_no_relation(x):
    return c32


def fun_r_no_relation(x):
    b = np.r_[c32]
    return b


def fun_r_node_and_const(x):
    b = np.r_[x, c32]
    return b


def fun_r_mixed(x):
    b = np.r_[x, c32, x]
    return b


case("r-basic", fun_r_basic, R(3, 2))
case("r-double", fun_r_double, R(3, 2))
case("no-relation", fun_no_relation, R(3, 2))
case("r-no-relation", fun_r_no_relation, R(3, 2))
case("r-node-and-const", fun_r_node_and_const, R(3, 2))
case("r-mixed", fun_r_mixed, R(3, 2))


def var_keep_ddof(x): return np.var(x, axis=None, keepdims=True, ddof=1)
def var_ddof(x): return np.var(x, ddof=1)
def var_axis_ddof2(x): return np.var(x, axis=1, keepdims=False, ddof=2)
def var_axis_keep_ddof2(x): return np.var(x, axis=1, keepdims=True, ddof=2)
def std_keep_ddof(x): return np.std(x, axis=None, keepdims=True, ddof=1)
def std_ddof(x): return np.std(x, ddof=0)
def std_axis_ddof2(x): return np.std(x, axis=1, keepdims=False, ddof=2)
def std_axis_keep_ddof2(x): return np.std(x, axis=1, keepdims=True, ddof=2)


for name, f in [("var-keep-ddof", var_keep_ddof), ("var-ddof", var_ddof),
                ("std-keep-ddof", std_keep_ddof), ("std-ddof", std_ddof)]:
    case(name + "-B", f, R(3))
    case(name + "-C", f, R(3, 4))
    case(name + "-D", f, R(1, 3))
for name, f in [("var-axis-ddof2", var_axis_ddof2), ("var-axis-keep-ddof2", var_axis_keep_ddof2),
                ("std-axis-ddof2", std_axis_ddof2), ("std-axis-keep-ddof2", std_axis_keep_ddof2)]:
    case(name, f, R(3, 4))

C_where = R(4, 5) > 0


def fun_where(x, y):
    b = np.where(C_where, x, y)
    return b


def fun_squeeze_func(x): return np.squeeze(x)
def fun_squeeze_method(x): return x.squeeze()
def fun_repeat(x): return np.repeat(x, 2, axis=1)
def fun_repeat_axis1_rep1(x): return np.repeat(x, 1, axis=1)
def fun_repeat_axis0(x): return np.repeat(x, 2, axis=0)
def fun_repeat_axis0_rep1(x): return np.repeat(x, 1, axis=0)
def fun_expand_dims(x): return np.expand_dims(x, 2)


def fun_tensordot_kwargs_by_position(x):
    return np.tensordot(x * np.ones((2,2)),
                        x * np.ones((2,2)), 2)


case("where", fun_where, R(4, 5), R(4, 5), wrt=(0, 1))
case("squeeze-func", fun_squeeze_func, R(5, 1, 4))
case("squeeze-method", fun_squeeze_method, R(5, 1, 4))
case("repeat", fun_repeat, R(5, 3, 4))
case("repeat-axis1-rep1", fun_repeat_axis1_rep1, R(5, 3, 4))
case("repeat-axis0", fun_repeat_axis0, R(5, 3))
case("repeat-1d-axis0", fun_repeat_axis0, R(5))
case("repeat-axis0-rep1", fun_repeat_axis0_rep1, R(5, 1))
case("expand-dims", fun_expand_dims, R(5, 1, 4))
case("tensordot-kwargs-by-position", fun_tensordot_kwargs_by_position, 1.0)

fun_multi_index = lambda x: np.sum(x[[0, 0]])
fun_multi_index2 = lambda x: np.sum(x[[0, 1, 0]])


def fun_index_dot_slices(x): return np.dot(x[:2], x[2:])


case("multi-index", fun_multi_index, R(3))
case("multi-index2", fun_multi_index2, R(3))
case("index-dot-slices", fun_index_dot_slices, R(4))

inds = np.ones(5)[:, None]


def fun_cast_to_int(W):
    # glue W and inds together
    glued_together = np.concatenate((W, inds), axis=1)  # noqa: F841

    # separate W and inds back out
    new_W = W[:,:-1]
    new_inds = np.int64(W[:,-1])

    assert new_inds.dtype == np.int64
    return new_W[new_inds].sum()


W_cast = R(5, 10)
W_cast[:, -1] = [0.5, 3.3, 2.7, -1.4, 1.2]  # away from the jumps of the cast
case("cast-to-int", fun_cast_to_int, W_cast)


def fun_diagonal(D):
    return np.diagonal(D, axis1=-1, axis2=-2)


case("diagonal-2d", fun_diagonal, R(4, 4))
case("diagonal-3d", fun_diagonal, R(3, 4, 4))

y_nan = np.array([0., np.nan, np.inf, -np.inf])
fun_nan_to_num = lambda x: np.sum(np.sin(np.nan_to_num(x + y_nan)))
case("nan-to-num", fun_nan_to_num, R(4))


def fun_max_equal_values(x): return np.max(np.array([x, x]))


def fun_max_equal_values_2d(x): return np.max(np.array([[x, x  ],
                                                        [x, 0.5]]), axis=1)


def fun_min_3_way_equality(x): return np.min(np.array([[x,     x,   x],
                                                       [x,   0.5, 0.5],
                                                       [0.5, 0.5, 0.5],
                                                       [x,     x, 0.5]]), axis=0)


def fun_maximum_equal_values(x): return np.maximum(x, x)


def fun_maximum_equal_values_2d(x): return np.maximum(
        np.array( [x,   x, 0.5]),
        np.array([[x, 0.5,   x],
                  [x,   x, 0.5]]))


case("max-equal-values", fun_max_equal_values, 1.0)
case("max-equal-values-2d", fun_max_equal_values_2d, 1.0)
case("max-equal-values-2d-neg", fun_max_equal_values_2d, -1.0)
case("min-3-way-equality", fun_min_3_way_equality, 1.0)
case("min-3-way-equality-neg", fun_min_3_way_equality, -1.0)
case("maximum-equal-values", fun_maximum_equal_values, 1.0)
case("maximum-equal-values-2d", fun_maximum_equal_values_2d, 1.0)
case("maximum-equal-values-2d-neg", fun_maximum_equal_values_2d, -1.0)
case("maximum-equal-values-2d-2", fun_maximum_equal_values_2d, 2.0)


def fun_linspace_0(x, y): return np.linspace(x, y, 0)
def fun_linspace_1(x, y): return np.linspace(x, y, 1)
def fun_linspace_5(x, y): return np.linspace(x, y, 5)


for num, f in [(0, fun_linspace_0), (1, fun_linspace_1), (5, fun_linspace_5)]:
    case(f"linspace-{num}", f, 1.2, 3.4, wrt=(0, 1))
    case(f"linspace-{num}-neg", f, 1.2, -3.4, wrt=(0, 1))
    case(f"linspace-{num}-same", f, 1.2, 1.2, wrt=(0, 1))


# ---- test_systematic.py: statistics, ufuncs, binary operations -------------------------

# autograd's combo_check calls the numpy function itself with keyword
# arguments: here a functools.partial of it, which s2sad differentiates
# through the function's rule
STAT_C, STAT_D = R(2, 3), R(1, 3)
for f in [np.max, np.min, np.mean, np.sum, np.prod, np.var, np.std]:
    name = "stat-" + f.__name__
    case(name + "-float", f, 3.5)
    case(name + "-vec", f, R(3))
    for axis in (None, 0, 1):
        for keepdims in (True, False):
            case(f"{name}-C-axis{axis}-keep{keepdims}", partial(f, axis=axis, keepdims=keepdims),
                 STAT_C)
            case(f"{name}-D-axis{axis}-keep{keepdims}", partial(f, axis=axis, keepdims=keepdims),
                 STAT_D)


def unary(f, lo, hi):
    return [(f"{f.__name__}-scalar", f, U(lo, hi)), (f"{f.__name__}-vec", f, U(lo, hi, 2)),
            (f"{f.__name__}-mat", f, U(lo, hi, 3, 2)), (f"{f.__name__}-row", f, U(lo, hi, 1, 2))]


UNARY = [(np.sin, -2, 2), (np.abs, 0.1, 4.0), (np.absolute, 0.1, 4.0), (np.arccosh, 1.1, 4.0),
         (np.arcsinh, -0.9, 0.9), (np.arctanh, -0.9, 0.9), (np.ceil, -1.4, 1.4), (np.cos, -2, 2),
         (np.cosh, -2, 2), (np.deg2rad, -2, 2), (np.exp, -2, 2), (np.exp2, -2, 2),
         (np.expm1, -2, 2), (np.fabs, 0.1, 2), (np.floor, -1.4, 1.4), (np.log, 0.2, 2.0),
         (np.log10, 0.2, 2.0), (np.log1p, 0.2, 2.0), (np.log2, 0.2, 2.0), (np.radians, -2, 2),
         (np.sign, 0.1, 2), (np.sinh, -2, 2), (np.sqrt, 1.0, 3.0), (np.square, -2, 2),
         (np.tan, -1.1, 1.1), (np.tanh, -2, 2), (np.real, -2, 2), (np.real_if_close, -2, 2),
         (np.imag, -2, 2), (np.conj, -2, 2), (np.angle, 0.1, 2)]
for f, lo, hi in UNARY:
    for name, fn, x in unary(f, lo, hi):
        case("ufunc-" + name, fn, x)
case("ufunc-degrees", lambda x : np.degrees(x)/50.0, R(3, 2))
case("ufunc-rad2deg", lambda x : np.rad2deg(x)/50.0, R(3, 2))

# scalar, vector, matrix and row against each other (autograd tries all 16 pairs)
PAIRS = [("scalar-mat", (), (3, 2)), ("vec-mat", (2,), (3, 2)), ("mat-row", (3, 2), (1, 2)),
         ("row-scalar", (1, 2), ()), ("mat-mat", (3, 2), (3, 2))]
BINARY = [("add", np.add, (-2, 2), (-2, 2)), ("logaddexp", np.logaddexp, (-2, 2), (-2, 2)),
          ("logaddexp2", np.logaddexp2, (-2, 2), (-2, 2)),
          ("remainder", np.remainder, (-0.9, 0.9), (0.7, 1.9)),
          ("true_divide", np.true_divide, (-2, 2), (0.8, 1.2)), ("mod", np.mod, (-2, 2), (0.8, 2.1)),
          ("true_divide-neg", np.true_divide, (-2, 2), (-2.0, -0.3)),
          ("mod-neg", np.mod, (-2, 2), (-2.0, -0.3)),
          ("op.mul", op.mul, (-2, 2), (-2, 2)), ("op.add", op.add, (-2, 2), (-2, 2)),
          ("op.sub", op.sub, (-2, 2), (-2, 2)), ("op.mod", op.mod, (-2, 2), (0.3, 2.0)),
          ("op.mod-neg", op.mod, (-2, 2), (-2.0, -0.3)), ("op.truediv", op.truediv, (-2, 2), (0.5, 2.0)),
          ("op.pow", op.pow, (0.7, 2.0), (-2, 2))]
for name, f, la, lb in BINARY:
    for pair, sa, sb in PAIRS:
        a, b = U(*la, *sa), U(*lb, *sb)
        if name.endswith("mod") or "mod-" in name or name == "remainder":
            # off the jumps of a % b (autograd: binary_ufunc_check_no_same_args)
            a = np.where(np.abs(np.mod(a, b)) < 0.05, a + 0.1, a)
            a = np.where(np.abs(np.mod(a, b) - np.abs(b)) < 0.05, a - 0.1, a)
        case(f"binary-{name}-{pair}", f, a, b, wrt=(0, 1))


# ---- test_systematic.py: shapes, products, joining, splitting --------------------------

T234 = R(2, 3, 4)
for axes in [None, [0, 1, 2], [0, 2, 1], [2, 0, 1], [2, 1, 0], [1, 0, 2], [1, 2, 0]]:
    case(f"transpose-{axes}", partial(np.transpose, axes=axes), T234)
for repeats in (0, 1, 2):
    for axis in (None, 0, 1):
        case(f"repeat-{repeats}-{axis}", partial(np.repeat, repeats=repeats, axis=axis), R(3, 1))
        case(f"repeat-{repeats}-{axis}-3d", partial(np.repeat, repeats=repeats, axis=axis),
             R(2, 3, 4))
for n in (1, 2):
    for axis in (0, 1):
        case(f"diff-{n}-{axis}", partial(np.diff, n=n, axis=axis), R(5, 5, 5))
        case(f"diff-{n}-{axis}-2d", partial(np.diff, n=n, axis=axis), R(5, 5))
case("diff-len1", partial(np.diff, axis=0), R(1))
case("diff-1x1-axis0", partial(np.diff, axis=0), R(1, 1))
case("diff-1x1-axis1", partial(np.diff, axis=1), R(1, 1))
case("diff-3x1-axis1", partial(np.diff, axis=1), R(3, 1))
case("tile-4d", partial(np.tile, reps=(1, 4, 1, 2)), R(2, 1, 3, 1))
for reps in [(1, 2), (2, 3), (3, 2, 1)]:
    case(f"tile-{reps}", partial(np.tile, reps=reps), R(1, 2))
case("tile-1d", partial(np.tile, reps=(2,)), R(1))
case("tile-1d-int", partial(np.tile, reps=2), R(1))
case("kron", np.kron, R(3, 3), R(2, 2), wrt=(0, 1))
case("inner-float", np.inner, 1.5, 0.3, wrt=(0, 1))
case("inner-vec", np.inner, R(3), R(3), wrt=(0, 1))
case("inner-mat", np.inner, R(2, 3), R(4, 3), wrt=(0, 1))
case("inner-vec-mat", np.inner, R(3), R(4, 3), wrt=(0, 1))
case("dot-3d-3d", np.dot, R(2, 2, 3), R(2, 3, 4), wrt=(0, 1))
case("dot-mat-3d", np.dot, R(2, 3), R(2, 3, 4), wrt=(0, 1))
case("dot-3d-vec", np.dot, R(2, 2, 3), R(3), wrt=(0, 1))
for sa in [(3,), (2, 3), (2, 2, 3)]:
    for sb in [(3,), (3, 4), (2, 3, 4)]:
        case(f"matmul-{len(sa)}d-{len(sb)}d", np.matmul, R(*sa), R(*sb), wrt=(0, 1))
case("tensordot-1", lambda a, b: np.tensordot(a, b, axes=[(1,), (0,)]), R(2, 3, 2), R(3, 4, 2),
     wrt=(0, 1))
case("tensordot-2", lambda a, b: np.tensordot(a, b, axes=[(0,), (1,)]), R(3, 4, 2), R(2, 3, 2),
     wrt=(0, 1))
case("tensordot-3", lambda a, b: np.tensordot(a, b, axes=[(0, 1), (1, 2)]), R(2, 3, 4),
     R(2, 2, 3, 4), wrt=(0, 1))
case("tensordot-3-swapped", lambda a, b: np.tensordot(a, b, axes=[(1, 0), (2, 1)]), R(2, 3, 4),
     R(2, 2, 3, 4), wrt=(0, 1))
case("tensordot-4", lambda a, b: np.tensordot(a, b, axes=1), R(4, 2, 2), R(2, 2, 4), wrt=(0, 1))
case("tensordot-4-2", lambda a, b: np.tensordot(a, b, axes=2), R(4, 2, 2), R(2, 2, 4), wrt=(0, 1))
case("tensordot-5", lambda a, b: np.tensordot(a, b, axes=0), R(4), R(3), wrt=(0, 1))
case("tensordot-6", lambda a, b: np.tensordot(a, b, axes=[[-1], [0]]), R(2, 6), R(6, 3),
     wrt=(0, 1))
for f in (np.maximum, np.fmax, np.minimum, np.fmin):
    case(f"{f.__name__}-1-14", f, R(1), R(1, 4), wrt=(0, 1))
    case(f"{f.__name__}-14-34", f, R(1, 4), R(3, 4), wrt=(0, 1))
    case(f"{f.__name__}-34-34", f, R(3, 4), R(3, 4), wrt=(0, 1))
case("sort-1", np.sort, R(1))
case("sort-7", np.sort, R(7))
for kth in (0, 3, 6):
    case(f"partition-{kth}", partial(np.partition, kth=kth), R(14))
    case(f"partition-{kth}-7", partial(np.partition, kth=kth), R(7))
for f in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
    for shape in [(), (1,), (7,), (1, 4), (2, 4), (2, 4, 5)]:
        case(f"{f.__name__}-{shape}", f, R(*shape))

case("einsum-transpose", lambda x: np.einsum('ij->ji', x), R(3, 4))
case("einsum-matmult", lambda a, b: np.einsum('ij,jk->ik', a, b), R(2, 3), R(3, 4), wrt=(0, 1))
case("einsum-matmult-broadcast", lambda a, b: np.einsum('...ij,...jk->...ik', a, b),
     R(2, 2, 3), R(2, 3, 4), wrt=(0, 1))
case("einsum-covsum", lambda a, b: np.einsum('ijk,lji->lki', a, b), R(3, 4, 4), R(4, 4, 3),
     wrt=(0, 1))
case("einsum-ellipses", lambda a, b: np.einsum('...jk,...lj->...lk', a, b), R(3, 4, 4),
     R(3, 4, 4), wrt=(0, 1))
case("einsum-ellipses-scalarlike", lambda a, b: np.einsum('...,...->...', a, b), R(3, 4, 4),
     R(3, 4, 4), wrt=(0, 1))
case("einsum-three-args", lambda a, b, c: np.einsum('ijk,lji,lli->lki', a, b, c), R(3, 4, 4),
     R(4, 4, 3), R(4, 4, 3), wrt=(0, 1))
case("einsum-interleaved", lambda a, b: np.einsum(a, (0, 1), b, (1, 2), (0, 2)), R(2, 3),
     R(3, 4), wrt=(0, 1))

for shape in [(5, 5), (4, 5), (5, 4), (3, 4, 5)]:
    for off in (-1, 0, 1):
        case(f"trace-{shape}-{off}", partial(np.trace, offset=off), R(*shape))
for k in (-1, 0, 1):
    case(f"diag-{k}", partial(np.diag, k=k), R(5, 5))
    case(f"diag-flat-{k}", partial(np.diag, k=k), R(5))
    case(f"tril-{k}", partial(np.tril, k=k), R(5, 5))
    case(f"triu-{k}", partial(np.triu, k=k), R(5, 5))
    case(f"tril-3d-{k}", partial(np.tril, k=k), R(5, 5, 4))
    case(f"triu-3d-{k}", partial(np.triu, k=k), R(5, 5, 4))
for a1 in (0, 1, 2):
    for a2 in (0, 1, 2):
        case(f"swapaxes-{a1}-{a2}", partial(np.swapaxes, axis1=a1, axis2=a2), R(3, 4, 5))
for axis in (0, 1, 2):
    for start in (0, 1, 2, 3):
        case(f"rollaxis-{axis}-{start}", partial(np.rollaxis, axis=axis, start=start),
             R(2, 3, 4))
for axisa, axisb, axisc, axis in [(-1, -1, -1, None), (0, 1, -1, None), (1, 0, 0, None),
                                  (-1, -1, -1, 0), (0, 0, 0, 1), (-1, 0, 1, None)]:
    case(f"cross-{axisa}-{axisb}-{axisc}-{axis}",
         partial(np.cross, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis),
         R(3, 3), R(3, 3), wrt=(0, 1))


def fun_vsplit(x): return np.vsplit(x, 4)[1]
def fun_vsplit_list(x): return np.vsplit(x, [1, 2])[2]
def fun_hsplit(x): return np.hsplit(x, 4)[1]
def fun_hsplit_list(x): return np.hsplit(x, [1, 2])[0]
def fun_dsplit(x): return np.dsplit(x, 2)[1]
def fun_dsplit_list(x): return np.dsplit(x, [1, 2])[1]
def fun_split_axis(x): return np.split(x, [1, 2], axis=1)[2]
def fun_array_split(x): return np.array_split(x, 4, axis=1)[3]
def fun_array_split_list(x): return np.array_split(x, [3, 5], axis=2)[1]


def fun_split_pieces(x):
    a, b = np.split(x, 2, axis=0)
    return a * b


case("vsplit-2d", fun_vsplit, R(4, 8))
case("vsplit-3d-list", fun_vsplit_list, R(4, 4, 4))
case("hsplit-2d", fun_hsplit, R(4, 8))
case("hsplit-3d-list", fun_hsplit_list, R(4, 4, 4))
case("dsplit-3d", fun_dsplit, R(4, 4, 4))
case("dsplit-3d-list", fun_dsplit_list, R(4, 4, 4))
case("split-2d-list", fun_split_axis, R(4, 8))
case("split-pieces", fun_split_pieces, R(4, 8))
case("array-split-2d", fun_array_split, R(7, 7))
case("array-split-3d-list", fun_array_split_list, R(7, 7, 7))

case("concatenate-tuple", lambda a, b: np.concatenate((a, b), axis=0), R(1), R(3), wrt=(0, 1))
case("concatenate-list", lambda a, b: np.concatenate([a, b], axis=0), R(1), R(3), wrt=(0, 1))
for axis in (0, 1, 2):
    case(f"concatenate-3d-{axis}", lambda a, b, axis=axis: np.concatenate((a, b), axis=axis),
         R(2, 2, 2), R(2, 2, 2), wrt=(0, 1))
case("vstack-1d", lambda x: np.vstack(x), R(2))
case("vstack-1d-pair", lambda a, b: np.vstack((a, b)), R(2), R(2), wrt=(0, 1))
case("vstack-2d", lambda a, b: np.vstack((a, b)), R(2, 4), R(1, 4), wrt=(0, 1))
case("vstack-3d", lambda a, b: np.vstack((a, b)), R(2, 3, 4), R(5, 3, 4), wrt=(0, 1))
case("hstack-1d", lambda x: np.hstack(x), R(2))
case("hstack-1d-pair", lambda a, b: np.hstack((a, b)), R(2), R(2), wrt=(0, 1))
case("hstack-2d", lambda a, b: np.hstack((a, b)), R(3, 4), R(3, 5), wrt=(0, 1))
case("hstack-3d", lambda a, b: np.hstack((a, b)), R(2, 1, 4), R(2, 5, 4), wrt=(0, 1))
case("stack-1", lambda a: np.stack((a,), axis=1), R(2))
case("stack-2", lambda a, b: np.stack((a, b), axis=1), R(2), R(2), wrt=(0, 1))
case("column-stack-1d", lambda a, b: np.column_stack((a, b)), R(2), R(2), wrt=(0, 1))
case("column-stack-2d", lambda a, b: np.column_stack((a, b)), R(2, 2), R(2, 2), wrt=(0, 1))
case("column-stack-one", lambda x: np.column_stack(x), R(2))

SEL_C = [R(3, 4, 5) > 0, R(3, 4, 5) > 0, R(3, 4, 5) > 0]
case("select", lambda a, b, c: np.select(SEL_C, [a, b, c], default=1.1), R(3, 4, 5),
     R(3, 4, 5), R(3, 4, 5), wrt=(0, 1, 2))


# ---- what s2sad refuses, each with an error naming the line ------------------------------
# (case-id prefix -> the exception; the refused forms stay in the table above,
# where autograd has them)

REFUSED = {
    "ufunc-real_if_close": LookupError,             # numpy's Python source, asanyarray
    "ufunc-angle": LookupError,
    "inner-float": LookupError,                     # np.inner of two numbers
    "einsum-interleaved": LookupError,              # np.einsum(a, (0, 1), b, (1, 2), (0, 2))
}
ACCEPTED, COMPILED, REFUSALS = CASES.split(REFUSED, {"column-stack-1d", "dot-mat-vec"})


@pytest.mark.parametrize("fn, args, wrt", ACCEPTED)
def test_against_finite_differences(fn, args, wrt):
    check(fn, args, wrt, jit=False)


@pytest.mark.parametrize("fn, args, wrt", [
    p for p in ACCEPTED if not isinstance(p.values[1][0], list)
    and (FULL or zlib.crc32(p.id.encode()) % 4 == 0)])
def test_forward_mode_against_finite_differences(fn, args, wrt):
    # autograd's check_grads checks both modes; a quarter of the cases by default
    check_jvp(fn, args, wrt=wrt, jit=False, atol=1e-5)


@pytest.mark.parametrize("fn, args, wrt", COMPILED)
def test_compiled_against_finite_differences(fn, args, wrt):
    # forms numba has no implementation of run as Python with the fallback
    # warning (counted by tests/test_systematic.py, not here)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.NumbaFallbackWarning)
        check(fn, args, wrt, jit=True)


@pytest.mark.parametrize("fn, args, wrt, error", REFUSALS)
def test_refused_with_the_line(fn, args, wrt, error):
    fn(*args)  # numpy computes it
    with pytest.raises(error) as info:
        s2sad.grad(fn, wrt=wrt, jit=False)(*args)
    # the line of the call (or of the one-line function of a numpy function given directly)
    # or of what the user gave: a numpy function (its one-line function, or its
    # own source for np.angle), a partial (np.linalg.svd of a stack names the
    # user's line, not s2sad's definition of svd)
    assert any(w in str(info.value) for w in (
        "test_autograd_styles.py:", "s2sad_primitive_", "functools.partial of", "numpy/lib/"))
