"""Everyday Python forms s2sad once refused (issue 45), each checked
against finite differences of the function as Python runs it, compiled and
not, and in forward mode and as a Hessian where those apply; and the forms
that stay refused, each naming the user's file, line and construct."""
import os

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, hessian_by_differences

X = np.array([0.35, -0.6, 0.2, 0.45])
FULL = os.environ.get("S2SAD_FULL") == "1"


def compiled_sample(f, jit):
    """Compiling costs seconds per derivative: one or two functions per form
    compiled by default, all with S2SAD_FULL=1."""
    if jit and not FULL and f.__name__ not in JIT_SAMPLE:
        pytest.skip("compiled for a sample of the forms (S2SAD_FULL=1 for all)")


JIT_SAMPLE = {"stack_while", "stack_of_arrays", "walrus_while", "deleted_local",
              "star_first_rest", "star_in_array", "sorted_array", "c_of_matrix_and_vector",
              "dict_comp_items", "local_list_of_lists_written", "local_dict_helper_with_result"}


def check_hessian(f, x, jit=False):
    np.testing.assert_allclose(s2sad.hessian(f, jit=jit)(x.copy()),
                               hessian_by_differences(f, x), rtol=1e-3, atol=1e-4)


# ---- a user's list used as an unbalanced stack ------------------------------
# (an element never popped lies below every popped one: its adjoint is zero)

def stack_for(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * x[i])
    s = out.pop() * 2.0
    return s + np.sin(out.pop())


def stack_while(x):
    out = []
    i = 0
    while i < x.shape[0]:
        out.append(x[i] * x[i])
        i += 1
    return out.pop() * 2.0


def stack_interleaved(x):
    # pushes and pops interleaved, two elements left on the stack
    st = []
    s = 0.0
    for i in range(x.shape[0]):
        st.append(np.sin(x[i]))
        if i % 2 == 1:
            s = s + st.pop() * x[i]
    return s


def stack_of_arrays(x):
    st = []
    k = 0
    while k < 3:
        st.append(x[1:] * x[k])
        k += 1
    a = st.pop()
    return np.sum(a * a)


def stack_for_else_unbalanced(x):
    # popped in a while loop, fewer times than pushed
    st = []
    for i in range(x.shape[0]):
        st.append(x[i] * 3.0)
    s = 0.0
    while len(st) > 2:
        s = s + np.cos(st.pop())
    return s


STACKS = [stack_for, stack_while, stack_interleaved, stack_of_arrays,
          stack_for_else_unbalanced]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", STACKS, ids=lambda f: f.__name__)
