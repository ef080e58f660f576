"""Keyword forms of numpy functions (s2sad/definitions/masked_reductions.py,
transforms/frontend/calls/respellings.py): where= (a mask that gets no
gradient), initial=, dtype= of float64, np.diff's prepend= / append=,
np.einsum's optimize=, np.average's returned= / keepdims=,
np.concatenate(axis=None), one-sided clip, astype(float), over ranks, axes,
keyword and positional spellings and special points (masked-out slices,
zeros, ties); and the values that stay refused."""
import numpy as np

from .cases import const, make, spread, uni

ANY = uni(-2.0, 2.0)
SHAPES = {1: (4,), 2: (2, 3), 3: (2, 3, 2)}


def _bools(shape, p=0.6):
    return (shape, lambda rng, s: rng.uniform(size=s) < p)


def _axes(rank):
    out = ["None", "0", "-1"]
    if rank >= 2:
        out.append("(0, -1)")
    return out


def _call(fn, axis, rest, spelling):
    """np.fn(x, axis, ...) in one of three spellings: positional axis,
    keyword axis, or the array method."""
    if spelling == "positional":
        return f"np.{fn}(x, {axis}, {rest})"
    if spelling == "keyword":
        return f"np.{fn}(x, {rest}, axis={axis})"
    return f"x.{fn}(axis={axis}, {rest})"


def where_cases():
    out = []
    specs = [("sum", "where=x > -0.5"), ("prod", "where=x > -0.5"),
             ("mean", "where=x > -1.5"), ("var", "where=x > -1.5"), ("std", "where=x > -1.5"),
             ("max", "initial=-3.0, where=x < 1.0"), ("min", "initial=3.0, where=x > -1.0"),
             ("sum", "initial=0.5, where=x > 0.0"), ("prod", "initial=-2.0, where=x < 1.0")]
    for rank, shape in SHAPES.items():
        for fn, rest in specs:
            for axis in _axes(rank):
                for spelling in ("positional", "keyword", "method"):
                    x = spread(-1.9, 1.9, gap=0.2) if fn in ("max", "min") else uni(-1.0, 1.0) \
                        if fn in ("mean", "var", "std") else ANY
                    expr = _call(fn, axis, rest, spelling)
                    out.append(make(f"numpy.{fn}", f"where/{rank}/{fn}/{axis}/{rest}/{spelling}",
                                    expr, {"x": (shape, x)}))
    for fn, rest in [("amax", "initial=-5.0, where=c"), ("amin", "initial=5.0, where=c"),
                     ("sum", "where=c"), ("mean", "where=c"), ("var", "ddof=1, where=c"),
                     ("std", "ddof=1, where=c"), ("nansum", "where=c"),
                     ("nansum", "initial=1.5, where=c")]:
        for axis in ("None", "1"):
            mask = _bools((2, 4), 1.0) if fn in ("mean", "var", "std") else _bools((2, 4))
            out.append(make(f"numpy.{fn}", f"where/mask_arg/{fn}/{axis}/{rest}",
                            f"np.{fn}(x, axis={axis}, {rest})",
                            {"x": ((2, 4), spread(-1.9, 1.9, gap=0.2)), "c": mask}))
    # a mask that broadcasts (a row), keepdims with where, ddof and where
    row = {"x": ((3, 4), ANY), "c": ((1, 4), const(np.array([[True, False, True, True]])))}
    for fn, rest in [("sum", "where=c"), ("mean", "where=c"), ("var", "where=c"),
                     ("std", "ddof=1, where=c"), ("max", "initial=-9.0, where=c"),
                     ("prod", "where=c, initial=0.5")]:
        out.append(make(f"numpy.{fn}", f"where/broadcast_row/{fn}", f"np.{fn}(x, 1, {rest})", row))
        out.append(make(f"numpy.{fn}", f"where/keepdims/{fn}",
                        f"np.{fn}(x, axis=1, keepdims=True, {rest})", row))
        out.append(make(f"numpy.{fn}", f"where/keepdims_none/{fn}",
                        f"np.{fn}(x, keepdims=True, {rest})", row))
    out.append(make("numpy.sum", "where/true", "np.sum(x, where=True)", {"x": ((2, 3), ANY)}))
    out.append(make("numpy.sum", "where/mixed_expression",
                    "np.sum(x * y, axis=0, where=(x > 0.0) & (y < 1.0))",
                    {"x": ((3, 2), ANY), "y": ((3, 2), ANY)}))
    return out


