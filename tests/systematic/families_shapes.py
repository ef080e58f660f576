"""Shape, joining, flipping, diagonal, padding, sorting and contraction rules
(s2sad/rules/shapes.py, contractions.py), variance and standard deviation,
the elementwise functions beyond the common ones (s2sad/rules/elementwise.py),
and the calls they refuse."""
import numpy as np

from .cases import SHAPES, const, make, matrix, rank_name, signed, spread, uni

ANY = uni(-2.0, 2.0)
M = {"x": ((3, 4), ANY)}
V = {"x": ((4,), ANY)}
T = {"x": ((2, 3, 4), ANY)}
BY_RANK = {1: V, 2: M, 3: T}


def _table(rule, rows, kind="value", prefix=None, **options):
    """rows: (name, expression, inputs)."""
    prefix = prefix or rule.split('.')[-1]
    return [make(rule, f"{prefix}/{name}", expr, inputs, kind=kind, **options)
            for name, expr, inputs in rows]


def reshape_cases():
    out = []
    for dtype in ["np.float64", "float", "'float64'", "'d'"]:
        out += _table("numpy.astype", [(f"method/{dtype}", f"x.astype({dtype})", M),
                                       (f"function/{dtype}", f"np.astype(x, {dtype})", M)])
    out += _table("numpy.astype", [("1d", "x.astype(np.float64) * x", V),
                                   ("x_times", "np.astype(x * x, float)", M)])
    sq = {"x": ((3, 1, 4, 1), ANY)}
    out += _table("numpy.squeeze", [
        ("plain", "np.squeeze(x)", sq), ("axis1", "np.squeeze(x, 1)", sq),
        ("axis-1", "np.squeeze(x, axis=-1)", sq), ("tuple", "np.squeeze(x, axis=(1, 3))", sq),
        ("method", "x.squeeze()", sq), ("method_axis", "x.squeeze(axis=1)", sq),
        ("1x1", "np.squeeze(x) * 2.0", {"x": ((1, 1), ANY)}),
        ("keyword", "np.squeeze(a=x, axis=3)", sq)])
    for n in (1, 2, 3):
        rule = f"numpy.atleast_{n}d"
        rows = [(f"{rank_name(s)}", f"np.atleast_{n}d(x)", {"x": (s, ANY)})
                for s in SHAPES.values() if s]
        out += _table(rule, rows)
        out += _table(rule, [("s", f"np.atleast_{n}d(x)", {"x": ((), ANY)})])
    return out


def joining_cases():
    out = []
    pairs = {"hstack": [((3,), (2,)), ((2, 3), (2, 1)), ((2, 3, 4), (2, 1, 4))],
             "vstack": [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3, 4), (1, 3, 4))],
             "dstack": [((3,), (3,)), ((2, 3), (2, 3)), ((2, 3, 4), (2, 3, 1))],
             "column_stack": [((3,), (3,)), ((3, 2), (3,)), ((3, 2), (3, 1))]}
    for fn, shapes in pairs.items():
        for sx, sy in shapes:
            xy = {"x": (sx, ANY), "y": (sy, ANY)}
            name = f"{rank_name(sx)}_{rank_name(sy)}"
            out += _table(f"numpy.{fn}", [(name, f"np.{fn}((x, y))", xy),
                                          (f"{name}/list", f"np.{fn}([x, y])", xy)])
        sx, sy = shapes[0]
        xy = {"x": (sx, ANY), "y": (sy, ANY)}
        out += _table(f"numpy.{fn}", [("three", f"np.{fn}((x, y, x))", xy),
                                      ("keyword", f"np.{fn}(tup=(x, y))", xy),
                                      ("const", f"np.{fn}((x, np.ones({sy})))", xy)])
    out += _table("numpy.append", [
        ("1d", "np.append(x, y)", {"x": ((3,), ANY), "y": ((2,), ANY)}),
        ("2d_flat", "np.append(x, y)", {"x": ((2, 3), ANY), "y": ((2,), ANY)}),
        ("axis0", "np.append(x, y, axis=0)", {"x": ((2, 3), ANY), "y": ((1, 3), ANY)}),
        ("axis1", "np.append(x, y, 1)", {"x": ((2, 3), ANY), "y": ((2, 2), ANY)}),
        ("axis-1", "np.append(x, y, axis=-1)", {"x": ((2, 3), ANY), "y": ((2, 2), ANY)}),
        ("keywords", "np.append(arr=x, values=y)", {"x": ((3,), ANY), "y": ((2,), ANY)}),
        # a number appended: its gradient is a number (it was a 0-d array)
        ("number", "np.append(x, y)", {"x": ((3,), ANY), "y": ((), ANY)})])
    return out