def test_unbalanced_stack(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", STACKS, ids=lambda f: f.__name__)
def test_unbalanced_stack_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


# ---- :=, del, global, nonlocal, try ... finally -----------------------------

SCALE = 1.5


def walrus_if(x):
    if (y := np.sum(x * x) * 2.0) > 0.1:
        return y * y
    return y


def walrus_while(x):
    s = 0.0
    k = 0
    while (t := x[k] * 0.5 + s) < 0.6 and k < 3:
        s = s + np.sin(t)
        k += 1
    return s * t


def walrus_in_expression(x):
    z = (u := x * 2.0) + np.cos(u) * (v := np.sum(u))
    return np.sum(z) * v


def deleted_local(x):
    s = 0.0
    for i in range(x.shape[0]):
        t = np.sin(x[i])
        s = s + t * x[i]
        del t
    u = x * s
    del s
    return np.sum(u * u)


def global_read(x):
    global SCALE
    return np.sum(np.sin(x) * SCALE)


def make_nonlocal_reader(w):
    def f(x):
        nonlocal w
        return np.sum(np.tanh(x * w))
    return f


nonlocal_read = make_nonlocal_reader(1.7)


def try_finally(x):
    try:
        y = np.sum(x ** 3)
    finally:
        z = y * 2.0
    return z + y


def annotated(x: np.ndarray) -> float:
    total: float = 0.0
    scale: float  # (a declaration: binds nothing)
    for k in range(x.shape[0]):
        term: float = x[k] ** 2 * (k + 1)
        total += term
    return total


def quiet_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sum(np.where(x > 0.5, np.log(x), x ** 2))
    with np.errstate(all="warn"):
        r = r + np.sum(1.0 / x)
    return r


FORMS = [walrus_if, walrus_while, walrus_in_expression, deleted_local, global_read,
         nonlocal_read, try_finally, annotated, quiet_errstate]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_statement_forms(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_statement_forms_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


def walrus_after_or(x):
    s = np.sum(x)
    if s > 0.0 or (t := s * 2.0) > 1.0:
        return s
    return t


def walrus_read_before(x):
    y = np.sum(x)
    z = y + (y := y * 2.0)
    return z


def del_then_read(x):
    t = x * 2.0
    del t
    return np.sum(t)


def del_in_loop_read_next(x):
    s = 0.0
    t = x[0]
    for i in range(3):
        s = s + t
        del t
    return s


def del_element(x):
    v = [x[0], x[1]]
    del v[0]
    return v[0]


def global_written(x):
    global SCALE
    SCALE = 2.0
    return np.sum(x) * SCALE


def try_except(x):
    try:
        y = np.sum(np.log(x))
    except ValueError:
        y = 0.0
    return y


def try_finally_return(x):
    try:
        return np.sum(x)
    finally:
        pass


def raising_errstate(x):
    with np.errstate(divide="raise"):
        r = np.sum(1.0 / x)
    return r


@pytest.mark.parametrize("f, construct", [
    (walrus_after_or, "the := operator where Python may not evaluate it"),
    (walrus_read_before, "reads before it"),
    (del_then_read, "del t followed by a read"),
    (del_in_loop_read_next, "del t followed by a read"),
    (del_element, "del of an element"),
    (global_written, "assigning the global variable 'SCALE'"),
    (try_except, "try ... except"),
    (try_finally_return, "return inside try ... finally"),
    (raising_errstate, "a with block"),  # (numpy raises there, compiled code cannot)
], ids=lambda p: getattr(p, "__name__", ""))
def test_refused_with_the_line(f, construct):
    from s2sad.transforms.errors import UnsupportedSyntaxError
    import inspect
    lines, first = inspect.getsourcelines(f)
    with pytest.raises(UnsupportedSyntaxError) as err:
        s2sad.grad(f, jit=False)(X.copy())
    msg = str(err.value)
    assert construct in msg
    line = int(msg.split(":")[1].split(",")[0])
    assert __file__ in msg and first < line < first + len(lines), msg


# ---- star-unpacking ---------------------------------------------------------

def three(a, b, c):
    return a * b + np.sin(c)


def two_results(x):
    return x[0] * x[1], np.cos(x[2]), x[3] * 2.0


def star_first_rest(x):
    a, *rest = x
    return a * np.sum(rest) + rest[1] * rest[-1]


def star_middle(x):
    a, *mid, b = x * 2.0
    return a * b + np.sum(np.array(mid) ** 2)


def star_of_literal(x):
    a, *rest, b = (x[0], x[1] * 2.0, np.sin(x[2]), x[3])
    return a * rest[0] + rest[1] * b + len(rest)


def star_of_bound_list(x):
    parts = [x[0] * x[1], x[2], x[3] + 1.0]
    first, *others = parts
    return first * others[0] * others[1]


def star_call(x):
    args = (x[0], x[1] * x[3], x[2])
    return three(*args) + three(*(x[3], x[2], x[1]))


def star_call_partly(x):
    tail = [x[2], x[3]]
    return three(x[0], *tail)


def star_display_of_literal(x):
    xs = [x[0], x[1] * 2.0]
    ys = (*xs, x[2], *xs)
    return np.sum(np.array(ys) ** 2) * ys[1]


def star_in_array(x):
    y = x[0] * x[1]
    v = np.array([y, *x, y * y, *x[1:]])
    return np.sum(v ** 2 * v[0])


def star_of_results(x):
    first, *others = two_results(x)
    return first * others[0] + others[1]


STARS = [star_first_rest, star_middle, star_of_literal, star_of_bound_list, star_call,
         star_call_partly, star_display_of_literal, star_in_array, star_of_results]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", STARS, ids=lambda f: f.__name__)
def test_star_unpacking(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", STARS, ids=lambda f: f.__name__)
def test_star_unpacking_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


def star_too_few(x):
    a, b, *rest = x[:1]
    return a * b


@pytest.mark.parametrize("jit", [False, True])
def test_star_unpacking_too_few_raises_as_python(jit):
    with pytest.raises(ValueError, match="not enough values to unpack"):
        star_too_few(X.copy())
    with pytest.raises(ValueError, match="not enough values to unpack"):
        s2sad.grad(star_too_few, jit=jit)(X.copy())


def star_call_of_array(x):
    return three(*x[:3])


def star_list_of_array(x):
    v = [*x, 1.0]
    return v[0] * v[-1]


def results_of_two_lengths(x):
    if x[0] > 0:
        return x[0], x[1]
    return x[0], x[1], x[2]


def star_of_results_of_two_lengths(x):
    first, *others = results_of_two_lengths(x)
    return first * others[0]


def star_literal_too_short(x):
    a, b, *c = (x[0],)
    return a


@pytest.mark.parametrize("f, construct", [
    (star_call_of_array, "star-unpacking in a call's argument of a value whose length"),
    (star_list_of_array, "star-unpacking in a list or tuple display"),
    (star_literal_too_short, "unpacking 1 values into 2 names"),
    (star_of_results_of_two_lengths, "star-unpacking of a value that may be a tuple of results"),
], ids=lambda p: getattr(p, "__name__", ""))
def test_star_refused_with_the_line(f, construct):
    test_refused_with_the_line(f, construct)


# ---- sorted() ---------------------------------------------------------------

def sorted_array(x):
    s = sorted(x * x)
    return s[0] * 2.0 + s[-1] * s[1]


def sorted_list_literal(x):
    s = sorted([x[1] * 3.0, x[0], np.sin(x[2])], reverse=True)
    return s[0] * s[1] + s[2]


def sorted_in_a_loop(x):
    t = 0.0
    for v in sorted(np.cos(x)):
        t = t * 0.5 + v * v
    return t


SORTS = [sorted_array, sorted_list_literal, sorted_in_a_loop]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", SORTS, ids=lambda f: f.__name__)
def test_sorted(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", SORTS, ids=lambda f: f.__name__)
def test_sorted_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


def sorted_rows(x):
    s = sorted(np.outer(x, x))
    return np.sum(s[0])


def test_sorted_of_a_matrix_raises_as_python():
    with pytest.raises(ValueError):
        sorted_rows(X.copy())
    with pytest.raises(ValueError, match="not 1-d"):
        s2sad.grad(sorted_rows, jit=False)(X.copy())


def sorted_joined(x):
    s = sorted(x)
    t = s + [1.0]
    return t[0]


def sorted_with_key(x):
    s = sorted(x, key=abs)
    return s[0]


def test_sorted_list_uses_and_key_refused():
    from s2sad.transforms.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match="test_more_python_forms.py"):
        s2sad.grad(sorted_joined, jit=False)(X.copy())
    with pytest.raises((UnsupportedSyntaxError, LookupError), match="test_more_python_forms.py"):
        s2sad.grad(sorted_with_key, jit=False)(X.copy())


# ---- np.c_[...] -------------------------------------------------------------

def c_of_vectors(x):
    return np.sum(np.c_[x, x ** 2, np.sin(x)] ** 2 * np.arange(3.0))


def c_of_matrix_and_vector(x):
    A = np.outer(x, x[:3])
    M = np.c_[A, np.cos(x)]
    return np.sum(M * M[:, 2:3]) + M[1, 3]


def c_of_3d(x):
    T = np.reshape(np.outer(x, x), (2, 2, 4))
    M = np.c_[T, T * 2.0]
    return np.sum(M ** 2 * np.arange(M.shape[-1]))


CS = [c_of_vectors, c_of_matrix_and_vector, c_of_3d]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", CS, ids=lambda f: f.__name__)
def test_c_(f, jit):
    compiled_sample(f, jit)
    import warnings
    with warnings.catch_warnings():
        if f is c_of_3d:  # (numba's np.column_stack takes 1-d and 2-d arrays: run as Python)
            warnings.simplefilter("ignore", s2sad.NumbaFallbackWarning)
        check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", CS, ids=lambda f: f.__name__)
def test_c_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


# ---- dict and set comprehensions --------------------------------------------

def scaled(key, x):
    return x * (2.0 if key == "b" else 0.5)


def dict_comp_items(x):
    d = {"a": x[:2], "b": np.sin(x[2:])}
    e = {k: v * x[1] for k, v in d.items()}
    return np.sum(e["a"] ** 2) + np.sum(e["b"] * e["a"])


def dict_comp_keys(x):
    f = {k: scaled(k, x) for k in ("a", "b")}
    g = {k: np.cos(v) for k, v in f.items()}
    return np.sum(g["a"] * g["b"]) + sum(g.values())[0]


def dict_comp_values(x):
    d = {"u": x[0], "v": x[1] * x[2]}
    w = {k: np.exp(d[k]) * x[3] for k in d}
    return w["u"] + w["v"] * w["u"]


DICT_COMPS = [dict_comp_items, dict_comp_keys, dict_comp_values]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", DICT_COMPS, ids=lambda f: f.__name__)
def test_dict_comprehension(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", DICT_COMPS, ids=lambda f: f.__name__)
def test_dict_comprehension_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


def dict_comp_with_if(x):
    d = {"a": x[0], "b": x[1]}
    e = {k: v for k, v in d.items() if k != "a"}
    return e["b"]


def dict_comp_of_range(x):
    e = {k: x[k] for k in range(3)}
    return e[0]


def set_comp(x):
    s = {v for v in x}
    return sum(s)


def test_comprehensions_refused_with_the_line():
    test_refused_with_the_line(dict_comp_with_if, "a dict comprehension over keys known only")
    test_refused_with_the_line(dict_comp_of_range, "a dict comprehension over keys known only")
    test_refused_with_the_line(set_comp, "a set comprehension")


# ---- lists of lists ---------------------------------------------------------

def matrix_of_scalars(x):
    a, b, c, d = x[0], x[1] * 2.0, np.sin(x[2]), x[0] * x[3]
    M = np.array([[a, b], [c, d]])
    return np.sum(M @ M) + np.linalg.det(M)


def local_list_of_lists(x):
    a, b, c, d = x[0], x[1] * 2.0, np.sin(x[2]), x[0] * x[3]
    M = [[a, b, 1.0], [c, d, a * b]]
    s = 0.0
    for row in M:
        s = s + row[0] * row[2]
    return M[0][1] * M[1][0] + M[1][1] * len(M) + s + np.sum(np.array(M) ** 2)


def local_list_of_lists_written(x):
    M = [[0.0, 0.0], [0.0, 1.0]]
    for i in range(2):
        M[i][i] = x[i] * x[i + 1]
    M[0][1] += np.cos(x[3])
    return np.sum(np.array(M) ** 3) + M[0][1] * M[1][1]


NESTED = [matrix_of_scalars, local_list_of_lists, local_list_of_lists_written]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_list_of_lists(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_list_of_lists_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


def list_of_lists_joined(x):
    M = [[x[0], x[1]], [x[2], x[3]]]
    N = M[0] + M[1]  # (concatenation: a list use, left as written and refused)
    return N[3]


def test_list_of_lists_used_as_a_list_refused():
    test_refused_with_the_line(list_of_lists_joined, "list")


# ---- a helper writing into a dict it is given -------------------------------

def set_weights(params, x):
    params["w"] = params["w"] * np.sin(x) + params["b"]


def update_and_score(params, x, rate):
    params["b"] = params["b"] - rate * x
    params["w"] = params["w"] * params["b"]
    return np.sum(params["w"])


def local_dict_written_by_helper(x):
    p = {"w": x * 2.0, "b": x[0]}
    set_weights(p, x)
    return np.sum(p["w"] * p["w"]) + p["b"]


def local_dict_helper_with_result(x):
    p = {"w": x[1:], "b": x[:3] * x[3]}
    s = update_and_score(p, x[1:], 0.5)
    s2 = update_and_score(p, x[:3], 0.25)
    return s * s2 + np.sum(p["w"] * p["b"])


DICT_HELPERS = [local_dict_written_by_helper, local_dict_helper_with_result]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", DICT_HELPERS, ids=lambda f: f.__name__)
def test_helper_writing_into_a_dict(f, jit):
    compiled_sample(f, jit)
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", DICT_HELPERS, ids=lambda f: f.__name__)
def test_helper_writing_into_a_dict_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)


def add_into(params, x):
    params["w"] += x


def dict_augmented_in_helper(x):
    p = {"w": x * 2.0}
    add_into(p, x)
    return np.sum(p["w"])


def test_helper_writing_into_a_dict_other_uses_refused():
    from s2sad.transforms.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match=r"test_more_python_forms.py:\d+, in add_into"):
        s2sad.grad(dict_augmented_in_helper, jit=False)(X.copy())


def loss_of_container_argument(params, x):
    set_weights(params, x)
    return np.sum(params["w"])


def test_helper_writing_into_a_dict_argument_refused_with_the_line():
    # (a container argument is flattened into its leaves: writing into it
    # stays refused, naming the write)
    from s2sad.transforms.frontend.containers.structure import PytreeError
    with pytest.raises(PytreeError, match=r"test_more_python_forms.py:\d+, in set_weights"):
        s2sad.grad(loss_of_container_argument, jit=False)({"w": X.copy(), "b": 0.5}, X.copy())


def del_in_try_then_read(x):
    try:
        t = x * 2.0
        del t
    finally:
        u = x
    return np.sum(t * u)


def test_del_in_try_then_read_refused():
    test_refused_with_the_line(del_in_try_then_read, "del t followed by a read")


def stack_also_read_whole(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * x[i])
    v = out.pop()
    return v + np.sum(np.array(out))


def test_stack_read_other_than_by_pop(jit):
    # (a grown list read whole is a stack of its elements: it was refused)
    check_grad(stack_also_read_whole, [X.copy()], jit=jit)


# ---- a name started as a number, made an array by its first update ---------
# (a loop over a list unrolls to straight-line updates: res = 0, res = res + a)

def sum_of_list_started_at_zero(x):
    terms = [x, x * 2.0, np.sin(x)]
    res = 0
    for v in terms:
        res = res + v
    return sum(res) * x[0]


def started_at_float_then_matrix(x):
    A = np.outer(x, x)
    res = 0.0
    for M in [A, A * 2.0]:
        res += M
    return sum(res) @ x


def started_at_zero_read_twice(x):
    res = 0
    for v in (x, np.cos(x)):
        res = res * 2 + v
    return max(res) + min(res) + np.sum(res ** 2)


NUMBER_STARTS = [sum_of_list_started_at_zero, started_at_float_then_matrix,
                 started_at_zero_read_twice]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", NUMBER_STARTS, ids=lambda f: f.__name__)
def test_name_started_as_a_number(f, jit):
    if jit and not FULL and f is not sum_of_list_started_at_zero:
        pytest.skip("compiled for a sample of the forms (S2SAD_FULL=1 for all)")
    check_grad(f, [X.copy()], jit=jit)


def started_at_zero_in_a_range_loop(x):
    res = 0
    for i in range(3):
        res = res + x * i  # (a loop not unrolled: res is a number or an array)
    return sum(res)


def test_name_started_as_a_number_in_a_loop_refused():
    test_refused_with_the_line(started_at_zero_in_a_range_loop,
                               "sum(res) of a name bound to a number (line")


# ---- star-unpacking leaving nothing for the starred name ------------------

def star_rest_empty(x):
    a, b, c, d, *rest = x
    return a * b + c * d + sum(rest) + len(rest)


def star_rest_empty_at_front(x):
    *rest, a, b, c, d = x
    return a * b * c * d + np.sum(np.array(rest)) * 3.0


def star_rest_copied(x):
    *rest, a = x
    rest[0] = 5.0  # (a list of its own in Python: x is unchanged)
    return a * np.sum(x) + sum(rest) * x[1]


STAR_EMPTY = [star_rest_empty, star_rest_empty_at_front, star_rest_copied]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", STAR_EMPTY, ids=lambda f: f.__name__)
def test_star_rest_empty_or_copied(f, jit):
    if jit and not FULL and f is not star_rest_empty:
        pytest.skip("compiled for a sample of the forms (S2SAD_FULL=1 for all)")
    check_grad(f, [X.copy()], jit=jit)


# ---- star-unpacking a helper's tuple ---------------------------------------

def three_parts(x):
    return x * 2.0, np.sin(x), x[0]


def star_of_helper(x):
    a, *rest = three_parts(x)
    return np.sum(a * rest[0]) + rest[1] * len(rest)


def star_of_helper_middle(x):
    a, *mid, b = three_parts(x[1:])
    return np.sum(a * mid[0]) * b


def star_of_bound_result(x):
    r = three_parts(x)
    *first, last = r
    return np.sum(first[0] * first[1]) + last


def star_of_nested_helper(x):
    def inner(y):
        if y[0] > 0:
            return y, y * y
        return y * 3.0, y
    p, *q = inner(x)
    return np.sum(p * q[0])


def star_of_helper_nothing_left(x):
    a, b, c, *rest = three_parts(x)
    return np.sum(a * b) * c + len(rest)


STAR_HELPERS = [star_of_helper, star_of_helper_middle, star_of_bound_result,
                star_of_nested_helper, star_of_helper_nothing_left]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", STAR_HELPERS, ids=lambda f: f.__name__)
def test_star_of_a_helpers_tuple(f, jit):
    if jit and not FULL and f is not star_of_helper:
        pytest.skip("compiled for a sample of the forms (S2SAD_FULL=1 for all)")
    for x in (X, -X):  # (both returns of the nested helper)
        check_grad(f, [x.copy()], jit=jit)


# ---- a helper adding a key to a dict it is given ---------------------------

def put_double(d, x):
    d["y"] = x * 2


def key_created_by_caller(x):
    d = {"y": 0.0}
    put_double(d, x)
    return np.sum(d["y"] * x)


def key_added_by_helper(x):
    d = {}
    put_double(d, x)
    return np.sum(d["y"] * x)


def put_two(d, x):
    t = d["w"] * x
    d["y"] = t + 1.0
    d["z"] = d["y"] * d["w"]


def keys_added_after_a_read(x):
    d = {"w": x[0]}
    put_two(d, x)
    return np.sum(d["y"] * d["z"]) + d["w"]


def keys_added_by_nested_helper(x):
    def put(d, v):
        d["a"] = np.sin(v)
        d["b"] = d["a"][0]
    d = {}
    put(d, x)
    return np.sum(d["a"]) * d["b"]


ADDED_KEYS = [key_created_by_caller, key_added_by_helper, keys_added_after_a_read,
              keys_added_by_nested_helper]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", ADDED_KEYS, ids=lambda f: f.__name__)
def test_helper_adding_a_key(f, jit):
    if jit and not FULL and f is not key_added_by_helper:
        pytest.skip("compiled for a sample of the forms (S2SAD_FULL=1 for all)")
    check_grad(f, [X.copy()], jit=jit)


def get_then_put(d, x):
    t = d.get("y", 0.0)  # (the key's absence is seen: 0.0 here, in Python too)
    d["y"] = x + t


def key_read_before_added(x):
    d = {}
    get_then_put(d, x)
    return np.sum(d["y"])


def put_if_positive(d, x):
    if x[0] > 0:
        d["y"] = x


def key_added_in_a_branch(x):
    d = {}
    put_if_positive(d, x)
    return np.sum(d["y"])


def keys_counted(x):
    d = {}
    put_double(d, x)
    return np.sum(d["y"]) * len(d)


def key_added_in_a_loop(x):
    d = {}
    for i in range(2):
        put_double(d, x)
    return np.sum(d["y"])


@pytest.mark.parametrize("f", [key_read_before_added, key_added_in_a_branch, keys_counted,
                               key_added_in_a_loop], ids=lambda f: f.__name__)
def test_helper_adding_a_key_refused_with_both_lines(f):
    helper = {key_read_before_added: get_then_put, key_added_in_a_branch: put_if_positive,
              keys_counted: put_double, key_added_in_a_loop: put_double}[f]
    test_refused_with_the_line(f, f"a call of {helper.__name__} adding the key 'y' (")
    line = max(n for n, text in enumerate(open(__file__).read().splitlines(), 1)
               if f'    d["y"] =' in text and n > helper.__code__.co_firstlineno
               and n < helper.__code__.co_firstlineno + 4)
    with pytest.raises(SyntaxError, match=f"py:{line}\\) to the dict 'd'"):
        s2sad.grad(f, jit=False)(X.copy())