def initial_cases():
    out = []
    for rank, shape in SHAPES.items():
        for fn, init in [("sum", "1.5"), ("prod", "-0.5"), ("max", "0.3"), ("min", "-0.3"),
                         ("amax", "-9.0"), ("amin", "9.0")]:
            for axis in _axes(rank):
                for spelling in ("keyword", "method") if fn[0] != "a" else ("keyword",):
                    expr = _call(fn, axis, f"initial={init}", spelling)
                    out.append(make(f"numpy.{fn}", f"initial/{rank}/{fn}/{axis}/{spelling}",
                                    expr, {"x": (shape, spread(-1.9, 1.9, gap=0.2))}))
    # initial itself differentiated (a value of the inputs), and keepdims beside it
    xs = {"x": ((2, 3), spread(-1.9, 1.9, gap=0.2)), "s": ((), uni(-1.0, 1.0))}
    for fn in ("sum", "prod", "max", "min"):
        out.append(make(f"numpy.{fn}", f"initial/active/{fn}", f"np.{fn}(x, axis=0, initial=s)",
                        xs))
        out.append(make(f"numpy.{fn}", f"initial/keepdims/{fn}",
                        f"np.{fn}(x, axis=1, initial=0.25, keepdims=True)", xs))
    return out


def special_cases():
    """Masked-out slices (sum 0, product 1, the maximum is initial), zeros
    in a masked product, ties with initial and between kept entries."""
    c = np.array([[True, False, False], [True, False, True]])
    zero = np.array([[0.0, 2.0, -1.0], [0.5, 0.0, 1.5]])
    out = [make("numpy.sum", "where/empty_column", "np.sum(x, axis=0, where=c)",
                {"x": ((2, 3), ANY), "c": ((), const(c))}),
           make("numpy.prod", "where/empty_column", "np.prod(x, axis=0, where=c)",
                {"x": ((2, 3), ANY), "c": ((), const(c))}),
           make("numpy.max", "where/empty_column", "np.max(x, axis=0, initial=-1.0, where=c)",
                {"x": ((2, 3), spread(-0.9, 1.9, gap=0.2)), "c": ((), const(c))}),
           make("numpy.prod", "zero/where", "np.prod(x, axis=1, where=c)",
                {"x": ((), const(zero)), "c": ((), const(~c))}),
           make("numpy.prod", "zero/initial", "np.prod(x, initial=3.0)",
                {"x": ((), const(np.array([0.0, 2.0, -1.0])))}),
           make("numpy.max", "tie/where_initial", "np.max(x, initial=1.0, where=x < 5.0)",
                {"x": ((), const(np.array([1.0, -0.5, 0.2])))}, kind="tie"),
           make("numpy.min", "tie/where_kept", "np.min(x, initial=9.0, where=x > 0.0)",
                {"x": ((), const(np.array([0.5, -0.5, 0.5, 2.0])))}, kind="tie"),
           make("numpy.std", "tie/where_zero_spread", "np.std(x, where=x > 0.0)",
                {"x": ((), const(np.array([0.5, -0.5, 0.5, -2.0])))}, kind="tie")]
    return out


def dtype_cases():
    out = []
    for dtype in ("float", "np.float64", "'float64'", "None", "np.double"):
        for fn in ("sum", "mean", "prod", "var", "std", "cumsum", "cumprod", "nansum",
                   "nanmean"):
            for axis in ("None", "1"):
                out.append(make(f"numpy.{fn}", f"dtype/{fn}/{axis}/{dtype}",
                                f"np.{fn}(x, axis={axis}, dtype={dtype})",
                                {"x": ((2, 3), uni(0.5, 1.5))}))
        out.append(make("numpy.sum", f"dtype/method/{dtype}", f"x.sum(0, dtype={dtype})",
                        {"x": ((2, 3), ANY)}))
        for fn in ("array", "asarray"):
            out.append(make(f"numpy.{fn}", f"dtype/{fn}/{dtype}", f"np.{fn}(x, dtype={dtype}) * x",
                            {"x": ((2, 3), ANY)}))
        out.append(make("numpy.zeros_like", f"dtype/zeros_like/{dtype}",
                        f"np.zeros_like(x, dtype={dtype}) + x * x", {"x": ((3,), ANY)}))
        out.append(make("numpy.astype", f"astype/{dtype}", f"x.astype({dtype}) * x",
                        {"x": ((2, 3), ANY)}))
    out.append(make("numpy.sum", "dtype/where", "np.sum(x, dtype=float, where=x > 0.0)",
                    {"x": ((2, 3), ANY)}))
    # an integer cast is a constant for differentiation (as np.floor's result)
    for dtype in ("int", "np.int64", "'int32'"):
        out.append(make("numpy.astype", f"astype/{dtype}", f"x.astype({dtype}) * x",
                        {"x": ((2, 3), uni(1.1, 1.9))}))
    return out


def diff_cases():
    out = []
    for rank, shape in ((1, (5,)), (2, (3, 4)), (3, (2, 3, 4))):
        for n in (1, 2):
            for axis in ("-1", "0"):
                for edges in ("prepend=0.5", "append=-1.0", "prepend=s, append=s * s",
                              "prepend=p", "append=p", "prepend=p, append=2.0 * p"):
                    inputs = {"x": (shape, ANY), "s": ((), ANY)}
                    pshape = list(shape)
                    pshape[int(axis)] = 2
                    inputs["p"] = (tuple(pshape), ANY)
                    for spelling in ("keyword", "positional"):
                        expr = (f"np.diff(x, n={n}, axis={axis}, {edges})" if spelling == "keyword"
                                else f"np.diff(x, {n}, {axis}, {edges})")
                        out.append(make("numpy.diff", f"diff/{rank}/n{n}/axis{axis}/{edges}/"
                                        f"{spelling}", expr, inputs))
    out.append(make("numpy.diff", "diff/default_axis", "np.diff(x, prepend=x[:, :1])",
                    {"x": ((3, 4), ANY)}))
    return out