def repeat_cases():
    out = []
    for r, x in BY_RANK.items():
        n = rank_name(x["x"][0])
        rows = [(f"{n}/plain", "np.repeat(x, 2)", x), (f"{n}/axis0", "np.repeat(x, 3, axis=0)", x),
                (f"{n}/axis-1", "np.repeat(x, 2, -1)", x), (f"{n}/method", "x.repeat(2)", x),
                (f"{n}/method_axis", "x.repeat(2, axis=0)", x)]
        out += _table("numpy.repeat", rows)
        out += _table("numpy.tile", [(f"{n}/int", "np.tile(x, 2)", x),
                                     (f"{n}/pair", "np.tile(x, (2, 1))", x),
                                     (f"{n}/triple", "np.tile(x, (1, 2, 2))", x)])
        out += _table("numpy.diff", [(f"{n}/plain", "np.diff(x)", x),
                                     (f"{n}/n2", "np.diff(x, 2)", x),
                                     (f"{n}/axis0", "np.diff(x, axis=0)", x),
                                     (f"{n}/n2_axis-1", "np.diff(x, n=2, axis=-1)", x)])
    out += _table("numpy.repeat", [("s", "np.repeat(x, 3)", {"x": ((), ANY)}),
                                   ("keywords", "np.repeat(a=x, repeats=2, axis=1)", M),
                                   ("axis1_3d", "np.repeat(x, 2, axis=1)", T)])
    out += _table("numpy.tile", [("keywords", "np.tile(A=x, reps=3)", V)])
    out += _table("numpy.diff", [("keywords", "np.diff(a=x, n=1, axis=1)", M),
                                 ("3d_axis1", "np.diff(x, axis=1)", T)])
    pads = [("1d_int", "np.pad(x, 2)", V), ("1d_pair", "np.pad(x, (1, 2))", V),
            ("2d", "np.pad(x, ((1, 0), (2, 1)))", M), ("2d_int", "np.pad(x, 1)", M),
            ("constant", "np.pad(x, 1, mode='constant')", M),
            ("positional_mode", "np.pad(x, (2, 1), 'constant')", V),
            ("edge_1d", "np.pad(x, (1, 2), mode='edge')", V),
            ("edge_2d", "np.pad(x, ((1, 2), (0, 3)), mode='edge')", M),
            ("edge_3d", "np.pad(x, 1, mode='edge')", T),
            ("keywords", "np.pad(array=x, pad_width=1, mode='edge')", V)]
    out += _table("numpy.pad", pads)
    return out


