"""Array rules: reductions (every axis form, keepdims, positional / keyword /
method spelling), cumsum, norm, products and linear algebra, shapes, and
no-gradient primitives used as constants."""
import numpy as np

from .cases import SHAPES, make, matrix, rank_name, signed, spread, uni

ANY = uni(-2.0, 2.0)
REDUCTIONS = ["sum", "mean", "prod", "max", "amax", "min", "amin"]
HAS_METHOD = {"sum", "mean", "prod", "max", "min", "cumsum"}


def _domain(fn, shape):
    if fn == "prod":
        return signed(0.5, 1.5)
    if fn in ("max", "amax", "min", "amin"):
        return spread(-2.0, 2.0)
    return ANY


def axis_forms(r):
    """Every axis form of an input of rank r: None, each int (and its
    negative), tuples (sorted, unsorted, negative, all, empty)."""
    forms = [None] + list(range(r)) + list(range(-r, 0))
    if r >= 1:
        forms += [(0,), ()]
    if r == 2:
        forms += [(0, 1), (1, 0), (-1, 0)]
    if r == 3:
        forms += [(0, 1), (1, 2), (0, 2), (2, 0), (-1, -3), (0, 1, 2)]
    return forms


def _text(axis):
    return repr(axis)


def reduction_cases():
    out = []
    for fn in REDUCTIONS:
        rule = f"numpy.{getattr(np, fn).__name__}"
        for r, shape in SHAPES.items():
            x = {"x": (shape, _domain(fn, shape))}
            n = rank_name(shape)
            out.append(make(rule, f"{fn}/{n}/plain", f"np.{fn}(x)", x))
            for axis in axis_forms(r) if r else [None, ()]:
                a = _text(axis)
                out.append(make(rule, f"{fn}/{n}/axis={a}", f"np.{fn}(x, axis={a})", x))
                out.append(make(rule, f"{fn}/{n}/axis={a}/keepdims",
                                f"np.{fn}(x, axis={a}, keepdims=True)", x))
            if r == 0:
                continue
            for axis in [None, -1] + ([(0, 1)] if r >= 2 else []):
                a = _text(axis)
                out.append(make(rule, f"{fn}/{n}/axis={a}/keepdims=False",
                                f"np.{fn}(x, axis={a}, keepdims=False)", x))
                out.append(make(rule, f"{fn}/{n}/axis={a}/positional", f"np.{fn}(x, {a})", x))
                out.append(make(rule, f"{fn}/{n}/axis={a}/all_keywords",
                                f"np.{fn}(a=x, axis={a}, keepdims=True)", x))
                if fn in HAS_METHOD:
                    out.append(make(rule, f"{fn}/{n}/axis={a}/method", f"x.{fn}(axis={a})", x))
                    out.append(make(rule, f"{fn}/{n}/axis={a}/method_positional",
                                    f"x.{fn}({a})", x))
                    out.append(make(rule, f"{fn}/{n}/axis={a}/method_keepdims",
                                    f"x.{fn}(axis={a}, keepdims=True)", x))
            if fn in HAS_METHOD:
                out.append(make(rule, f"{fn}/{n}/method_plain", f"x.{fn}()", x))
    for r, shape in SHAPES.items():
        x = {"x": (shape, ANY)}
        n = rank_name(shape)
        out.append(make("numpy.cumsum", f"cumsum/{n}/plain", "np.cumsum(x)", x))
        for axis in ([None] + list(range(r)) + list(range(-r, 0))) if r else [None]:
            out.append(make("numpy.cumsum", f"cumsum/{n}/axis={axis}",
                            f"np.cumsum(x, axis={axis})", x))
            if r:
                out.append(make("numpy.cumsum", f"cumsum/{n}/axis={axis}/positional",
                                f"np.cumsum(x, {axis})", x))
                out.append(make("numpy.cumsum", f"cumsum/{n}/axis={axis}/method",
                                f"x.cumsum(axis={axis})", x))
        if r:
            out.append(make("numpy.cumsum", f"cumsum/{n}/method_positional", "x.cumsum(-1)", x))
            out.append(make("numpy.cumsum", f"cumsum/{n}/all_keywords",
                            "np.cumsum(a=x, axis=0)", x))
    return out


