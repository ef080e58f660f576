"""Code written the way other AD projects' users write it (module-level
constants, statistics of degenerate samples, ...), against finite
differences, compiled with numba and as plain Python."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, check_tree_grad, numerical_grad

rng = np.random.default_rng(7)

# ---- names read from the function's module ----------------------------------------
# A module-level array or number has the kind of its value: a rule that needs
# to know a matrix from a vector (np.dot, np.trace's offset) accepts it.

PROJECTION = rng.normal(size=(4, 3))
OFFSET = 1
SCALE = 0.5


def projected_energy(v):
    w = np.dot(PROJECTION, v)
    return np.sum(np.tanh(w) ** 2)


def quadratic_form(v):
    return np.dot(np.dot(v, PROJECTION.T), np.dot(PROJECTION, v)) * SCALE


def band_sum(m):
    return np.trace(np.exp(m), offset=OFFSET)


def matmul_with_module_matrix(m):
    return np.sum(np.sin(m @ PROJECTION))


ENDS = (0, 2)


def product_of_ends(x):
    return x[ENDS[0]] * x[ENDS[1]] ** 2


@pytest.mark.parametrize("fn, arg", [
    (projected_energy, rng.normal(size=3)),
    (quadratic_form, rng.normal(size=3)),
    (band_sum, rng.normal(size=(3, 4))),
    (matmul_with_module_matrix, rng.normal(size=(2, 4))),
    (product_of_ends, rng.normal(size=3)),
], ids=["dot", "quadratic", "trace-offset", "matmul", "tuple-index"])
def test_module_level_values(fn, arg, jit):
    check_grad(fn, (arg,), jit=jit)


def test_local_name_shadowing_module_value_keeps_its_own_kind(jit):
    def shadowed(v):
        PROJECTION = v * 2.0  # a local of the same name: a vector, not the module's matrix
        return np.dot(PROJECTION, v)

    check_grad(shadowed, (rng.normal(size=3),), jit=jit)


# ---- np.std where the spread is zero ------------------------------------------------
# The standard deviation of one element is 0 whatever the element: its
# gradient is 0, not 0/0 (the same convention as np.linalg.norm at 0).

def spread_of_single_row(x):
    return np.sum(np.std(x, axis=0)) + np.sum(x ** 2)


def spread_of_scalar(t):
    return np.std(t) + 3.0 * t


def spread_keepdims(x):
    return np.sum(np.std(x, axis=1, keepdims=True) * np.arange(1.0, 4.0)[:, None])


@pytest.mark.parametrize("fn, arg", [
    (spread_of_single_row, rng.normal(size=(1, 4))),
    (spread_of_scalar, 1.25),
    (spread_keepdims, rng.normal(size=(3, 1))),
], ids=["one-row", "scalar", "keepdims"])
def test_std_of_zero_spread(fn, arg, jit):
    df = s2sad.grad(fn, jit=jit)
    got = df(arg)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, numerical_grad(fn, (arg,), 0), rtol=1e-6, atol=1e-7)


def test_std_tangent_of_zero_spread(jit):
    check_jvp(spread_of_single_row, (rng.normal(size=(1, 4)),), jit=jit)


def test_std_away_from_zero_spread_unchanged(jit):
    check_grad(lambda x: np.std(x, axis=0, ddof=1), (rng.normal(size=(4, 3)),), jit=jit)


# ---- assignment through an index array naming a position twice ---------------------
# numpy keeps the last write (`y[[0, 0]] = v` leaves y[0] == v[1]); the
# overwritten values get no gradient.

WEIGHTS = np.arange(1.0, 13.0).reshape(4, 3)


def rows_written_twice(x, rows):
    y = np.zeros((4, 3))
    y[rows] = np.sin(x[:3])
    return np.sum(y * WEIGHTS)


def columns_incremented_twice(x, cols):
    y = np.ones((4, 3))
    y[:, cols] += x[:, :4] * 2.0
    return np.sum(y ** 2 * WEIGHTS)


def after_an_integer(x, cols):
    y = np.ones((2, 4, 3))
    y[1, :, cols] = x[:3, :4] ** 2
    return np.sum(y * np.arange(24.0).reshape(2, 4, 3))


def one_scalar_to_repeated_slots(s, slots):
    y = np.zeros(4)
    y[slots] = s * 2.0
    return np.sum(y * np.arange(1.0, 5.0))


def literal_repeats(x):
    y = np.zeros(3)
    y[[0, 0, 1]] = x[:3] * x[1:]
    y[[-1, 2]] += x[2:]  # -1 and 2 are the same slot of a length-3 axis
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("fn, args", [
    (rows_written_twice, (rng.normal(size=(4, 3)), np.array([1, 3, 1]))),
    (columns_incremented_twice, (rng.normal(size=(4, 5)), np.array([0, 2, 0, -3]))),
    (after_an_integer, (rng.normal(size=(4, 4)), np.array([2, -1, 2]))),
    (one_scalar_to_repeated_slots, (0.7, np.array([1, 1, 3]))),
], ids=["rows", "columns-increment", "after-int", "scalar"])
def test_repeated_index_assignment_keeps_last_write(fn, args, jit):
    check_grad(fn, args, jit=jit)
    check_jvp(fn, args, jit=jit)  # forward mode assigns the tangents the same way


# numba cannot assign through a list literal (`y[[0, 0, 1]] = ...`, in the function
# itself): compiled, this runs as Python
@pytest.mark.filterwarnings("ignore::s2sad.NumbaFallbackWarning")
def test_repeated_literal_index_assignment_keeps_last_write(jit):
    check_grad(literal_repeats, (rng.normal(size=4),), jit=jit)


def test_distinct_literal_index_needs_no_mask():
    def permuted(x):
        y = np.zeros(3)
        y[[2, 0, 1]] = x * 3.0
        return np.sum(y * np.array([1.0, 2.0, 3.0]))

    df = check_grad(permuted, (rng.normal(size=3),), jit=False)
    assert "last_writes" not in df.source


def test_two_index_arrays_that_may_repeat_are_refused():
    def pairs(x, rows, cols):
        y = np.zeros((3, 3))
        y[rows, cols] = x
        return np.sum(y)

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="several index arrays"):
        s2sad.grad(pairs, jit=False)(np.ones(2), np.array([0, 0]), np.array([1, 1]))


# ---- np.clip with a lower bound above the upper one ---------------------------------
# np.clip is np.minimum(np.maximum(a, a_min), a_max): where a_min > a_max
# every element is a_max, and only a_max has a gradient there.

def clipped_energy(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2 * np.arange(1.0, 7.0))


_X6 = rng.normal(size=6)


@pytest.mark.parametrize("args", [
    (_X6, -0.3, 0.4),
    (_X6, 0.4, -0.3),
    (_X6, _X6 + np.array([-0.5, 0.5, -0.5, 0.5, 0.1, -0.1]),
     _X6 + np.array([0.5, -0.5, 0.2, 0.3, -0.6, 0.4])),
], ids=["ordered", "inverted", "elementwise-mixed"])
@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_clip_with_inverted_bounds(args, wrt, jit):
    check_grad(clipped_energy, args, wrt=wrt, jit=jit)
    check_jvp(clipped_energy, args, wrt=wrt, jit=jit)


# ---- unpacking into subscripts (the swap idiom) --------------------------------------
# Python evaluates every value first, then assigns the targets from left to right.

def swap_entries(x, i, j):
    x[i], x[j] = x[j], x[i] * 2.0
    return np.sum(x * np.arange(1.0, 5.0))


def swap_halves(x):
    x[:2], x[2:4] = x[2:4], x[:2] ** 2
    return np.sum(x * np.arange(1.0, 5.0))


def pair_of_rows(a):
    return np.sin(a), a * a


def rows_from_a_helper(x):
    y = np.zeros((2, 3))
    y[0], y[1] = pair_of_rows(x)
    return np.sum(y * np.arange(6.0).reshape(2, 3))


def name_and_slot(x):
    y = np.ones(3)
    scale, y[1] = x[0] * 2.0, x[1] ** 3
    return scale * np.sum(y)


@pytest.mark.parametrize("fn, args", [
    (swap_entries, (rng.normal(size=4), 1, 3)),
    (swap_entries, (rng.normal(size=4), 2, 2)),
    (swap_halves, (rng.normal(size=4),)),
    (rows_from_a_helper, (rng.normal(size=3),)),
    (name_and_slot, (rng.normal(size=2),)),
], ids=["swap", "swap-same-slot", "halves", "helper-tuple", "name-and-slot"])
def test_unpacking_into_subscripts(fn, args, jit):
    check_grad(fn, args, jit=jit)


def test_unpacking_into_overlapping_views_is_refused():
    def overlapping(x):
        x[0:2], x[1:3] = x[1:3], x[0:2]  # the second value is a view the first write changes
        return np.sum(x)

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="two names of its memory"):
        s2sad.grad(overlapping, jit=False)(np.arange(4.0))


# ---- Python's sum of a 1-d array -----------------------------------------------------

def builtin_sum_of_squares(x):
    return sum(x ** 2) + sum([x[0], x[1]])


def builtin_sum_of_products(x, scale):
    return sum(np.sin(x[1:]) * x[:-1]) * scale


@pytest.mark.parametrize("fn, args, wrt", [
    (builtin_sum_of_squares, (rng.normal(size=4),), 0),
    (builtin_sum_of_products, (rng.normal(size=5), 0.7), (0, 1)),
], ids=["squares", "products"])
def test_builtin_sum_of_a_vector(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)
    check_jvp(fn, args, wrt=wrt, jit=jit)


def _rows_added(x):
    return np.sum(sum(x) ** 2)  # Python's sum of a matrix adds its rows


def test_builtin_sum_of_a_matrix_adds_rows(jit):
    check_grad(_rows_added, (rng.normal(size=(2, 3)),), jit=jit)


# ---- loops over a container argument (unrolled: its structure is known) --------------

def weighted_entries(params):
    total = 0.0
    for i, (name, value) in enumerate(params.items()):
        total = total + np.sum(np.sin(value)) * (i + 1.0)
    for name in sorted(params):
        total = total + np.sum(np.cos(params[name]))
    for value in params.values():
        total = total + np.sum(value ** 2)
    return total


def layers_forward(layers, x):
    h = x
    for layer in layers:
        h = np.tanh(np.dot(layer["W"], h) + layer["b"])
    return np.sum(h)


def sum_of_tuple_entries(t):
    s = 0.0
    for k, v in enumerate(t):
        s = s + k * np.sum(v ** 2)
    return s


_PARAMS = {"w": rng.normal(size=3), "a": 0.4, "m": rng.normal(size=(2, 2))}
_LAYERS = [{"W": rng.normal(size=(3, 2)), "b": rng.normal(size=3)},
           {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)}]


def _leaves_close(got, expected_fn, args, wrt):
    """Each leaf's gradient against finite differences of that leaf."""
    container = args[wrt]
    keys = range(len(container)) if isinstance(container, (list, tuple)) else container.keys()
    for key in keys:
        def of_leaf(v, key=key):
            c = list(container) if isinstance(container, (list, tuple)) else dict(container)
            c[key] = v
            new = list(args)
            new[wrt] = type(container)(c) if isinstance(container, tuple) else c
            return expected_fn(*new)
        leaf = container[key]
        if isinstance(leaf, dict):
            for sub in leaf:
                def of_sub(v, key=key, sub=sub):
                    return of_leaf({**container[key], sub: v})
                np.testing.assert_allclose(got[key][sub], numerical_grad(of_sub, (leaf[sub],), 0),
                                           rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_allclose(got[key], numerical_grad(of_leaf, (leaf,), 0),
                                       rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, args", [
    (weighted_entries, (_PARAMS,)),
    (layers_forward, (_LAYERS, rng.normal(size=2))),
    (sum_of_tuple_entries, ((rng.normal(size=2), rng.normal(size=3), 0.5),)),
], ids=["dict-items-sorted-values", "list-of-layers", "tuple-enumerate"])
def test_loop_over_container_argument(fn, args, jit):
    got = s2sad.grad(fn, jit=jit)(*args)
    _leaves_close(got, fn, args, 0)