def axes_cases():
    out = []
    out += _table("numpy.moveaxis", [
        ("0_-1", "np.moveaxis(x, 0, -1)", T), ("2_0", "np.moveaxis(x, 2, 0)", T),
        ("tuples", "np.moveaxis(x, (0, 1), (2, 0))", T), ("2d", "np.moveaxis(x, 1, 0)", M),
        ("keywords", "np.moveaxis(a=x, source=0, destination=1)", T)])
    out += _table("numpy.swapaxes", [
        ("0_2", "np.swapaxes(x, 0, 2)", T), ("neg", "np.swapaxes(x, -1, 1)", T),
        ("2d", "np.swapaxes(x, 0, 1)", M), ("method", "x.swapaxes(0, 1)", M),
        ("keywords", "np.swapaxes(a=x, axis1=1, axis2=2)", T)])
    out += _table("numpy.rollaxis", [
        ("2", "np.rollaxis(x, 2)", T), ("1_3", "np.rollaxis(x, 1, 3)", T),
        ("0_2", "np.rollaxis(x, 0, 2)", T), ("-1_1", "np.rollaxis(x, -1, 1)", T),
        ("2d", "np.rollaxis(x, 1)", M), ("keywords", "np.rollaxis(a=x, axis=2, start=1)", T)])
    for r, x in BY_RANK.items():
        n = rank_name(x["x"][0])
        out += _table("numpy.flip", [(f"{n}/plain", "np.flip(x)", x),
                                     (f"{n}/axis0", "np.flip(x, 0)", x),
                                     (f"{n}/axis-1", "np.flip(x, axis=-1)", x)])
        out += _table("numpy.roll", [(f"{n}/1", "np.roll(x, 1)", x),
                                     (f"{n}/-2_axis0", "np.roll(x, -2, axis=0)", x),
                                     (f"{n}/3_axis-1", "np.roll(x, 3, -1)", x)])
        if r >= 2:
            out += _table("numpy.flip", [(f"{n}/tuple", "np.flip(x, (0, 1))", x)])
            out += _table("numpy.roll", [(f"{n}/tuple", "np.roll(x, 1, axis=(0, 1))", x)])
            out += _table("numpy.fliplr", [(n, "np.fliplr(x)", x)])
            out += _table("numpy.flipud", [(n, "np.flipud(x)", x)])
            out += _table("numpy.rot90", [(f"{n}/plain", "np.rot90(x)", x),
                                          (f"{n}/k2", "np.rot90(x, 2)", x),
                                          (f"{n}/k-1", "np.rot90(x, k=-1)", x),
                                          (f"{n}/axes", "np.rot90(x, 1, (1, 0))", x)])
    out += _table("numpy.flipud", [("1d", "np.flipud(x)", V)])
    out += _table("numpy.flip", [("keywords", "np.flip(m=x, axis=1)", M)])
    out += _table("numpy.rot90", [("3d_axes", "np.rot90(x, axes=(0, 2))", T),
                                  ("keywords", "np.rot90(m=x, k=3)", M)])
    out += _table("numpy.roll", [("keywords", "np.roll(a=x, shift=2, axis=1)", M)])
    return out


def diagonal_cases():
    out = []
    sq = {"x": ((3, 3), ANY)}
    out += _table("numpy.diag", [
        ("1d", "np.diag(x)", V), ("1d_k1", "np.diag(x, 1)", V), ("1d_k-2", "np.diag(x, k=-2)", V),
        ("2d", "np.diag(x)", M), ("2d_k1", "np.diag(x, 1)", M), ("2d_k-1", "np.diag(x, -1)", M),
        ("2d_tall", "np.diag(x, k=-1)", {"x": ((4, 2), ANY)}), ("square", "np.diag(x)", sq),
        ("keywords", "np.diag(v=x, k=2)", M)])
    out += _table("numpy.diagonal", [
        ("plain", "np.diagonal(x)", M), ("offset", "np.diagonal(x, 1)", M),
        ("offset-2", "np.diagonal(x, offset=-2)", M), ("method", "x.diagonal()", M),
        ("keywords", "np.diagonal(a=x, offset=1)", sq),
        # any pair of axes, of any array (as Python: numba has no np.moveaxis)
        ("axes", "np.diagonal(x, axis1=-1, axis2=-2)", M), ("3d", "np.diagonal(x)", T),
        ("3d_axes", "np.diagonal(x, 1, 2, 0)", T), ("3d_offset-1", "np.diagonal(x, -1, 1, 2)", T),
        ("3d_method", "x.diagonal(0, 0, 2)", T)])
    out += _table("numpy.trace", [
        ("plain", "np.trace(x)", M), ("offset", "np.trace(x, 1)", M),
        ("offset-1", "np.trace(x, offset=-1)", sq), ("method", "x.trace()", sq),
        ("keywords", "np.trace(a=x, offset=2)", M),
        ("axes", "np.trace(x, 0, 1, 0)", M), ("3d", "np.trace(x)", T),
        ("3d_axes", "np.trace(x, 1, axis1=2, axis2=1)", T), ("4d", "np.trace(x, -1)",
                                                            {"x": ((3, 2, 2, 2), ANY)}),
        ("3d_method", "x.trace(axis1=0, axis2=2)", T)])
    for fn in ("triu", "tril"):
        out += _table(f"numpy.{fn}", [
            ("plain", f"np.{fn}(x)", M), ("k1", f"np.{fn}(x, 1)", M),
            ("k-1", f"np.{fn}(x, k=-1)", M), ("3d", f"np.{fn}(x)", T),
            ("keywords", f"np.{fn}(m=x, k=2)", sq)])
    return out