def norm_cases():
    out = []
    away = signed(0.2, 2.0)
    calls = {
        (4,): ["", "ord=None", "ord=1", "ord=1.5", "ord=2", "ord=2.0", "ord=3", "axis=0",
               "axis=-1", "ord=3, axis=0", "ord=1, keepdims=True", "ord=2, axis=0, keepdims=True",
               "axis=(0,)", "ord=3, axis=(0,)"],
        (2, 3): ["", "ord='fro'", "ord=None, axis=(0, 1)", "ord='fro', axis=(1, 0)",
                 "axis=0", "axis=1", "axis=-1", "ord=1, axis=1", "ord=3, axis=0",
                 "ord=1.5, axis=-1", "axis=1, keepdims=True", "ord='fro', keepdims=True",
                 "axis=(0, 1), keepdims=True", "ord=3, axis=1, keepdims=True"],
        (2, 3, 4): ["", "axis=-1", "ord=1, axis=2", "axis=(1, 2)", "ord='fro', axis=(0, 2)",
                    "axis=(1, 2), keepdims=True", "axis=0, keepdims=True"],
    }
    for shape, forms in calls.items():
        for form in forms:
            args = "x" + (", " + form if form else "")
            kind = "either" if "axis=(0,)" in form else "value"
            out.append(make("numpy.linalg.norm", f"norm/{rank_name(shape)}/{form or 'plain'}",
                            f"np.linalg.norm({args})", {"x": (shape, away)}, kind=kind))
    for name, expr, shape in [("positional_ord", "np.linalg.norm(x, 3)", (4,)),
                              ("positional_axis", "np.linalg.norm(x, None, 1)", (2, 3)),
                              ("positional_all", "np.linalg.norm(x, 2, 0, True)", (2, 3)),
                              ("keywords", "np.linalg.norm(x=x, ord=2, axis=1)", (2, 3)),
                              ("scalar_2d", "np.linalg.norm(x) * x", (2, 2))]:
        out.append(make("numpy.linalg.norm", f"norm/{name}", expr, {"x": (shape, away)}))
    return out