def test_loop_over_dict_order_is_the_dicts():
    def first_entry_doubled(d):
        total = 0.0
        for i, v in enumerate(d.values()):
            total = total + v * (2.0 if i == 0 else 1.0)
        return total

    df = s2sad.grad(first_entry_doubled, jit=False)
    assert df({"a": 1.0, "b": 1.0}) == {"a": 2.0, "b": 1.0}
    assert df({"b": 1.0, "a": 1.0}) == {"b": 2.0, "a": 1.0}


def _breaks(d):
    total = 0.0
    for v in d.values():
        if v > 1.0:
            break
        total = total + v
    return total


def _rebinds(d):
    total = 0.0
    for v in d.values():
        v = v * 2.0
        total = total + v
    return total


def _read_after(d):
    total = 0.0
    for v in d.values():
        total = total + v
    return total * v


@pytest.mark.parametrize("fn", [_rebinds, _read_after])
def test_loop_names_assigned_as_python_does(fn, jit):
    """A loop's names bound again in its body, or read after it (the last
    entry's), as Python binds them (they were refused)."""
    check_tree_grad(fn, ({"a": 0.5, "b": 0.25},), jit=jit)


@pytest.mark.parametrize("fn, match", [
    (_breaks, "break, continue or else"),
])
def test_loop_over_container_refusals(fn, match):
    with pytest.raises(s2sad.S2sadError, match=match):
        s2sad.grad(fn, jit=False)({"a": 0.5, "b": 0.25})