def sort_cases():
    out = []
    distinct = spread(-2.0, 2.0)
    for r, shape in {1: (5,), 2: (3, 4), 3: (2, 3, 4)}.items():
        x = {"x": (shape, distinct)}
        n = rank_name(shape)
        out += _table("numpy.sort", [(f"{n}/plain", "np.sort(x)", x),
                                     (f"{n}/axis0", "np.sort(x, axis=0)", x),
                                     (f"{n}/axisNone", "np.sort(x, axis=None)", x),
                                     (f"{n}/positional", "np.sort(x, -1)", x),
                                     (f"{n}/kind", "np.sort(x, kind='stable')", x),
                                     (f"{n}/method_like", "np.sort(x * 1.0, 0)", x)])
        out += _table("numpy.partition", [(f"{n}/k1", "np.partition(x, 1)", x),
                                          (f"{n}/k0_axis0", "np.partition(x, 0, axis=0)", x),
                                          (f"{n}/tuple", "np.partition(x, (0, 2))", x),
                                          (f"{n}/axisNone", "np.partition(x, 2, axis=None)", x)])
    ties = {"x": ((), const(np.array([0.5, -1.0, 0.5, 2.0])))}
    out += _table("numpy.sort", [("tie/equal", "np.sort(x)", ties),
                                 ("keywords", "np.sort(a=x, axis=0)", {"x": ((4,), distinct)})],
                  second_order=False)
    out += _table("numpy.partition", [("keywords", "np.partition(a=x, kth=1, axis=0)",
                                       {"x": ((4,), distinct)})])
    return out