def product_cases():
    out = []
    dot_pairs = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                 ((), (3,)), ((2, 3), ()), ((2, 3, 4), (4,)), ((2, 3, 4), (4, 2)),
                 ((3,), (2, 3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 3), (2, 3, 4)), ((), (2, 3, 4))]
    # (N-d: numpy's dot sums a's last axis with b's second-to-last; matmul broadcasts stacks)
    mm_pairs = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                ((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)),
                ((2, 2, 3), (3, 2)), ((2, 2, 3), (1, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)),
                ((3,), (2, 1, 3, 2)), ((2, 3), (4, 3, 2))]

    def stacked(sx, sy):
        return "value"
    for sx, sy in dot_pairs:
        n = f"{rank_name(sx)}_{rank_name(sy)}"
        xy = {"x": (sx, ANY), "y": (sy, ANY)}
        out.append(make("numpy.dot", f"dot/{n}", "np.dot(x, y)", xy, kind=stacked(sx, sy)))
        if sx and sy:
            out.append(make("numpy.dot", f"dot/{n}/method", "x.dot(y)", xy,
                            kind=stacked(sx, sy)))
    out.append(make("numpy.dot", "dot/keywords", "np.dot(a=x, b=y)",
                    {"x": ((2, 3), ANY), "y": ((3,), ANY)}))
    out.append(make("numpy.dot", "dot/same", "np.dot(x, x)", {"x": ((3,), ANY)}))
    for sx, sy in mm_pairs:
        n = f"{rank_name(sx)}_{rank_name(sy)}"
        xy = {"x": (sx, ANY), "y": (sy, ANY)}
        out.append(make("numpy.matmul", f"matmul/{n}", "np.matmul(x, y)", xy,
                        kind=stacked(sx, sy)))
        out.append(make("operator.matmul", f"x@y/{n}", "x @ y", xy, kind=stacked(sx, sy)))
    out.append(make("operator.matmul", "operator.matmul/2x3_3x2", "operator.matmul(x, y)",
                    {"x": ((2, 3), ANY), "y": ((3, 2), ANY)}))
    out.append(make("operator.matmul", "x@x.T", "x @ x.T", {"x": ((2, 3), ANY)}))
    for sx, sy in [((3,), (4,)), ((2, 3), (2,)), ((), (3,)), ((2, 2), (3, 1))]:
        out.append(make("numpy.outer", f"outer/{rank_name(sx)}_{rank_name(sy)}",
                        "np.outer(x, y)", {"x": (sx, ANY), "y": (sy, ANY)}))
    out.append(make("numpy.outer", "outer/keywords", "np.outer(a=x, b=y)",
                    {"x": ((3,), ANY), "y": ((2,), ANY)}))
    for n, batch, sign in [(1, (), 1), (2, (), 1), (3, (), 1), (3, (), -1), (3, (2,), 1)]:
        tag = f"{'x'.join(map(str, batch + (n, n)))}" + ("_neg" if sign < 0 else "")
        a = {"a": ((), matrix(n, batch, sign))}
        kind = "value"
        out.append(make("numpy.linalg.det", f"det/{tag}", "np.linalg.det(a)", a, kind=kind))
        out.append(make("numpy.linalg.inv", f"inv/{tag}", "np.linalg.inv(a)", a, kind=kind))
    out.append(make("numpy.linalg.det", "det/keywords", "np.linalg.det(a=a)",
                    {"a": ((), matrix(2))}))
    # (numpy's solve: b a vector when 1-d, else matrices; leading axes broadcast)
    for n, batch, sb in [(3, (), (3,)), (3, (), (3, 2)), (1, (), (1,)), (3, (2,), (2, 3, 2)),
                         (2, (), (2, 1)), (3, (2,), (3,)), (3, (), (2, 3, 2)),
                         (2, (2, 1), (3, 2, 1))]:
        tag = f"{'x'.join(map(str, batch + (n, n)))}_{rank_name(sb)}"
        ab = {"a": ((), matrix(n, batch)), "b": (sb, ANY)}
        out.append(make("numpy.linalg.solve", f"solve/{tag}", "np.linalg.solve(a, b)", ab))
    out.append(make("numpy.linalg.solve", "solve/keywords", "np.linalg.solve(a=a, b=b)",
                    {"a": ((), matrix(2)), "b": ((2,), ANY)}))
    return out