# ---- what a container argument's structure answers ------------------------------------

def scaled_or_default(d, x):
    return d.get("scale", x) ** 2 * d.get("missing", 3.0) + x * d["bias"]


def checks_its_type(p):
    assert isinstance(p, dict) and not isinstance(p, (list, tuple))
    return p["a"] * 2.0


def namedtuple_is_a_tuple(t):
    assert isinstance(t, tuple)
    return np.sum(t[0] ** 2)


@pytest.mark.parametrize("args, wrt", [
    (({"scale": 0.7, "bias": 0.2}, 1.3), (0, 1)),
    (({"bias": 0.2}, 1.3), (0, 1)),
], ids=["key-present", "key-absent"])
def test_dict_get_with_a_constant_key(args, wrt, jit):
    got = s2sad.grad(scaled_or_default, wrt=wrt, jit=jit)(*args)
    d, x = args
    for key in d:
        def of_entry(v, key=key):
            return scaled_or_default({**d, key: v}, x)
        np.testing.assert_allclose(got[0][key], numerical_grad(of_entry, (d[key],), 0), rtol=1e-6)
    np.testing.assert_allclose(got[1], numerical_grad(scaled_or_default, args, 1), rtol=1e-6)


def test_isinstance_of_a_container_argument(jit):
    assert s2sad.grad(checks_its_type, jit=jit)({"a": 1.0}) == {"a": 2.0}
    from collections import namedtuple
    Pair = namedtuple("Pair", "u v")
    got = s2sad.grad(namedtuple_is_a_tuple, jit=jit)(Pair(np.arange(2.0), 1.0))
    np.testing.assert_allclose(got.u, [0.0, 2.0])