def other_cases():
    out = []
    for opt in ("True", "False", "'greedy'", "'optimal'"):
        out.append(make("numpy.einsum", f"einsum/optimize={opt}",
                        f"np.einsum('ij,jk->ik', x, y, optimize={opt})",
                        {"x": ((2, 3), ANY), "y": ((3, 2), ANY)}))
        out.append(make("numpy.einsum", f"einsum/one/optimize={opt}",
                        f"np.einsum('ii->i', x, optimize={opt})", {"x": ((3, 3), ANY)}))
    w = uni(0.5, 1.5)
    for weights, wshape in (("None", None), ("w2", (2, 3)), ("w1", (3,))):
        for axis in ("None", "0", "1", "-1"):
            if weights == "w1" and axis in ("None", "0"):
                continue
            inputs = {"x": ((2, 3), ANY)}
            if wshape:
                inputs[weights] = (wshape, w)
            for form in ("returned=True", "keepdims=True", "returned=True, keepdims=True",
                         "returned=False, keepdims=False"):
                first = "[0]" if form.startswith("returned=True") else ""
                for part in (("[0]", "[1]") if first else ("",)):
                    expr = f"np.average(x, axis={axis}, weights={weights}, {form}){part}"
                    out.append(make("numpy.average", f"average/{weights}/{axis}/{form}{part}",
                                    expr, inputs))
    out.append(make("numpy.average", "average/positional_returned",
                    "np.average(x, 1, v, True)[1] * np.average(x, 1, v, True)[0]",
                    {"x": ((2, 3), ANY), "v": ((2, 3), w)}))
    for seq in ("(x, y)", "[x, y, x]", "(x,)"):
        for spelling in ("axis=None", "None"):
            out.append(make("numpy.concatenate", f"concatenate/flat/{seq}/{spelling}",
                            f"np.concatenate({seq}, {spelling})",
                            {"x": ((2, 3), ANY), "y": ((4,), ANY)}))
    lo_hi = {"x": ((2, 3), ANY), "lo": ((), uni(-0.5, 0.0)), "hi": ((), uni(0.1, 0.6))}
    for expr in ("x.clip(lo)", "x.clip(max=hi)", "x.clip(None, hi)", "x.clip(lo, None)",
                 "x.clip(min=lo)", "x.clip(lo, hi)", "x.clip(min=lo, max=hi)",
                 "np.clip(x, min=lo)", "np.clip(x, max=hi)", "np.clip(x, a_min=lo, a_max=None)",
                 "np.clip(x, a_min=None, a_max=hi)", "np.clip(x, None, hi)",
                 "np.clip(x, lo, None)", "np.clip(x, min=lo, max=hi)"):
        out.append(make("numpy.clip", f"clip/{expr}", expr, lo_hi))
    return out


def refusal_cases():
    X = {"x": ((2, 3), ANY)}
    c = {"x": ((2, 3), ANY), "c": _bools((2, 3))}
    rows = [
        ("numpy.sum", "dtype_float32", "np.sum(x, dtype=np.float32)", X),
        ("numpy.sum", "dtype_int", "np.sum(x, dtype=int)", X),
        ("numpy.sum", "where_dtype_float32", "np.sum(x, dtype=np.float32, where=c)", c),
        ("numpy.mean", "dtype_float32", "np.mean(x, dtype='float32')", X),
        ("numpy.cumprod", "dtype_float32", "np.cumprod(x, dtype=np.float32)", X),
        ("numpy.var", "where_mean", "np.var(x, where=c, mean=np.mean(x))", c),
        ("numpy.max", "where_without_initial", "np.max(x, where=c)", c),
        ("numpy.min", "where_without_initial", "np.min(x, axis=0, where=c)", c),
        ("numpy.sum", "where_out", "np.sum(x, where=c, out=np.empty(()))", c),
        ("numpy.sum", "where_keepdims_variable",
         "np.sum(x, where=c, keepdims=bool(x[0, 0] > 9))", c),
        ("numpy.average", "returned_variable", "np.average(x, returned=bool(x[0, 0] > 9))", X),
        ("numpy.einsum", "optimize_path", "np.einsum('ij->', x, optimize=['einsum_path', (0,)])",
         X),
        ("numpy.concatenate", "axis_none_named", "np.concatenate(xs, axis=None)",
         {"xs": ((2, 3), ANY)}),
        ("numpy.astype", "float32", "x.astype(np.float32)", X),
        ("numpy.clip", "a_min_only", "np.clip(x, a_min=0.1)", X),
    ]
    return [make(rule, f"refuse/keywords/{name}", expr, inputs, kind="refuse")
            for rule, name, expr, inputs in rows]


def cases():
    return (where_cases() + initial_cases() + special_cases() + dtype_cases() + diff_cases()
            + other_cases() + refusal_cases())