def shape_cases():  # noqa: C901 - a table
    out = []
    perms3 = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0), (-1, 0, 1)]
    for r, shape in SHAPES.items():
        x = {"x": (shape, ANY)}
        n = rank_name(shape)
        out.append(make("numpy.transpose", f"transpose/{n}", "np.transpose(x)", x))
        out.append(make("numpy.ravel", f"ravel/{n}", "np.ravel(x)", x))
        out.append(make("numpy.copy", f"copy/{n}", "np.copy(x)", x))
        for name in ("asarray", "ascontiguousarray", "array"):
            out.append(make(f"numpy.{name}", f"{name}/{n}", f"np.{name}(x)", x))
        if r:
            out.append(make("numpy.ravel", f"ravel/{n}/method", "x.ravel()", x))
            out.append(make("numpy.ravel", f"flatten/{n}/method", "x.flatten()", x))
            out.append(make("numpy.copy", f"copy/{n}/method", "x.copy()", x))
            out.append(make("numpy.transpose", f"transpose/{n}/method", "x.transpose()", x))
            out.append(make("numpy.transpose", f"transpose/{n}/T", "x.T", x))
        if r == 2:
            for axes in [(1, 0), (0, 1), None, (-1, 0)]:
                out.append(make("numpy.transpose", f"transpose/{n}/axes={axes}",
                                f"np.transpose(x, {axes})", x))
            out.append(make("numpy.transpose", f"transpose/{n}/keyword",
                            "np.transpose(a=x, axes=(1, 0))", x))
            out.append(make("numpy.transpose", f"transpose/{n}/method_varargs",
                            "x.transpose(1, 0)", x))
        if r == 3:
            for axes in perms3:
                out.append(make("numpy.transpose", f"transpose/{n}/axes={axes}",
                                f"np.transpose(x, {axes})", x))
            out.append(make("numpy.transpose", f"transpose/{n}/method_tuple",
                            "x.transpose((2, 0, 1))", x))
            out.append(make("numpy.transpose", f"transpose/{n}/method_varargs",
                            "x.transpose(1, 2, 0)", x))
    reshapes = {(3,): ["(3, 1)", "(1, 3)", "-1", "3", "(3,)"],
                (2, 3): ["(3, 2)", "(6,)", "-1", "6", "(1, 6)", "(2, 3, 1)", "(-1, 2)"],
                (2, 3, 4): ["(4, 6)", "(-1, 4)", "(24,)", "(2, 12)", "(4, 3, 2)"]}
    for shape, targets in reshapes.items():
        x = {"x": (shape, ANY)}
        n = rank_name(shape)
        for t in targets:
            out.append(make("numpy.reshape", f"reshape/{n}/{t}", f"np.reshape(x, {t})", x))
        t = targets[0]
        out.append(make("numpy.reshape", f"reshape/{n}/keyword", f"np.reshape(x, shape={t})", x))
        out.append(make("numpy.reshape", f"reshape/{n}/method", f"x.reshape({t})", x))
        out.append(make("numpy.reshape", f"reshape/{n}/method_varargs",
                        f"x.reshape({t.strip('()').rstrip(',')})", x))
        out.append(make("numpy.reshape", f"reshape/{n}/method_-1", "x.reshape(-1)", x))
    out.append(make("numpy.reshape", "reshape/s", "np.reshape(x, (1,))", {"x": ((), ANY)},
                    kind="either"))
    for shape, axes in {(): [0, -1, (0, 1)], (3,): [0, 1, -1, (0, 2), (0, -1)],
                        (2, 3): [0, 2, -2, (1, 3)]}.items():
        x = {"x": (shape, ANY)}
        for axis in axes:
            out.append(make("numpy.expand_dims", f"expand_dims/{rank_name(shape)}/{axis}",
                            f"np.expand_dims(x, {axis})", x))
    out.append(make("numpy.expand_dims", "expand_dims/keywords", "np.expand_dims(a=x, axis=1)",
                    {"x": ((2, 3), ANY)}))
    for name, expr, sx, sy in [
            ("1d", "np.concatenate((x, y))", (3,), (2,)),
            ("1d_axis0", "np.concatenate((x, y), axis=0)", (3,), (2,)),
            ("1d_axis-1", "np.concatenate((x, y), axis=-1)", (3,), (2,)),
            ("1d_list", "np.concatenate([x, y])", (3,), (2,)),
            ("1d_three", "np.concatenate((x, y, x))", (3,), (2,)),
            ("1d_same", "np.concatenate((x, x))", (3,), (2,)),
            ("1d_const", "np.concatenate((x, np.ones(2), y))", (3,), (2,)),
            ("2d_axis0", "np.concatenate((x, y))", (2, 3), (1, 3)),
            ("2d_axis1", "np.concatenate((x, y), axis=1)", (2, 3), (2, 2)),
            ("2d_axis-1", "np.concatenate((x, y), axis=-1)", (2, 3), (2, 2)),
            ("2d_positional", "np.concatenate((x, y), 1)", (2, 3), (2, 2)),
            ("3d_axis2", "np.concatenate((x, y), axis=2)", (2, 3, 4), (2, 3, 1))]:
        out.append(make("numpy.concatenate", f"concatenate/{name}", expr,
                        {"x": (sx, ANY), "y": (sy, ANY)}))
    for name, expr, s in [("1d", "np.stack((x, y))", (3,)),
                          ("1d_axis1", "np.stack((x, y), axis=1)", (3,)),
                          ("1d_axis-1", "np.stack((x, y), axis=-1)", (3,)),
                          ("1d_list", "np.stack([x, y])", (3,)),
                          ("1d_three", "np.stack((x, y, x), axis=1)", (3,)),
                          ("s", "np.stack((x, y))", ()),
                          ("2d_axis0", "np.stack((x, y))", (2, 3)),
                          ("2d_axis2", "np.stack((x, y), axis=2)", (2, 3)),
                          ("2d_axis-2", "np.stack((x, y), axis=-2)", (2, 3)),
                          ("2d_positional", "np.stack((x, y), 1)", (2, 3)),
                          ("2d_keywords", "np.stack(arrays=(x, y), axis=1)", (2, 3))]:
        out.append(make("numpy.stack", f"stack/{name}", expr, {"x": (s, ANY), "y": (s, ANY)}))
    x = {"x": ((2, 3), ANY)}
    for dtype in ["None", "float", "np.float64", "np.double", "'float64'", "'d'"]:
        for name in ("asarray", "array", "ascontiguousarray"):
            out.append(make(f"numpy.{name}", f"{name}/dtype={dtype}",
                            f"np.{name}(x, dtype={dtype})", x))
    out.append(make("numpy.array", "array/positional_dtype", "np.array(x, float)", x))
    out.append(make("numpy.array", "array/keywords", "np.array(object=x, dtype=float)", x))
    out.append(make("numpy.asarray", "asarray/keywords", "np.asarray(a=x)", x))
    out.append(make("numpy.array", "array/of_floats", "np.array((x, y * y))",
                    {"x": ((), ANY), "y": ((), ANY)}))
    out.append(make("numpy.copy", "copy/keywords", "np.copy(a=x)", x))
    out.append(make("numpy.positive", "positive/2x3", "np.positive(x)", x))
    return out