def product_cases():
    out = []
    a34, b45 = ((3, 4), ANY), ((4, 5), ANY)
    out += _table("numpy.einsum", [
        ("matmul", "np.einsum('ij,jk->ik', x, y)", {"x": a34, "y": b45}),
        ("implicit", "np.einsum('ij,jk', x, y)", {"x": a34, "y": b45}),
        ("dot", "np.einsum('i,i->', x, y)", {"x": ((4,), ANY), "y": ((4,), ANY)}),
        ("outer", "np.einsum('i,j->ij', x, y)", {"x": ((3,), ANY), "y": ((2,), ANY)}),
        ("sum_only_in_x", "np.einsum('ij,k->ik', x, y)", {"x": a34, "y": ((2,), ANY)}),
        ("batched", "np.einsum('bij,bjk->bik', x, y)",
         {"x": ((2, 3, 4), ANY), "y": ((2, 4, 2), ANY)}),
        ("transpose", "np.einsum('ij->ji', x)", {"x": a34}),
        ("sum", "np.einsum('ij->', x)", {"x": a34}), ("rows", "np.einsum('ij->i', x)", {"x": a34}),
        ("spaces", "np.einsum('ij, jk -> ik', x, y)", {"x": a34, "y": b45}),
        ("same", "np.einsum('ij,ij->i', x, x)", {"x": a34}),
        ("three", "np.einsum('i,ij,j->', x, y, z)",
         {"x": ((3,), ANY), "y": a34, "z": ((4,), ANY)}),
        ("three_chain", "np.einsum('ij,jk,kl->il', x, y, z)",
         {"x": ((2, 3), ANY), "y": a34, "z": ((4, 2), ANY)}),
        ("three_same", "np.einsum('i,i,i->i', x, x, y)", {"x": ((3,), ANY), "y": ((3,), ANY)}),
        # '...' spelled out in letters (right-aligned); a repeated index reads a
        # diagonal; an axis of size 1 broadcasts (summed back)
        ("ellipsis", "np.einsum('...i,...i->...', x, x)", {"x": a34}),
        ("ellipsis_implicit", "np.einsum('i...,i...', x, y)", {"x": a34, "y": a34}),
        ("ellipsis_batched", "np.einsum('...ij,...jk->...ik', x, y)",
         {"x": ((3, 4), ANY), "y": ((2, 4, 2), ANY)}),
        ("ellipsis_middle", "np.einsum('j...k,lj...->lk...', x, y)",
         {"x": ((2, 3, 2), ANY), "y": ((2, 2, 3), ANY)}),
        ("ellipsis_size1", "np.einsum('...ij,...jk->...ik', x, y)",
         {"x": ((1, 2, 3), ANY), "y": ((4, 3, 2), ANY)}),
        ("broadcast_size1", "np.einsum('ij,ij->ij', x, y)", {"x": ((1, 4), ANY), "y": a34}),
        ("diagonal", "np.einsum('ii->i', x)", {"x": ((3, 3), ANY)}),
        ("trace", "np.einsum('ii', x)", {"x": ((3, 3), ANY)}),
        ("diagonal_batched", "np.einsum('iij,jk->ik', x, y)",
         {"x": ((3, 3, 2), ANY), "y": ((2, 4), ANY)}),
        ("diagonal_three", "np.einsum('ijk,lji,lli->lki', x, y, z)",
         {"x": ((3, 2, 2), ANY), "y": ((2, 2, 3), ANY), "z": ((2, 2, 3), ANY)})])
    out += _table("numpy.tensordot", [
        ("default", "np.tensordot(x, y)", {"x": ((2, 3, 4), ANY), "y": ((3, 4, 2), ANY)}),
        ("int1", "np.tensordot(x, y, 1)", {"x": a34, "y": b45}),
        ("int0", "np.tensordot(x, y, axes=0)", {"x": ((3,), ANY), "y": ((2,), ANY)}),
        ("pairs", "np.tensordot(x, y, axes=(1, 0))", {"x": a34, "y": b45}),
        ("tuples", "np.tensordot(x, y, axes=((0, 2), (1, 0)))",
         {"x": ((2, 3, 4), ANY), "y": ((4, 2, 3), ANY)}),
        ("keywords", "np.tensordot(a=x, b=y, axes=1)", {"x": a34, "y": b45})])
    out += _table("numpy.inner", [
        ("1d", "np.inner(x, y)", {"x": ((3,), ANY), "y": ((3,), ANY)}),
        ("2d_1d", "np.inner(x, y)", {"x": a34, "y": ((4,), ANY)}),
        ("2d_2d", "np.inner(x, y)", {"x": a34, "y": ((2, 4), ANY)}),
        ("3d_2d", "np.inner(x, y)", {"x": ((2, 3, 4), ANY), "y": ((2, 4), ANY)}),
        ("same", "np.inner(x, x)", {"x": a34})])
    out += _table("numpy.kron", [
        ("1d", "np.kron(x, y)", {"x": ((3,), ANY), "y": ((2,), ANY)}),
        ("2d", "np.kron(x, y)", {"x": ((2, 3), ANY), "y": ((2, 2), ANY)}),
        ("1d_2d", "np.kron(x, y)", {"x": ((3,), ANY), "y": ((2, 2), ANY)}),
        ("same", "np.kron(x, x)", {"x": ((2, 2), ANY)}),
        ("keywords", "np.kron(a=x, b=y)", {"x": ((2,), ANY), "y": ((3,), ANY)})])
    out += _table("numpy.cross", [
        ("1d", "np.cross(x, y)", {"x": ((3,), ANY), "y": ((3,), ANY)}),
        ("2d", "np.cross(x, y)", {"x": ((4, 3), ANY), "y": ((4, 3), ANY)}),
        ("broadcast", "np.cross(x, y)", {"x": ((4, 3), ANY), "y": ((3,), ANY)}),
        ("same", "np.cross(x, x * x)", {"x": ((3,), ANY)}),
        ("2vectors", "np.cross(x, y)", {"x": ((2,), ANY), "y": ((2,), ANY)}),
        ("2vectors_2d", "np.cross(x, y)", {"x": ((4, 2), ANY), "y": ((4, 2), ANY)}),
        ("2_3", "np.cross(x, y)", {"x": ((2,), ANY), "y": ((3,), ANY)}),
        ("3_2_broadcast", "np.cross(x, y)", {"x": ((4, 3), ANY), "y": ((2,), ANY)}),
        ("keywords", "np.cross(a=x, b=y)", {"x": ((3,), ANY), "y": ((3,), ANY)}),
        # the vectors along other axes: axisa, axisb, axisc, or axis for all three
        ("axisa", "np.cross(x, y, axisa=0)", {"x": ((3, 2), ANY), "y": ((2, 3), ANY)}),
        ("axisa_axisb", "np.cross(x, y, axisa=0, axisb=0)",
         {"x": ((3, 2), ANY), "y": ((3, 2), ANY)}),
        ("axisc", "np.cross(x, y, axisc=0)", {"x": ((4, 3), ANY), "y": ((4, 3), ANY)}),
        ("axis", "np.cross(x, y, axis=0)", {"x": ((3, 4), ANY), "y": ((3, 4), ANY)}),
        ("axis_3d", "np.cross(x, y, axis=1)", {"x": ((2, 3, 4), ANY), "y": ((2, 3, 4), ANY)}),
        ("axis_overrides", "np.cross(x, y, axisa=1, axisb=1, axisc=1, axis=0)",
         {"x": ((3, 3), ANY), "y": ((3, 3), ANY)}),
        ("positional", "np.cross(x, y, 0, -1, 1)", {"x": ((3, 2), ANY), "y": ((2, 3), ANY)}),
        ("positional_axis", "np.cross(x, y, -1, -1, -1, 0)",
         {"x": ((3, 4), ANY), "y": ((3, 4), ANY)}),
        ("axes_broadcast", "np.cross(x, y, axisa=0, axisc=0)",
         {"x": ((3, 4), ANY), "y": ((3,), ANY)}),
        ("axes_2vectors", "np.cross(x, y, axisa=0, axisb=0)",
         {"x": ((2, 4), ANY), "y": ((2, 4), ANY)}),
        ("axes_2_3", "np.cross(x, y, axisa=0, axisb=0, axisc=0)",
         {"x": ((2, 4), ANY), "y": ((3, 4), ANY)})])
    return out


