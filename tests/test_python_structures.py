"""Everyday Python structure: dataclass arguments, comprehensions over
container arguments, local NamedTuples and dataclasses, closures changing
their outer function's lists and dicts, nested functions with *args and
**kwargs, helpers passing dicts on and returning nested tuples, and
has_aux for hessian, hvp and batch_jacobian. Each against central finite
differences (compiled and as Python); what stays refused, with its line."""
import collections
import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from gradcheck import hessian_by_differences, numerical_grad, numerical_tree_grad, tree_leaves

HERE = __file__
W = np.array([0.3, -0.2, 0.5])
X = np.array([0.7, 1.1, -0.4])


def assert_refused(fn, args, says, error=s2sad.UnsupportedSyntaxError, **options):
    """Refused with `says`, naming this file and a line inside `fn`."""
    with pytest.raises(error, match=says) as info:
        s2sad.grad(fn, jit=False, **options)(*args)
    text = str(info.value)
    assert f"{HERE}:" in text, text
    line = int(text.split(f"{HERE}:")[1].split(",")[0].split(" ")[0])
    first = fn.__code__.co_firstlineno
    assert first <= line <= first + 12, text


def check(fn, args, wrt, jit):
    """grad of fn w.r.t. the positions `wrt` against finite differences."""
    got = s2sad.grad(fn, wrt=wrt, jit=jit)(*args)
    for k, g in zip(wrt, got):
        np.testing.assert_allclose(g, numerical_grad(fn, list(args), k), rtol=1e-5, atol=1e-6)
    return got


# ---- (a) dataclass arguments ----------------------------------------------------

@dataclass
class Params:
    w: np.ndarray
    b: float


@dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    b: float
    n: int
    mode: str = "tanh"


def dataclass_loss(p, x):
    return np.sum(np.tanh(p.w * x) + p.b) * p.b


def frozen_loss(p, x):
    y = np.sum(p.w * x) * p.b * p.n
    if p.mode == "tanh":
        return np.tanh(y)
    return y * y


def predict(p, x):
    return np.sum(p.w * x) + p.b


def calls_a_helper_with_it(p, x):
    return predict(p, x) ** 2


def fields_fd(fn, p, args, names):
    """Finite differences of fn w.r.t. each float field of the dataclass p."""
    out = {}
    for f in names:
        def of(v, f=f):
            return fn(dataclasses.replace(p, **{f: v}), *args)
        out[f] = numerical_grad(of, [getattr(p, f)], 0)
    return out


@pytest.mark.parametrize("fn", [dataclass_loss, calls_a_helper_with_it])
def test_dataclass_argument(fn, jit):
    p = Params(W.copy(), 0.4)
    g = s2sad.grad(fn, jit=jit)(p, X)
    assert type(g) is Params
    expected = fields_fd(fn, p, (X,), ("w", "b"))
    np.testing.assert_allclose(g.w, expected["w"], rtol=1e-5, atol=1e-6)
    assert isinstance(g.b, float) and g.b == pytest.approx(expected["b"], rel=1e-5)
    np.testing.assert_array_equal(p.w, W)  # the caller's instance is untouched


@pytest.mark.parametrize("mode", ["tanh", "square"])
def test_frozen_dataclass_with_static_fields(mode, jit):
    p = Frozen(W.copy(), 0.5, 3, mode)
    value, g = s2sad.value_and_grad(frozen_loss, jit=jit)(p, X)
    assert value == pytest.approx(frozen_loss(p, X))
    assert type(g) is Frozen
    # the int's gradient is 0.0 (as a NamedTuple's int field's), the string kept
    assert g.n == 0.0 and g.mode == mode
    expected = fields_fd(frozen_loss, p, (X,), ("w", "b"))
    np.testing.assert_allclose(g.w, expected["w"], rtol=1e-5, atol=1e-6)
    assert g.b == pytest.approx(expected["b"], rel=1e-5)


class Options(NamedTuple):
    scale: float
    how: str


def named_options(o, x):
    return np.sum(x * o.scale) if o.how == "linear" else np.sum(np.sin(x * o.scale))


@pytest.mark.parametrize("how", ["linear", "sine"])
def test_namedtuple_string_field_is_static(how):
    o = Options(0.5, how)
    g = s2sad.grad(named_options, jit=False)(o, X)
    assert type(g) is Options and g.how == how
    assert g.scale == pytest.approx(numerical_grad(lambda s: named_options(Options(s, how), X),
                                                   [0.5], 0), rel=1e-6)
    with pytest.raises(TypeError, match="is str"):  # in a dict it is still refused
        s2sad.grad(lambda p: p["a"], jit=False)({"a": 1.0, "how": how})