def _index(rng, shape):
    return np.array([0, 0, 2, 1])


def indexing_cases():
    out = []
    v = {"x": ((4,), ANY)}
    m = {"x": ((3, 4), ANY)}
    t = {"x": ((2, 3, 4), ANY)}
    table = [("list_repeated", "x[[0, 0, 2]]", v), ("array_repeated", "x[np.array([3, 3, 1])]", v),
             ("negative", "x[[-1, 0, -1]]", v), ("slice", "x[1:3]", v), ("reversed", "x[::-1]", v),
             ("int", "x[1] * x", v), ("int_negative", "x[-1] * x", v),
             ("2d_rows", "x[[0, 0, 2]]", m), ("2d_rows_slice", "x[[0, 0, 2], :]", m),
             ("2d_int_list", "x[1, [0, 0, 3]]", m), ("2d_row", "x[1]", m),
             ("2d_col", "x[:, 2]", m), ("2d_step", "x[1:, ::2]", m),
             ("2d_elem", "x[-1, -2] * x", m),
             ("3d_int_slice", "x[1, :, 2]", t), ("local_repeated", "(x * x)[[0, 0, 1]]", v),
             # an index array after slices: scattered along its axis, repeats adding up
             ("2d_cols", "x[:, [1, 1, 3]]", m), ("2d_slice_cols", "x[1:, [0, 3, 3]]", m),
             ("3d_mid", "x[:, [0, 0, 2], :]", t), ("3d_last", "x[::2, 1:, [3, 0, 3]]", t)]
    for name, expr, inputs in table:
        out.append(make("subscript", f"index/{name}", expr, inputs))
    out.append(make("subscript", "index/arg", "x[i]", {"x": ((4,), ANY), "i": ((4,), _index)}))
    out.append(make("subscript", "index/arg_2d", "x[i, 1]",
                    {"x": ((3, 4), ANY), "i": ((4,), _index)}))
    out.append(make("subscript", "index/slice_arg", "x[1:, i]",
                    {"x": ((3, 4), ANY), "i": ((4,), _index)}))
    for name, expr, inputs in [("ellipsis", "x[..., 1]", t), ("newaxis", "x[None]", m),
                               ("2d_pairs", "x[[0, 2, 2], [1, 1, 3]]", m),
                               ("mask", "x[x > 0.0]", {"x": ((2, 3), signed(0.1, 2.0))}),
                               ("mixed_advanced", "x[1, :, [3, 3]]", t)]:
        out.append(make("subscript", f"index/{name}", expr, inputs, kind="either"))
    return out