def stat_cases():
    out = []
    for fn in ("var", "std"):
        rule = f"numpy.{fn}"
        for r, shape in SHAPES.items():
            if not r:
                continue
            x = {"x": (shape, ANY)}
            n = rank_name(shape)
            forms = [None, 0, -1] + ([(0, 1)] if r >= 2 else []) + ([(0, 2), 1] if r == 3 else [])
            for axis in forms:
                out += _table(rule, [(f"{n}/axis={axis}", f"np.{fn}(x, axis={axis})", x),
                                     (f"{n}/axis={axis}/keepdims",
                                      f"np.{fn}(x, axis={axis}, keepdims=True)", x),
                                     (f"{n}/axis={axis}/ddof1",
                                      f"np.{fn}(x, axis={axis}, ddof=1)", x)])
            out += _table(rule, [(f"{n}/plain", f"np.{fn}(x)", x),
                                 (f"{n}/method", f"x.{fn}()", x),
                                 (f"{n}/method_axis", f"x.{fn}(axis=0)", x),
                                 (f"{n}/method_positional", f"x.{fn}(-1)", x),
                                 (f"{n}/positional", f"np.{fn}(x, 0)", x),
                                 (f"{n}/method_ddof", f"x.{fn}(ddof=1)", x)])
        out += _table(rule, [("keywords", f"np.{fn}(a=x, axis=1, ddof=1, keepdims=True)", M),
                             ("ddof_float", f"np.{fn}(x, ddof=0.5)", V)])
    return out