def test_dataclass_jvp_and_jacobian():
    p = Params(W.copy(), 0.4)
    t = Params(np.array([1.0, 0.5, -1.0]), 2.0)
    value, tangent = s2sad.jvp(dataclass_loss, jit=False)(p, X, t)
    eps = 1e-6
    plus = dataclass_loss(Params(p.w + eps * t.w, p.b + eps * t.b), X)
    minus = dataclass_loss(Params(p.w - eps * t.w, p.b - eps * t.b), X)
    assert tangent == pytest.approx((plus - minus) / (2 * eps), rel=1e-6)
    J = s2sad.jacobian(dataclass_loss, jit=False)(p, X)
    g = s2sad.grad(dataclass_loss, jit=False)(p, X)
    assert type(J) is Params
    np.testing.assert_allclose(J.w, g.w)
    with pytest.raises(ValueError, match="must be a Params"):
        s2sad.jvp(dataclass_loss, jit=False)(p, X, {"w": t.w, "b": 2.0})


@dataclass
class WithDerived:
    w: np.ndarray
    total: float = dataclasses.field(init=False, default=0.0)


def iterates_a_dataclass(p):
    s = 0.0
    for v in p:
        s = s + np.sum(v)
    return s


def unpacks_a_dataclass(p):
    w, b = p
    return np.sum(w) * b


def test_dataclass_refusals():
    assert_refused(iterates_a_dataclass, (Params(W, 0.4),), "iterating over p",
                   error=s2sad.S2sadError)
    assert_refused(unpacks_a_dataclass, (Params(W, 0.4),), "which Python does not iterate",
                   error=s2sad.S2sadError)
    with pytest.raises(TypeError, match="init=False"):
        s2sad.grad(lambda p: np.sum(p.w), jit=False)(WithDerived(W))


# ---- (b) comprehensions over container arguments -----------------------------------

def sum_of_generator(ps):
    return sum(np.sum(np.sin(w)) for w in ps)


def list_comprehension(ws):
    out = [w * 2.0 for w in ws]
    return np.sum(out[0]) * np.sum(out[1])


def over_dict_values(params):
    return sum(np.sum(p ** 2) for p in params.values())


def with_enumerate(ws):
    return np.sum(np.stack([w * (k + 1.0) for k, w in enumerate(ws)]) ** 2)


def filtered(ws):
    return sum(np.sum(w) for w in ws if np.sum(w) > 0)


def kept_as_generator(ws):
    g = (w * 2.0 for w in ws)
    return sum(g)


LIST = [np.array([0.1, 0.2]), np.array([0.3, -0.4])]
DICT = {"a": np.array([0.1, 0.2]), "b": 0.3}


@pytest.mark.parametrize("fn,arg", [(sum_of_generator, LIST), (list_comprehension, LIST),
                                    (over_dict_values, DICT), (with_enumerate, LIST)],
                         ids=["sum_gen", "listcomp", "dict_values", "enumerate"])