# ---- min and max of more than two numbers ----------------------------------------------
# min(a, b, c) is min(min(a, b), c): the first of equal values, as Python's.

def three_way_extremes(x):
    return max(x[0], x[1], x[2] * 2.0) + min(x[1], x[2], 0.5, x[0] ** 2)


@pytest.mark.parametrize("x", [np.array([0.3, -0.2, 0.9]), np.array([1.5, 0.7, 0.1]),
                               np.array([0.2, -0.4, 0.6])], ids=["a", "b", "c"])
def test_min_and_max_of_several_numbers(x, jit):
    check_grad(three_way_extremes, (x,), jit=jit)


def test_max_of_equal_numbers_takes_the_first():
    def first_of_ties(a, b, c):
        return max(a, b, c)

    assert s2sad.grad(first_of_ties, wrt=(0, 1, 2), jit=False)(1.0, 1.0, 1.0) == (1.0, 0.0, 0.0)


# ---- a boolean mask written inside the index ------------------------------------------
# x[x > 0] indexes with booleans, which carry no gradient: not a refusal.
# (numba has no scatter of a boolean mask's cotangent: compiled, it runs as Python.)

def positive_part(x):
    return x[x > 0] * 2.0


def inside_band(x):
    return np.sum(x[(x > -1.0) & (x < 1.0)] ** 2) + np.sum(x[~(x > 0)])


@pytest.mark.parametrize("fn", [positive_part, inside_band])
@pytest.mark.filterwarnings("ignore::s2sad.NumbaFallbackWarning")
def test_mask_written_in_the_index(fn, jit):
    check_grad(fn, (np.array([0.5, -0.3, 1.2, -2.0, 0.1]),), jit=jit)


# ---- code written for several numpy versions ------------------------------------------
# hasattr(np, "name") is decided when the derivative is generated: the branch
# naming a function this numpy lacks is never looked at.

def version_portable(x):
    if hasattr(np, "a_function_numpy_does_not_have"):
        y = np.a_function_numpy_does_not_have(x)
    else:
        y = np.sin(x) * x
    return np.sum(y) if hasattr(np, "sum") else 0.0


def test_hasattr_of_numpy_is_decided(jit):
    check_grad(version_portable, (rng.normal(size=3),), jit=jit)


# ---- an index array followed by a partial slice, and integer casts as indices --------

def rows_then_columns(w, rows):
    return np.sum(w[rows, :-1] ** 2) + np.sum(w[rows, 1:3] * w[0, 1:3])


def rows_from_a_cast(w):
    rows = np.int64(w[:, -1])  # the last column holds row numbers
    return np.sum(w[rows, :-1] ** 2)


_W = np.concatenate((rng.normal(size=(4, 3)), np.array([[2.2], [0.4], [1.7], [3.4]])), axis=1)


def test_index_array_then_partial_slice(jit):
    check_grad(rows_then_columns, (_W, np.array([2, 0, 2])), jit=jit)


@pytest.mark.filterwarnings("ignore::s2sad.NumbaFallbackWarning")  # numba: no np.int64(array)
def test_integer_cast_as_index(jit):
    got = s2sad.grad(rows_from_a_cast, jit=jit)(_W)
    expected = np.zeros_like(_W)  # the cast column is piecewise constant: no gradient
    for r in np.int64(_W[:, -1]):
        expected[r, :-1] += 2.0 * _W[r, :-1]
    np.testing.assert_allclose(got, expected)