def elementwise_cases():
    out = []
    xy = {"x": ((2, 3), ANY), "y": ((2, 3), ANY)}
    away = {"x": ((2, 3), ANY), "y": ((2, 3), signed(0.3, 2.0))}
    bxy = {"x": ((2, 3), ANY), "y": ((3,), signed(0.3, 2.0))}
    valid = lambda x, y: bool(np.all(np.abs(x - y) > 0.05))  # noqa: E731

    def off_jumps(x, y):  # mod, fmod jump where x / y is an integer
        q = np.asarray(x) / np.asarray(y)
        return bool(np.all(np.abs(q - np.round(q)) > 0.05))
    for fn in ("fmax", "fmin"):
        out += _table(f"numpy.{fn}", [("2d", f"np.{fn}(x, y)", xy),
                                      ("broadcast", f"np.{fn}(x, y)", bxy),
                                      ("s", f"np.{fn}(x, y)", {"x": ((), ANY), "y": ((), ANY)}),
                                      ], valid=valid)
        out += _table(f"numpy.{fn}", [
            ("nan", f"np.{fn}(x, y)", {"x": ((), const(np.array([1.0, 2.0, -0.5]))),
                                        "y": ((), const(np.array([np.nan, 0.5, 1.0])))}),
            ("nan_left", f"np.{fn}(y, x)", {"x": ((), const(np.array([1.0, 2.0, -0.5]))),
                                             "y": ((), const(np.array([np.nan, 0.5, 1.0])))})])
        out += _table(f"numpy.{fn}", [("tie/equal", f"np.{fn}(x, y)",
                                       {"x": ((), const(np.array([1.0, 2.0]))),
                                        "y": ((), const(np.array([1.0, 0.5])))})], kind="tie")
    for fn in ("fmax", "fmin"):
        out += _table(f"numpy.{fn}", [("scalar", f"np.{fn}(x, 0.5)", {"x": ((4,), ANY)})],
                      valid=lambda x: bool(np.all(np.abs(x - 0.5) > 0.05)))
    for fn in ("mod", "remainder", "fmod"):
        rule = "numpy.remainder" if fn == "mod" else f"numpy.{fn}"  # np.mod is np.remainder
        out += _table(rule, [("scalar", f"np.{fn}(x, 0.7)", {"x": ((4,), ANY)})], prefix=fn,
                      valid=lambda x: off_jumps(x, 0.7))
        out += _table(rule, prefix=fn, rows=[("2d", f"np.{fn}(x, y)", away),
                                      ("broadcast", f"np.{fn}(x, y)", bxy),
                                      ("s", f"np.{fn}(x, y)", {"x": ((), ANY), "y": ((), signed(0.3, 2.0))})],
                      valid=off_jumps)
    for fn in ("sinc", "rad2deg", "deg2rad", "degrees", "radians", "nan_to_num", "real", "imag",
               "conjugate", "conj"):
        rule = "numpy.conjugate" if fn == "conj" else f"numpy.{fn}"  # np.conj is np.conjugate
        for r, shape in SHAPES.items():
            out += _table(rule, [(rank_name(shape), f"np.{fn}(x) * x", {"x": (shape, ANY)})],
                          prefix=fn)
    out += _table("numpy.sinc", [("zero/sinc", "np.sinc(x)", {"x": ((), const(np.array([0.0, 0.5])))}),
                                 ("near_zero", "np.sinc(x)", {"x": ((), const(np.array([1e-4, -3e-4])))})])
    out += _table("numpy.nan_to_num", [("replaced", "np.tanh(np.nan_to_num(x))",
                                        {"x": ((), const(np.array([np.nan, 0.5, -np.inf])))})])
    out += _table("numpy.logaddexp2", [("2d", "np.logaddexp2(x, y)", xy),
                                       ("broadcast", "np.logaddexp2(x, y)", bxy),
                                       ("s", "np.logaddexp2(x, 1.5)", {"x": ((), ANY)})])
    out += _table("numpy.gradient", [("1d", "np.gradient(x)", {"x": ((5,), ANY)}),
                                     ("2d_axis0", "np.gradient(x, axis=0)", M),
                                     ("2d_axis-1", "np.gradient(x, axis=-1)", M),
                                     ("3d_axis1", "np.gradient(x, axis=1)", T)])
    return out


