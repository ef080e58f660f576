"""Lists, tuples and comprehensions inside differentiated functions,
against finite differences (tests/gradcheck.py), reverse and forward mode,
compiled and not."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

X = np.array([0.7, -1.2, 0.4, 2.0])
M = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [0.2, 0.9, 1.1]])


def helper(u):
    return np.sin(u) * u


# ---- literals ------------------------------------------------------------------

def list_literal_read(a):
    v = [1.0, a, 3.0]
    return v[1] * v[1] + v[-1] * a


def tuple_runtime_index(a, b, c, i):
    v = (a, b * b, c)
    return v[i] * a


def list_literal_written(a):
    v = [a, 2.0 * a, 0.0]
    v[2] = v[0] * v[1]
    v[0] += 1.0
    return v[0] * v[2]


def np_sum_mixed_ints(a):
    return np.sum([1, a * a, 2]) * a


def literal_unpacked_and_returned(a, b):
    pair = (a * b, np.sin(a))
    p, q = pair
    return np.sum(np.array(pair)) + p * q


def literal_of_arrays(x):
    parts = [x, 2.0 * x, np.cos(x)]
    return np.sum(np.stack(parts) ** 2) + np.sum(parts[2] * parts[0])


def literal_in_loop(x):
    s = 0.0
    for i in range(3):
        w = [x[i], x[i + 1]]
        s += w[0] * w[1] + len(w)
    return s


def builtin_sum_of_literal(a, b):
    return sum([a, a * b, 1]) * b


def builtin_sum_of_arrays(x):
    return np.sum(sum([x, x * x, np.sin(x)]))


@pytest.mark.parametrize("f, args, wrt", [
    (list_literal_read, (1.3,), 0),
    (tuple_runtime_index, (1.3, 0.6, -0.4, 1), (0, 1, 2)),
    (list_literal_written, (1.3,), 0),
    (np_sum_mixed_ints, (0.8,), 0),
    (literal_unpacked_and_returned, (0.8, 1.7), (0, 1)),
    (literal_of_arrays, (X,), 0),
    (literal_in_loop, (X,), 0),
    (builtin_sum_of_literal, (0.8, 1.7), (0, 1)),
    (builtin_sum_of_arrays, (X,), 0),
])
def test_literals(f, args, wrt, jit):
    check_grad(f, args, wrt=wrt, jit=jit)
    check_jvp(f, args, wrt=wrt, jit=jit)


# ---- comprehensions ---------------------------------------------------------------

def array_of_comprehension(x):
    return np.sum(np.array([helper(x[i]) for i in range(len(x))]) ** 2)


def sum_of_generator(x, n):
    return sum(x[i] ** 2 * x[i + 1] for i in range(n))


def stack_of_comprehension(x):
    return np.sum(np.stack([x * k for k in range(3)]) * np.cos(x))


def comprehension_named_then_indexed(x):
    vals = [x[i] * x[i] for i in range(1, 4)]
    return vals[0] * vals[2] + np.sum(np.array(vals)) + len(vals)


def comprehension_variable_does_not_leak(x):
    i = 2
    s = np.sum(np.array([x[i] for i in range(3)]))
    return s * x[i]


def sum_with_condition_and_two_fors(M):
    return sum(M[i, j] * M[j, i] for i in range(3) for j in range(3) if i != j)


def comprehension_over_array_rows(M):
    return np.sum(np.array([np.dot(row, row) for row in M]))


def comprehension_enumerate_zip(x, y):
    a = np.array([k * u for k, u in enumerate(x)])
    b = np.array([u * v for u, v in zip(x, y)])
    return np.sum(a * b)


def nested_comprehension(M):
    return np.sum(np.array([[M[i, j] * M[j, i] for j in range(3)] for i in range(3)]))


def max_of_comprehension(x):
    return max([x[i] * x[i] for i in range(4)]) + min(x[i] for i in range(4))


def comprehension_in_loop(x, n):
    s = 0.0
    for t in range(n):
        s += np.sum(np.array([np.sin(x[i] * t) for i in range(len(x))]))
    return s


def sum_of_array_generator(M):
    return np.sum(sum(M[i] * M[i] for i in range(3)))


@pytest.mark.parametrize("f, args, wrt", [
    (array_of_comprehension, (X,), 0),
    (sum_of_generator, (X, 3), 0),
    (stack_of_comprehension, (X,), 0),
    (comprehension_named_then_indexed, (X,), 0),
    (comprehension_variable_does_not_leak, (X,), 0),
    (sum_with_condition_and_two_fors, (M,), 0),
    (comprehension_over_array_rows, (M,), 0),
    (comprehension_enumerate_zip, (X, X[::-1].copy()), (0, 1)),
    (nested_comprehension, (M,), 0),
    (max_of_comprehension, (X,), 0),
    (comprehension_in_loop, (X, 3), 0),
])
def test_comprehensions(f, args, wrt, jit):
    check_grad(f, args, wrt=wrt, jit=jit)
    check_jvp(f, args, wrt=wrt, jit=jit)


def test_sum_of_array_generator_runs_as_python_when_compiled(jit):
    # the total starts as Python's 0 and becomes an array: numba cannot type it
    if jit:
        with pytest.warns(s2sad.NumbaFallbackWarning):
            check_grad(sum_of_array_generator, (M,), jit=True)
    else:
        check_grad(sum_of_array_generator, (M,), jit=False)


def test_second_order_through_comprehension():
    h = s2sad.hessian(array_of_comprehension)(X)
    eps = 1e-5
    g = s2sad.grad(array_of_comprehension)
    num = np.array([(g(X + eps * e) - g(X - eps * e)) / (2 * eps) for e in np.eye(len(X))])
    np.testing.assert_allclose(h, num, rtol=1e-5, atol=1e-6)


def test_comprehension_source_reads_as_a_loop():
    src = s2sad.grad(array_of_comprehension).source
    assert "empty_stack(" in src and "for k in range(1, n_vals)" in src


# ---- refusals -------------------------------------------------------------------

def list_concatenated(x):
    a = [x[i] for i in range(2)]
    b = a + a
    return np.sum(np.array(b))


def comprehension_with_if(x):
    return np.sum(np.array([x[i] for i in range(4) if x[i] > 0]))


def list_appended(x):
    a = [x[i] for i in range(2)]
    a.append(x[3])
    return np.sum(np.array(a))


def generator_to_numpy(x):
    return np.sum(np.array(x[i] for i in range(2)))


def comprehension_under_condition(x):
    return x[0] if x[0] > 0 else np.sum(np.array([x[i] for i in range(3)]))


def literal_aliased_and_written(a):
    v = [a, 2.0]
    w = v
    w[0] = 5.0
    return v[0] * a


def empty_comprehension(x, n):
    return np.sum(np.array([x[i] for i in range(n)]))


@pytest.mark.parametrize("f, message", [
    (list_concatenated, "concatenation"),
    (list_appended, ".append"),
    (generator_to_numpy, "generator expression"),
    (comprehension_under_condition, "under a condition"),
    (literal_aliased_and_written, "'w' is another name for 'v'"),
])
def test_refused_with_the_line(f, message):
    with pytest.raises((SyntaxError, LookupError, TypeError)) as info:
        s2sad.grad(f)(X if f is not literal_aliased_and_written else 1.5)
    assert message in str(info.value) and "test_containers.py" in str(info.value)


def test_comprehension_with_if_is_the_list_python_grows(jit):
    """(It was refused; frontend/containers/comprehensions.py, filtered.)"""
    check_grad(comprehension_with_if, [X], jit=jit)


def test_empty_comprehension_raises(jit):
    with pytest.raises(ValueError, match="at least one element"):
        s2sad.grad(empty_comprehension, jit=jit)(X, 0)


def helper_with_comprehensions(x):
    return sum(x[i] * x[i] for i in range(len(x))) + np.sum(np.array([x[i] ** 3 for i in range(2)]))


def calls_helper_with_comprehensions(x):
    return helper_with_comprehensions(x) * 2.0 + helper_with_comprehensions(x * x)


def test_comprehensions_in_a_helper_compile(jit):
    # the helper's copy in the forward sweep has its comprehensions lowered too
    check_grad(calls_helper_with_comprehensions, (X,), jit=jit)
    check_jvp(calls_helper_with_comprehensions, (X,), jit=jit)


# ---- variables holding several results -------------------------------------------

def two_results(x):
    return x * 2.0, np.sin(x)


def helper_result_indexed(x):
    return np.sum(two_results(x)[1] * x)


def helper_result_held(x):
    r = two_results(x)
    q = r
    a, b = q
    return np.sum(r[0] * r[-1]) + np.sum(a * b)


def primitive_result_indexed(A):
    return np.linalg.slogdet(A)[1] + np.linalg.slogdet(A @ A)[1] * 0.5


def result_held_in_loop(x):
    s = 0.0
    for i in range(3):
        r = two_results(x * i)
        s += np.sum(r[0] * r[1])
    return s


def weights_and_bias(t, u):
    w, b = t
    return np.sum(np.sin(w * u)) * b + b


def mixed_list_passed_to_a_helper(x, y):
    # a list of an array and a number is a tuple to the kinds: it was kept
    # whole as `p_0, p_1 = [sin, total]` and refused
    prm = [np.sin(y), y[1] + x[0]]
    return weights_and_bias(prm, np.cumsum(y))


def mixed_list_item_replaced(x, y):
    prm = [np.sin(y), y[1] + x[0]]
    prm[1] = prm[1] * x[2]  # (a part rebound; it was refused)
    for k in range(2):
        prm[0] = prm[0] * prm[1]
    return weights_and_bias(prm, np.cumsum(y))


def mixed_list_indexed(x):
    prm = [x * 2.0, np.sum(x)]
    return np.sum(prm[0] * prm[1]) + prm[-1]


@pytest.mark.parametrize("f, args", [
    (helper_result_indexed, (X,)), (helper_result_held, (X,)),
    (mixed_list_passed_to_a_helper, (X, X[::-1] * 0.7)), (mixed_list_indexed, (X,)),
    (mixed_list_item_replaced, (X, X[::-1] * 0.7)),
    (primitive_result_indexed, (M @ M.T + 3.0 * np.eye(3),)), (result_held_in_loop, (X,)),
])
def test_tuple_results_held_in_a_variable(f, args, jit):
    check_grad(f, args, jit=jit)
    check_jvp(f, args, jit=jit)


def mlp_of(params, x):
    W1, b1, W2, b2 = params
    h = np.tanh(x @ W1 + b1)
    return np.sum((h @ W2 + b2) ** 2)


def parameters_in_a_list(W1, b1, W2, b2, x):
    return mlp_of([W1, b1, W2 * 1.0, b2], x)


def test_a_helper_given_a_list_of_arrays_of_different_kinds_compiles(jit):
    # (its vjp added into zeros_like(params), a list numba cannot type: the
    # derivative ran as Python; now one adjoint per item, emit/tuple_adjoints.py)
    r = np.random.default_rng(3)
    args = (r.normal(size=(3, 4)), r.normal(size=4), r.normal(size=(4, 2)), r.normal(size=2),
            r.normal(size=(5, 3)))
    check_grad(parameters_in_a_list, args, wrt=(0, 1, 2, 3), jit=jit)
    source = s2sad.grad(parameters_in_a_list, wrt=(0, 1, 2, 3), jit=False).source_for(*args)
    assert "zeros_like(params)" not in source and "dparams_0 += dW1" in source


# ---- lists built by appending ---------------------------------------------------------

def appended_in_loop(x):
    out = []
    for i in range(len(x)):
        y = x[i] * 2.0
        out.append(np.sin(y) * x[0])
        y = y + 1.0
    return np.sum(np.array(out) ** 2) + out[1] * y


def appended_rows(M):
    rows = []
    for row in M:
        rows.append(row * np.sum(row))
    return np.sum(np.stack(rows) ** 2)


def appended_with_enumerate(x):
    acc = []
    for k, u in enumerate(x):
        acc.append(u * k)
    return sum(acc) * x[0]


@pytest.mark.parametrize("f, args", [(appended_in_loop, (X,)), (appended_rows, (M,)),
                                     (appended_with_enumerate, (X,))])
def test_list_appended_in_a_loop(f, args, jit):
    check_grad(f, args, jit=jit)
    check_jvp(f, args, jit=jit)


def appended_under_condition(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0:
            out.append(x[i])
    return np.sum(np.array(out))


def appended_in_while(x):
    out = []
    i = 0
    while i < 3:
        out.append(x[i] * x[i])
        i += 1
    return out[0] + out[2]


@pytest.mark.parametrize("f", [appended_under_condition, appended_in_while])
def test_other_appends_of_differentiated_values(f, jit):
    # (these once gave a zero gradient without an error, then were refused:
    # a list grown anywhere is a stack read by index, np.array of it too,
    # with a list of adjoints mirroring it: reverse/user_stacks.py)
    check_grad(f, (X,), jit=jit)
    check_jvp(f, (X,), jit=jit)


def tuple_variable_returned_inside_a_tuple(x):
    r = (x ** 2, x)
    return x * 2.0, r


def test_a_tuple_variable_in_a_returned_tuple_is_refused_not_dropped():
    # it was split into its elements and the nested output lost its gradient
    with pytest.raises(SyntaxError, match="tuple or list"):
        s2sad.grad(tuple_variable_returned_inside_a_tuple)(3.0)


# ---- results of unknown arity subscripted (np.split into n parts) ----------------

def split_literal_count(x):
    return np.sum(np.split(x, 2)[1] ** 2) + np.sum(np.array_split(x, 3)[0] * x[:2])


def split_counted_by_variable(x):
    n = 3
    parts = np.split(x, n)
    return np.sum(parts[0] * parts[2]) + np.sum(np.sin(parts[1]))


@pytest.mark.parametrize("fn", [split_literal_count, split_counted_by_variable])
def test_split_parts_subscripted(fn, jit):
    import warnings
    with warnings.catch_warnings():
        # a count held in a variable is only known at run time: the list of
        # parts may run uncompiled
        warnings.simplefilter("ignore", s2sad.NumbaFallbackWarning)
        check_grad(fn, (np.linspace(-1.0, 2.0, 6),), jit=jit)


# ---- for loops over enumerate, zip, reversed and unpacked rows -----------------------

def loops_over_iterators(x, P):
    s = 0.0
    for i, a in enumerate(x, 1):
        s += i * a ** 2
    for a, b, j in zip(x, x[::-1], range(2, 10)):
        s += a * b * j
    for k in reversed(range(1, x.shape[0])):
        s = s * 0.9 + x[k] * k
    for a in reversed(x):
        s = s * 0.5 + np.sin(a)
    for u, v in P:
        if u > 1.5:
            break
        s += u * v
    for n, (u, v) in enumerate(zip(P[:, 0], P[:, 1]), start=2):
        s += n * u * np.cos(v)
    return s


def test_for_loops_over_iterators(jit):
    P = np.array([[0.3, 1.0], [0.7, -0.4], [2.0, 1.0], [0.1, 0.2]])
    for wrt in (0, 1):
        check_grad(loops_over_iterators, (X, P), wrt=wrt, jit=jit)
        check_jvp(loops_over_iterators, (X, P), wrt=wrt, jit=jit)


def unpack_matrix_rows(Q):
    s = 0.0
    for top, bottom in Q:  # each Q[k] is 2 x 3: two rows
        s += np.sum(top * np.sin(bottom))
    first, second = Q[0]
    return s + np.sum(first ** 2) * np.sum(second)


def test_unpacking_rows_of_arrays(jit):
    Q = np.linspace(-1.0, 1.5, 18).reshape(3, 2, 3)
    check_grad(unpack_matrix_rows, (Q,), jit=jit)
    check_jvp(unpack_matrix_rows, (Q,), jit=jit)


def iterate_over_calls(A):
    s = np.sum([a if a > 0 else -a for a in A.ravel()])
    for w, row in zip(np.linspace(0.5, 1.0, A.shape[0]), A * A):
        s += w * np.sum(row)
    return s


def test_iterating_over_a_call_evaluates_it_once(jit):
    A = np.array([[0.5, -1.2, 0.8], [1.4, 0.3, -0.6]])
    check_grad(iterate_over_calls, (A,), jit=jit)
    check_jvp(iterate_over_calls, (A,), jit=jit)


# ---- dicts bound once with constant string keys (transforms/frontend/containers/dicts.py) ----------------

def dict_of_parameters(A, b):
    p = {"w": A[0], "b": b, "scale": 2.0}
    p["w"] = p["w"] * p["scale"]
    q = dict(u=A[1], v=b * b)
    return np.sum(p["w"] * p["b"]) + np.sum(q["u"] * np.sin(q["v"]))


def dict_given_a_new_key(A, b):
    # the key is assigned before anything reads it: created with the dict
    p = {"w": A[0]}
    p["new"] = b
    return np.sum(p["w"] * p["new"])


def dict_given_a_new_key_in_a_branch(A, b):
    p = {"w": A[0]}
    if A[0, 0] > 0:
        p["new"] = b
    return np.sum(p["w"] * p["new"])


def dict_passed_on(A, b):
    p = {"w": A[0] * b}
    return sum_of_w(p)


def sum_of_w(d):
    return np.sum(d["w"])


@pytest.mark.parametrize("fn", [dict_of_parameters, dict_passed_on, dict_given_a_new_key])
def test_dict_literal_is_one_variable_per_key(fn, jit):
    """Also passed whole to a helper: its copy takes one parameter per key."""
    A, b = M[:2], np.array([0.3, 0.7, 1.1])
    for wrt in (0, 1):
        check_grad(fn, (A, b), wrt=wrt, jit=jit)
        check_jvp(fn, (A, b), wrt=wrt, jit=jit)


@pytest.mark.parametrize("fn", [dict_given_a_new_key_in_a_branch])
def test_other_dicts_are_refused(fn, jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="dict"):
        s2sad.grad(fn, jit=jit)(M[:2], np.ones(3))