def test_comprehension_over_container(fn, arg, jit):
    g = s2sad.grad(fn, jit=jit)(arg)
    expected = numerical_tree_grad(fn, (arg,), 0)
    assert type(g) is type(arg)
    for a, b in zip(tree_leaves(g), tree_leaves(expected)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_comprehension_refusals():
    assert_refused(filtered, (LIST,), "with an if", error=s2sad.S2sadError)
    assert_refused(kept_as_generator, (LIST,), "kept as a generator", error=s2sad.S2sadError)


# ---- (c) local NamedTuples and dataclasses -----------------------------------------

Pair = collections.namedtuple("Pair", ["a", "b"])


class Triple(NamedTuple):
    a: float
    b: np.ndarray
    c: float = 2.0


@dataclass
class Local:
    a: float
    b: np.ndarray
    scale: float = 1.5


def local_namedtuple(x, y):
    p = Pair(a=x, b=y)
    return np.sum(p.a * p.b)


def local_typed_namedtuple_in_a_loop(x, y):
    total = 0.0
    for i in range(2):
        q = Triple(x * (i + 1.0), y)
        total = total + np.sum(q[0] * q.b) * q.c
    return total


def local_dataclass_updated(x, y):
    p = Local(x, b=y)
    p.a = p.a * 2.0
    p.b = p.b + 1.0
    return np.sum(p.a * np.sin(p.b)) * p.scale


def returns_the_record(x, y):
    p = Pair(x, y)
    return np.sum(p)


def assigns_a_namedtuple_field(x, y):
    p = Pair(x, y)
    p.a = 2.0
    return np.sum(p.b)


@pytest.mark.parametrize("fn", [local_namedtuple, local_typed_namedtuple_in_a_loop,
                                local_dataclass_updated])
def test_local_records(fn, jit):
    check(fn, (0.6, X.copy()), (0, 1), jit)


def test_local_records_used_otherwise_stay_refused():
    # left as written: the construction is a call with no gradient, refused with its line
    assert_refused(returns_the_record, (0.6, X), "No gradient defined for operation 'Pair'",
                   error=LookupError)
    assert_refused(assigns_a_namedtuple_field, (0.6, X), "through an attribute|attribute",
                   error=s2sad.S2sadError)


# ---- (d) closures changing their outer function's lists and dicts --------------------

def appends_in_a_loop(x):
    out = []

    def add(v):
        out.append(v * 2.0)
    for i in range(3):
        add(np.sin(x[i]))
    return sum(out)


def writes_keys(x):
    d = {"a": 0.0, "b": 0.0}

    def put(k, v):
        d[k] = v * v
    put("a", x[0])
    put("b", x[1])
    return d["a"] * d["b"]


def fills_an_empty_dict(x):
    d = {}

    def put(k, v):
        d[k] = v * 2.0
    put("a", x[0])
    put("b", x[1:] * x[0])
    return d["a"] * np.sum(d["b"])


def helper_filling_a_dict(u):
    d = {}
    d["a"] = u * 2.0
    d["b"] = np.sin(d["a"])
    return d["a"] * d["b"]


def calls_a_helper_filling_a_dict(x):
    return np.sum(helper_filling_a_dict(x)) * x[0]


def adds_a_key_in_a_branch(x):
    d = {}
    if x[0] > 0:
        d["a"] = x * 2.0
    d["b"] = x
    return np.sum(d["b"])


def reads_new_keys_through_a_comprehension(x):
    d = {}
    d["a"] = x * 2.0
    e = {k: v * 3.0 for k, v in d.items()}  # sees d's keys: it must not see none
    return np.sum(sum(e.values())) + np.sum(d["a"])


def accumulates_into_an_array(x):
    acc = np.zeros(2)

    def bump(i, v):
        acc[i] += v * v
    bump(0, x[0])
    bump(1, x[1])
    bump(0, x[2])
    return np.sum(acc * acc)


def counts_with_nonlocal(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v
    for i in range(3):
        add(x[i])
    return total


def uses_the_result(x):
    out = []

    def add(v):
        out.append(v)
        return v
    y = add(x[0]) * 2.0
    return sum(out) + y


def lambda_appends(x):
    out = []
    f = lambda v: out.append(v * 2.0)  # noqa: E731
    for i in range(3):
        f(x[i])
    return sum(out)


def add_to(out, v):
    out.append(v * 2.0)


def module_helper_appends(x):
    out = []
    for i in range(3):
        add_to(out, x[i])
    return sum(out)


@pytest.mark.parametrize("fn", [appends_in_a_loop, writes_keys, fills_an_empty_dict,
                                calls_a_helper_filling_a_dict, accumulates_into_an_array,
                                counts_with_nonlocal])
def test_closures_changing_outer_state(fn, jit):
    check(fn, (X.copy(),), (0,), jit)


def test_closure_refusals():
    assert_refused(uses_the_result, (X,), "called as a statement|statement of its own")
    # a key Python might not have created: the dict stays refused
    assert_refused(adds_a_key_in_a_branch, (X,), "a dict other than one bound once")
    assert_refused(reads_new_keys_through_a_comprehension, (X,),
                   "a dict other than one bound once")
    # (its appends got a zero gradient, with no error)
    assert_refused(module_helper_appends, (X,), r"changes the container it is given \(out.append")
    assert_refused(lambda_appends, (X,), r"changes the container it is given \(out.append")


# ---- (e) nested functions with *args and **kwargs ------------------------------------

def star_args(x, y):
    def h(*args):
        return sum(args)
    return h(x, y) * x


def keyword_args(x, y):
    def h(**kw):
        return kw["a"] * kw["b"]
    return h(a=x, b=y)


def mixed(x, y):
    def h(u, *args, scale=2.0, **kw):
        t = u * scale
        for a in args:
            t = t + a * a
        return t * kw.get("w", 1.0) + len(args)
    return np.sum(h(x, y, x * y, w=y)) + np.sum(h(y, x, y, w=x, scale=3.0))


def two_forms(x, y):
    def h(*args):
        return args[0] * args[-1]
    return h(x, y) + h(y, x, x)


def star_call(x, y):
    def h(*args):
        return sum(args)
    t = (x, y)
    return h(*t)


@pytest.mark.parametrize("fn", [star_args, keyword_args, mixed, two_forms])
def test_nested_varargs(fn, jit):
    check(fn, (np.array([0.5, 0.2]), np.array([0.7, -0.1])), (0, 1), jit)


def test_nested_varargs_refusals():
    assert_refused(star_call, (0.5, 0.7), r"called with \*xs or \*\*d")


# ---- (f) helpers passing dicts on, nested tuples -------------------------------------

def fill(d, x):
    d["y"] = d["y"] + np.sin(x) * d["w"]


def update(d, x):
    d["w"] = d["w"] * 2.0
    fill(d, x)
    d["z"] = d["y"] * x


def dict_through_two_helpers(x):
    d = {"y": 1.0, "w": x, "z": 0.0}
    for i in range(2):
        update(d, x * (i + 1.0))
    return d["y"] * d["z"] + d["w"]


def nest(x):
    return x * 2.0, (x * 3.0, np.sin(x))


def unpacks_a_nested_result(x):
    a, (b, c) = nest(x)
    return a * b * c


def unpacks_a_nested_display(x):
    a, (b, [c, d]) = x, (x * 2.0, [x * 3.0, np.cos(x)])
    return a * b * c * d


def nested_in_a_nested_function(x):
    def inner(u):
        return u, (u * 2.0, np.cos(u))
    a, (b, c) = inner(x)
    return a * b * c


def indexes_a_nested_result(x):
    r = nest(x)
    return r[0] * r[1][0]


@pytest.mark.parametrize("fn", [dict_through_two_helpers, unpacks_a_nested_result,
                                unpacks_a_nested_display, nested_in_a_nested_function])
def test_helpers_and_nested_tuples(fn, jit):
    check(fn, (0.7,), (0,), jit)


def test_nested_tuple_refusal():
    # a nested tuple of values that need a gradient, built where nest returns it
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a tuple or list of values") as info:
        s2sad.grad(indexes_a_nested_result, jit=False)(0.7)
    assert f"{HERE}:{nest.__code__.co_firstlineno + 1}" in str(info.value)


# ---- (g) has_aux for hessian, hvp and batch_jacobian ---------------------------------

def with_aux(x):
    y = np.sum(np.sin(x) * x ** 2)
    return y, {"scaled": x * 2.0, "n": 3}


def output_only(x):
    return np.sum(np.sin(x) * x ** 2)


def batch_with_aux(x, w):
    h = np.tanh(x * w)
    return h, np.sum(h)


def test_hessian_with_aux(jit):
    H, aux = s2sad.hessian(with_aux, has_aux=True, jit=jit)(X)
    np.testing.assert_allclose(H, hessian_by_differences(output_only, X), rtol=1e-4, atol=1e-5)
    assert aux["n"] == 3
    np.testing.assert_allclose(aux["scaled"], X * 2.0)
    v = np.array([1.0, -0.5, 2.0])
    hv, aux = s2sad.hvp(with_aux, has_aux=True, jit=jit)(X, v)
    np.testing.assert_allclose(hv, H @ v, rtol=1e-10)
    assert aux["n"] == 3


def test_batch_jacobian_with_aux():
    x = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
    w = np.array([0.7, -0.3])
    bj, aux = s2sad.batch_jacobian(batch_with_aux, has_aux=True, jit=False)(x, w)
    assert aux == pytest.approx(np.sum(np.tanh(x * w)))
    expected = np.zeros((3, 2, 2))
    for i in range(2):  # column i of each example's Jacobian
        e = np.zeros_like(x)
        e[:, i] = 1e-6
        expected[:, :, i] = (np.tanh((x + e) * w) - np.tanh((x - e) * w)) / 2e-6
    np.testing.assert_allclose(bj, expected, rtol=1e-6, atol=1e-8)
    with pytest.raises(TypeError, match="two-element tuple"):
        s2sad.batch_jacobian(lambda x, w: np.tanh(x * w), has_aux=True, jit=False)(x, w)