def split_cases():
    """Functions returning several arrays, unpacked (a part may go unused)."""
    rows = [("numpy.split", "int", "a, b = np.split(x, 2)", "a * b + a", V),
            ("numpy.split", "indices", "a, b, c = np.split(x, (1, 3))",
             "np.sum(a) * np.sum(c * c)", V),
            ("numpy.split", "axis1", "a, b = np.split(x, 2, axis=1)", "a * b", M),
            ("numpy.split", "unused", "a, b = np.split(x, 2)", "a * a", V),
            ("numpy.split", "keywords", "a, b = np.split(ary=x, indices_or_sections=2, axis=0)",
             "a - b * b", V),
            ("numpy.array_split", "uneven", "a, b = np.array_split(x, 2)",
             "np.sum(a) * np.sum(b * b)", {"x": ((5,), ANY)}),
            ("numpy.array_split", "axis-1", "a, b, c = np.array_split(x, 3, axis=-1)", "a * c", M),
            ("numpy.hsplit", "1d", "a, b = np.hsplit(x, 2)", "a * b", V),
            ("numpy.hsplit", "2d", "a, b = np.hsplit(x, (1,))", "a * b", M),
            ("numpy.vsplit", "2d", "a, b = np.vsplit(x, 2)", "a * b", {"x": ((4, 3), ANY)}),
            ("numpy.dsplit", "3d", "a, b = np.dsplit(x, 2)", "a * b", T)]
    out = [make(rule, f"{rule.split('.')[-1]}/{name}", expr, inputs, prelude=(prelude,))
           for rule, name, prelude, expr, inputs in rows]
    for tag, how in [("3x3", matrix(3)), ("3x3_neg", matrix(3, sign=-1.0)), ("1x1", matrix(1))]:
        out.append(make("numpy.linalg.slogdet", f"slogdet/{tag}", "logdet * sign",
                        {"a": ((), how)}, prelude=("sign, logdet = np.linalg.slogdet(a)",)))
    for tag, how in [("2x3x3", matrix(3, (2,))), ("2x1x2x2_neg", matrix(2, (2, 1), sign=-1.0))]:
        out.append(make("numpy.linalg.slogdet", f"slogdet/{tag}", "logdet * sign",
                        {"a": ((), how)}, prelude=("sign, logdet = np.linalg.slogdet(a)",)))
    out.append(make("numpy.linalg.slogdet", "slogdet/keywords", "logdet",
                    {"a": ((), matrix(2))}, prelude=("sign, logdet = np.linalg.slogdet(a=a)",)))
    return out


def sorted_cases():
    # sorted() of an array inside an expression: a list bound first (refused once)
    return [make("builtins.sorted", "array", "np.sum(np.asarray(sorted(x)) * x)", V,
                 second_order=False)]


def refusal_cases():
    rows = [
        ("numpy.pad", "mode_reflect", "np.pad(x, 1, mode='reflect')", V),
        ("numpy.pad", "constant_values", "np.pad(x, 1, constant_values=2.0)", V),
        # (a string argument is a constant of the derivative: its value decides)
        ("numpy.pad", "mode_variable", "np.pad(x, 1, mode=m)", {**V, "m": ((), const("reflect"))}),
        ("numpy.einsum", "four", "np.einsum('i,i,i,i->', x, x, x, x)", V),
        ("numpy.sort", "order", "np.sort(x, order='a')", V),
        ("numpy.repeat", "array_repeats", "np.repeat(x, np.array([1, 2, 1, 1]))", V),
        ("numpy.std", "dtype", "np.std(x, dtype=np.float32)", V),
        ("numpy.cross", "axisa_float", "np.cross(x, y, axisa=0.5)",
         {"x": ((3, 2), ANY), "y": ((2, 3), ANY)}),
        ("numpy.roll", "tuple_shift", "np.roll(x, (1, 2), axis=(0, 1))", M),
        ("numpy.nan_to_num", "nan_value", "np.nan_to_num(x, nan=1.0)", V),
        ("numpy.gradient", "spacing", "np.gradient(x, 0.5)", V),
        ("numpy.gradient", "2d_all_axes", "np.gradient(x)", M),
        ("numpy.gradient", "edge_order", "np.gradient(x, edge_order=2)", V),
        ("numpy.atleast_1d", "two", "np.atleast_1d(x, x)[0]", V),
        ("numpy.kron", "3d", "np.kron(x, x)", T),
        ("numpy.split", "index_array", "np.split(x, np.array([1, 2]))[0]", V),
    ]
    out = [make(rule, f"refuse/{name}", expr, inputs, kind="refuse")
           for rule, name, expr, inputs in rows]
    return out


def cases():
    return (reshape_cases() + joining_cases() + repeat_cases() + axes_cases() + diagonal_cases()
            + sort_cases() + product_cases() + stat_cases() + elementwise_cases()
            + split_cases() + sorted_cases() + refusal_cases())