def constant_cases():
    """No-gradient primitives: their results are constants, the gradient
    flows through the rest."""
    steps = signed(0.1, 2.0)
    def frac(x):
        return np.abs(np.mod(3.0 * np.asarray(x), 1.0) - 0.5)

    def far(x):  # floor, ceil, trunc jump at integers
        return bool(np.all(frac(x) < 0.45))

    def half(x):  # round jumps at halves
        return bool(np.all(frac(x) > 0.05))
    v = {"x": ((3,), ANY)}
    table = [
        ("numpy.sign", "x * np.sign(x)", {"x": ((2, 3), steps)}, None),
        ("numpy.floor", "x * np.floor(3.0 * x)", v, far),
        ("numpy.ceil", "x * np.ceil(3.0 * x)", v, far),
        ("numpy.round", "x * np.round(3.0 * x)", v, half),
        ("numpy.rint", "x * np.rint(3.0 * x)", v, half),
        ("numpy.trunc", "x * np.trunc(3.0 * x)", v, far),
        ("numpy.isnan", "np.where(np.isnan(x), 0.0, x)", v, None),
        ("numpy.isinf", "np.where(np.isinf(x), 0.0, x)", v, None),
        ("numpy.isfinite", "np.where(np.isfinite(x), x, 0.0)", v, None),
        ("numpy.argmax", "x[np.argmax(x)]", {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.argmin", "x[np.argmin(x)] * x", {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.bincount", "np.bincount(np.array([0, 2, 2, 3]), weights=x * x) "
         "+ np.bincount(np.array([1, 1, 0, 3]))", {"x": ((4,), ANY)}, None),
        ("numpy.argsort", "x[np.argsort(x)]", {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.nonzero", "x[np.nonzero(x > 0.0)[0]]", {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.flatnonzero", "x[np.flatnonzero(x > 0.0)] * x[0]",
         {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.argwhere", "x[np.argwhere(x > 0.0)[:, 0]]", {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.triu_indices", "x[np.triu_indices(4)] * x[np.triu_indices(4, 1)].sum()",
         {"x": ((4, 4), ANY)}, None),
        ("numpy.triu_indices_from", "x[np.triu_indices_from(x, k=-1)]", {"x": ((4, 4), ANY)}, None),
        ("numpy.tril_indices", "x[np.tril_indices(3, -1, 4)] ** 2", {"x": ((3, 4), ANY)}, None),
        ("numpy.tril_indices_from", "x[np.tril_indices_from(x)] * x[0, 0]", {"x": ((4, 4), ANY)},
         None),
        ("numpy.diag_indices", "x[np.diag_indices(4)] * x[1]", {"x": ((4, 4), ANY)}, None),
        ("numpy.diag_indices_from", "np.exp(x[np.diag_indices_from(x)])", {"x": ((3, 3), ANY)},
         None),
        ("numpy.digitize", "x * np.digitize(x, np.array([-1.0, 0.0, 1.0]))",
         {"x": ((4,), spread(-2, 2))}, None),
        ("numpy.any", "x * float(np.any(x > 5.0))", v, None),
        ("numpy.all", "x * float(np.all(x > -5.0))", v, None),
        ("numpy.zeros", "x + np.zeros(3)", v, None), ("numpy.ones", "x * np.ones((2, 3))", v, None),
        ("numpy.empty", "x + 0.0 * np.empty(3).shape[0]", v, None),
        ("numpy.full", "x * np.full(3, 2.5)", v, None),
        ("numpy.zeros_like", "x + np.zeros_like(x)", v, None),
        ("numpy.ones_like", "x * np.ones_like(x)", v, None),
        ("numpy.empty_like", "x + 0.0 * np.empty_like(x).shape[0]", v, None),
        ("numpy.full_like", "x * np.full_like(x, 2.5)", v, None),
        ("numpy.shape", "x * np.shape(x)[0]", v, None), ("numpy.size", "x * np.size(x)", v, None),
        ("numpy.ndim", "x * np.ndim(x)", v, None), ("numpy.arange", "x * np.arange(3.0)", v, None),
        ("numpy.linspace", "x * np.linspace(0.0, 1.0, 3)", v, None),
        ("numpy.eye", "np.eye(3) @ x", v, None), ("numpy.identity", "np.identity(3) @ x", v, None),
        ("math.floor", "x * math.floor(3.0 * x)", {"x": ((), ANY)}, far),
        ("math.ceil", "x * math.ceil(3.0 * x)", {"x": ((), ANY)}, far),
        ("math.trunc", "x * math.trunc(3.0 * x)", {"x": ((), ANY)}, far),
        ("math.isnan", "x * float(not math.isnan(x))", {"x": ((), ANY)}, None),
        ("math.isinf", "x * float(not math.isinf(x))", {"x": ((), ANY)}, None),
        ("math.isfinite", "x * float(math.isfinite(x))", {"x": ((), ANY)}, None),
        ("builtins.int", "x * int(3.0 * x)", {"x": ((), ANY)}, far),
        ("builtins.round", "x * round(3.0 * x)", {"x": ((), ANY)}, half),
        ("builtins.len", "x * len(x)", v, None),
        ("numpy.int64", "x * np.int64(3.0 * x)", {"x": ((), ANY)}, far),
        ("numpy.int32", "x * np.int32(3.0 * x)", {"x": ((), ANY)}, far),
        ("builtins.bool", "x * float(bool(x > 0.0))", {"x": ((), steps)}, None),
        ("operator.floordiv", "x * (x // 0.5)", v, lambda x: bool(np.all(np.abs(np.mod(
            x, 0.5) - 0.25) < 0.2))),
        ("operator.and_", "np.where((x > -1.0) & (x < 1.0), x, 2.0 * x)", v,
         lambda x: bool(np.all(np.abs(np.abs(x) - 1.0) > 0.05))),
        ("operator.or_", "np.where((x < -1.0) | (x > 1.0), x, 2.0 * x)", v,
         lambda x: bool(np.all(np.abs(np.abs(x) - 1.0) > 0.05))),
        ("operator.xor", "np.where((x < 0.0) ^ (x < 1.0), x, 2.0 * x)", {"x": ((3,), steps)},
         lambda x: bool(np.all(np.abs(x - 1.0) > 0.05))),
    ]
    out = [make(rule, f"{rule.split('.')[1]}/const", expr, inputs, valid=valid)
           for rule, expr, inputs, valid in table]
    out.append(make("builtins.range", "range/loop", "s", {"x": ((3,), ANY)},
                    prelude=("s = 0.0", "for i in range(3):", "    s = s + x[i] * x[i]")))
    out.append(make("operator.lshift", "lshift/const", "x * float(1 << n)",
                    {"x": ((3,), ANY), "n": ((), lambda rng, shape: 2)}))
    out.append(make("operator.rshift", "rshift/const", "x * float(8 >> n)",
                    {"x": ((3,), ANY), "n": ((), lambda rng, shape: 2)}))
    return out


def cases():
    return (reduction_cases() + norm_cases() + product_cases() + shape_cases()
            + indexing_cases() + constant_cases())
