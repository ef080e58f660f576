"""Special points (powers at zero, products with a zero element, repeated
arguments), ties and kinks (max/min/maximum/minimum/clip ties, abs at 0),
and the refusal grid: calls with a parameter or a value the rule does not
implement, or that numpy itself rejects, which must raise."""
import numpy as np

from .cases import const, make, signed, uni

ANY = uni(-2.0, 2.0)
X = {"x": ((2, 3), ANY)}
V = {"x": ((4,), signed(0.2, 2.0))}
T = {"x": ((2, 3, 4), signed(0.2, 2.0))}
XY = {"x": ((2, 3), ANY), "y": ((2, 3), ANY)}


def _c(value):
    return ((), const(np.array(value, dtype=float) if isinstance(value, list) else value))


ZEROS = _c([0.0, 0.0, 0.0])
NEGATIVE = ((3,), uni(-2.0, -0.5))
EXPONENTS = _c([2.0, 3.0, 1.0])


def special_cases():
    out = []
    zero_powers = [("np.power(x, 0.0)", ZEROS), ("x ** 0.0", ZEROS), ("x ** 0", ZEROS),
                   ("np.power(x, 1.0)", ZEROS), ("np.power(x, 2.0)", ZEROS), ("x ** 2", ZEROS),
                   ("x ** 3.0", ZEROS), ("x ** 1", ZEROS), ("math.pow(x, 0.0)", _c(0.0)),
                   ("math.pow(x, 2.0)", _c(0.0)), ("pow(x, 0.0)", _c(0.0)), ("pow(x, 2)", _c(0.0)),
                   ("x ** 0.0", _c(0.0))]
    for expr, x in zero_powers:
        rule = ("math.pow" if "math" in expr else "builtins.pow" if expr.startswith("pow")
                else "operator.pow" if "**" in expr else "numpy.power")
        rank = "3" if isinstance(x[1](None, ()), np.ndarray) else "s"
        out.append(make(rule, f"zero/{expr}/{rank}", expr, {"x": x}))
    for expr, rule in [("np.power(0.0, y)", "numpy.power"), ("0.0 ** y", "operator.pow"),
                       ("math.pow(0.0, y)", "math.pow"), ("pow(0.0, y)", "builtins.pow")]:
        shape = () if "math" in expr or expr.startswith("pow") else (3,)
        out.append(make(rule, f"zero_base/{expr}", expr, {"y": (shape, uni(1.5, 3.0))}))
    out.append(make("numpy.power", "zero/np.power(x, y)", "np.power(x, y)",
                    {"x": ZEROS, "y": EXPONENTS}))
    out.append(make("operator.pow", "zero/x ** y", "x ** y", {"x": ZEROS, "y": EXPONENTS}))
    for expr, rule in [("np.power(x, 3.0)", "numpy.power"), ("x ** 2", "operator.pow"),
                       ("x ** -2", "operator.pow"), ("x ** 3.0", "operator.pow"),
                       ("np.power(x, -1.0)", "numpy.power")]:
        out.append(make(rule, f"negative_base/{expr}", expr, {"x": NEGATIVE}))
    out.append(make("math.pow", "negative_base/math.pow(x, 2.0)", "math.pow(x, 2.0)",
                    {"x": ((), uni(-2.0, -0.5))}))
    out.append(make("numpy.power", "negative_base/np.power(x, y) wrt x", "np.power(x, y)",
                    {"x": NEGATIVE, "y": EXPONENTS}, wrt=(0,)))
    out.append(make("operator.pow", "negative_base/x ** y wrt x", "x ** y",
                    {"x": NEGATIVE, "y": EXPONENTS}, wrt=(0,)))
    for name, expr, x in [("one_zero", "np.prod(x)", _c([0.5, 0.0, 2.0, 1.5])),
                          ("two_zeros", "np.prod(x)", _c([0.0, 0.7, 0.0])),
                          ("axis", "np.prod(x, axis=1)", _c([[0.5, 0.0, 2.0], [1.5, -1.0, 0.8]])),
                          ("method", "x.prod()", _c([0.5, 0.0, 2.0]))]:
        out.append(make("numpy.prod", f"zero/{name}", expr, {"x": x}))
    out.append(make("numpy.arctan2", "zero/arctan2(0, x)", "np.arctan2(y, x)",
                    {"y": ZEROS, "x": ((3,), uni(0.5, 2.0))}))
    out.append(make("numpy.where", "zero/where_sqrt_nan", "np.where(x > 0.0, np.sqrt(x), 0.0)",
                    {"x": _c([1.0, -1.0, 0.5])}, note="sqrt of the branch not taken is nan"))
    for rule, name, expr, x in [
            ("operator.mul", "x*x", "x * x", X),
            ("operator.truediv", "x/x", "x / x", {"x": ((2, 3), signed(0.5, 2))}),
            ("operator.sub", "x-x", "x - x", X),
            ("operator.pow", "x**x", "x ** x", {"x": ((3,), uni(0.3, 2.0))}),
            ("numpy.hypot", "hypot(x,x)", "np.hypot(x, x)", {"x": ((3,), signed(0.3, 2.0))}),
            ("numpy.dot", "dot(x,x)", "np.dot(x, x)", {"x": ((3, 3), ANY)}),
            ("numpy.outer", "outer(x,x)", "np.outer(x, x)", {"x": ((3,), ANY)})]:
        out.append(make(rule, f"same_arg/{name}", expr, x))
    return out


def tie_cases():
    out = []
    tied = _c([1.0, 3.0, 3.0, 2.0])
    three = _c([3.0, 3.0, 3.0])
    cols = _c([[1.0, 2.0, 3.0], [1.0, 0.0, 3.0]])
    for fn in ("max", "amax", "min", "amin"):
        sign = 1.0 if "max" in fn else -1.0
        rule = f"numpy.{getattr(np, fn).__name__}"
        flip = lambda c: ((), const(sign * c[1](None, ())))  # noqa: E731
        out.append(make(rule, f"tie/{fn}/pair", f"np.{fn}(x)", {"x": flip(tied)}, kind="tie",
                        shift=True))
        out.append(make(rule, f"tie/{fn}/three", f"np.{fn}(x)", {"x": flip(three)}, kind="tie",
                        shift=True))
        out.append(make(rule, f"tie/{fn}/axis0", f"np.{fn}(x, axis=0)", {"x": flip(cols)},
                        kind="tie", shift=True))
        out.append(make(rule, f"tie/{fn}/axis1_keepdims", f"np.{fn}(x, axis=1, keepdims=True)",
                        {"x": flip(cols)}, kind="tie", shift=True))
    out.append(make("numpy.max", "tie/max/method", "x.max(axis=0)", {"x": cols}, kind="tie",
                    shift=True))
    for fn in ("maximum", "minimum"):
        rule = f"numpy.{fn}"
        out.append(make(rule, f"tie/{fn}/all", f"np.{fn}(x, y)",
                        {"x": _c([0.5, -1.0, 2.0]), "y": _c([0.5, -1.0, 2.0])}, kind="tie",
                        shift=True))
        out.append(make(rule, f"tie/{fn}/some", f"np.{fn}(x, y)",
                        {"x": _c([0.5, -1.0, 2.0]), "y": _c([0.5, 1.0, 1.0])}, kind="tie",
                        shift=True))
        out.append(make(rule, f"tie/{fn}/same_arg", f"np.{fn}(x, x)", {"x": ((3,), ANY)},
                        kind="tie", shift=True))
        out.append(make(rule, f"tie/{fn}/zero", f"np.{fn}(x, 0.0)",
                        {"x": _c([0.0, 1.0, -1.0])}, kind="tie"))
    for fn in ("max", "min"):
        out.append(make(f"builtins.{fn}", f"tie/{fn}", f"{fn}(x, y)",
                        {"x": _c(0.7), "y": _c(0.7)}, kind="tie", shift=True))
    out.append(make("numpy.clip", "tie/clip_literal", "np.clip(x, -0.5, 0.5)",
                    {"x": _c([-0.5, 0.5, 0.1])}, kind="tie"))
    out.append(make("numpy.clip", "tie/clip_args", "np.clip(x, y, z)",
                    {"x": _c([-0.5, 0.5, 0.1]), "y": _c(-0.5), "z": _c(0.5)}, kind="tie",
                    shift=True))
    zero = _c([0.0, 1.0, -1.0])
    for rule, expr, x in [("numpy.absolute", "np.abs(x)", zero),
                          ("numpy.fabs", "np.fabs(x)", zero),
                          ("builtins.abs", "abs(x)", _c(0.0)),
                          ("math.fabs", "math.fabs(x)", _c(0.0)),
                          ("numpy.linalg.norm", "np.linalg.norm(x, ord=1)", zero),
                          ("numpy.sign", "x * np.sign(x)", zero),
                          ("numpy.where", "np.where(x > 0.0, x, 0.0)", zero)]:
        out.append(make(rule, f"kink/{expr}", expr, {"x": x}, kind="tie"))
    return out


def refusal_cases():
    c = ((2, 3), lambda rng, shape: rng.uniform(size=shape) > 0.5)
    both = {"x": ((3,), ANY), "y": ((2,), ANY)}
    xyc = {"x": ((2, 3), ANY), "y": ((2, 3), ANY), "c": c}
    table = [  # (rule, name, expr, inputs)
        ("numpy.sum", "dtype_float32", "np.sum(x, dtype=np.float32)", X),
        ("numpy.sum", "positional_keepdims_True", "np.sum(x, 0, True)", X),
        ("numpy.sum", "positional_keepdims_False", "np.sum(x, 0, False)", X),
        ("numpy.sum", "axis_list", "np.sum(x, axis=[0, 1])", X),
        ("numpy.sum", "axis_float", "np.sum(x, axis=1.0)", X),
        ("numpy.sum", "axis_out_of_range", "np.sum(x, axis=2)", X),
        ("numpy.sum", "axis_repeated", "np.sum(x, axis=(0, 0))", X),
        ("numpy.sum", "method_dtype", "x.sum(dtype=np.float32)", X),
        ("numpy.mean", "positional_keepdims", "np.mean(x, 0, True)", X),
        ("numpy.prod", "positional_keepdims", "np.prod(x, 1, True)", X),
        ("numpy.max", "positional_keepdims", "np.max(x, 0, True)", X),
        ("numpy.amax", "positional_keepdims", "np.amax(x, 0, True)", X),
        ("numpy.amin", "positional_keepdims", "np.amin(x, 1, True)", X),
        ("numpy.cumsum", "axis_tuple", "np.cumsum(x, axis=(0, 1))", X),
        ("numpy.cumsum", "dtype", "np.cumsum(x, dtype=np.float32)", X),
        ("numpy.cumsum", "positional_dtype", "np.cumsum(x, 0, np.float32)", X),
        ("numpy.linalg.norm", "matrix_ord_inf_axes",
         "np.linalg.norm(x, ord=np.inf, axis=(0, 1))", X),
        ("numpy.linalg.norm", "matrix_ord_fro_axis_int", "np.linalg.norm(x, ord='fro', axis=1)", X),
        ("numpy.linalg.norm", "vector_0", "np.linalg.norm(x, ord=0)", V),
        ("numpy.linalg.norm", "vector_half", "np.linalg.norm(x, ord=0.5)", V),
        ("numpy.linalg.norm", "vector_fro", "np.linalg.norm(x, ord='fro')", V),
        ("numpy.linalg.norm", "3d_ord2_axes", "np.linalg.norm(x, ord=2, axis=(1, 2))", T),
        ("numpy.linalg.norm", "3d_ord2", "np.linalg.norm(x, ord=2)", T),
        ("numpy.linalg.norm", "ord_bool", "np.linalg.norm(x, ord=True)", V),
        ("numpy.concatenate", "dtype", "np.concatenate((x, y), dtype=np.float32)", both),
        ("numpy.concatenate", "axis_tuple", "np.concatenate((x, y), axis=(0,))", both),
        ("numpy.stack", "dtype", "np.stack((x, x), dtype=np.float32)", X),
        ("numpy.stack", "mismatched", "np.stack((x, y))", both),
        ("numpy.reshape", "bad_size", "np.reshape(x, (4, 2))", X),
        ("numpy.ravel", "order_F", "np.ravel(x, order='F')", X),
        ("numpy.ravel", "method_order_F", "x.ravel('F')", X),
        ("numpy.ravel", "flatten_order_F", "x.flatten('F')", X),
        ("numpy.array", "dtype_float32", "np.array(x, dtype=np.float32)", X),
        ("numpy.array", "ndmin", "np.array(x, ndmin=3)", X),
        ("numpy.asarray", "dtype_float32", "np.asarray(x, dtype=np.float32)", X),
        ("numpy.asarray", "dtype_complex", "np.asarray(x, dtype=complex).real", X),
        ("numpy.ascontiguousarray", "dtype_float32", "np.ascontiguousarray(x, 'f4')", X),
        ("numpy.copy", "order_F", "np.copy(x, order='F')", X),
        ("numpy.transpose", "bad_permutation", "np.transpose(x, (0, 0))", X),
        ("numpy.expand_dims", "axis_out_of_range", "np.expand_dims(x, 3)", X),
        ("numpy.sin", "where", "np.sin(x, where=c)", dict(X, c=c)),
        ("numpy.exp", "dtype", "np.exp(x, dtype=np.float32)", X),
        ("numpy.add", "dtype", "np.add(x, y, dtype=np.float32)", XY),
        ("numpy.multiply", "where", "np.multiply(x, y, where=c)", xyc),
        ("numpy.sin", "keyword_x", "np.sin(x=x)", X),
        ("numpy.maximum", "three_args", "np.maximum(x, y, x)", XY),
        ("numpy.matmul", "scalar", "np.matmul(2.0, x)", X),
        ("numpy.matmul", "dtype", "np.matmul(x, y.T, dtype=np.float32)", XY),
        ("numpy.dot", "mismatched", "np.dot(x, y)", XY),
        ("numpy.linalg.det", "not_square", "np.linalg.det(x)", X),
        ("numpy.linalg.inv", "not_square", "np.linalg.inv(x)", X),
        ("numpy.where", "keyword", "np.where(x > 0.0, x=x, y=y)", XY),
        ("numpy.clip", "out", "np.clip(x, -0.5, 0.5, out=y)", XY),
        ("math.log", "keyword_base", "math.log(x, base=2.0)", {"x": ((), uni(0.5, 2.0))}),
        ("math.sin", "array", "math.sin(x)", X),
        ("math.pow", "three_args", "math.pow(x, 2.0, 3.0)", {"x": ((), uni(0.5, 2.0))}),
        ("builtins.max", "arrays", "max(x, y)", XY),
        ("builtins.pow", "modulo", "pow(x, 2, 3)", {"x": ((), ANY)}),
        ("builtins.float", "keyword", "float(x=x)", {"x": ((), ANY)}),
    ]
    out = [make(rule, f"refuse/{name}", expr, inputs, kind="refuse")
           for rule, name, expr, inputs in table]
    # refused once, now written as the loops Python runs (builtin_forms.py)
    out.append(make("builtins.max", "key/abs", "max(x, y, key=abs)",
                    {"x": ((), ANY), "y": ((), ANY)}, second_order=False))
    either = [  # valid numpy the rules may refuse; if they answer, they must be right
        ("numpy.sum", "positional_dtype_None", "np.sum(x, 0, None)", X),
        ("numpy.sum", "keepdims_int", "np.sum(x, axis=0, keepdims=1)", X),
        ("numpy.sum", "keepdims_arg", "np.sum(x, axis=0, keepdims=k)",
         dict(X, k=((), const(True)))),
        ("numpy.sum", "axis_arg", "np.sum(x, axis=k)", dict(X, k=((), const(1)))),
        ("numpy.mean", "axis_arg_tuple", "np.mean(x, axis=k)", dict(X, k=((), const((0, 1))))),
        ("numpy.transpose", "axes_list", "np.transpose(x, [1, 0])", X),
        ("numpy.transpose", "axes_arg", "np.transpose(x, k)", dict(X, k=((), const((1, 0))))),
        ("numpy.clip", "min_max_keywords", "np.clip(x, min=-0.5, max=0.5)",
         {"x": ((2, 3), signed(0.6, 1.0))}),
        ("numpy.clip", "a_min_None", "np.clip(x, None, 0.5)", {"x": ((2, 3), uni(-1.0, 0.45))}),
        ("numpy.dot", "out_None", "np.dot(x, y.T, out=None)", XY),
        ("numpy.linalg.norm", "vector_axis_tuple", "np.linalg.norm(x, ord=1, axis=(1,))", X),
        ("numpy.concatenate", "positional_out_None", "np.concatenate((x, y), 0, None)", both),
        ("numpy.reshape", "order_C", "np.reshape(x, (3, 2), order='C')", X),
        ("numpy.copy", "order_C", "np.copy(x, order='C')", X),
        # (its values are ints: a zero gradient, as JAX gives, or a refusal)
        ("numpy.array", "dtype_int", "np.array(x, dtype=int)", X),
        ("numpy.sin", "out_None", "np.sin(x, out=None)", X),
        ("builtins.max", "three", "max(x, y, 0.5)",
         {"x": ((), uni(-2.0, 0.4)), "y": ((), uni(0.6, 2.0))}),
        ("builtins.min", "iterable", "min([x, y])",
         {"x": ((), uni(-2.0, -0.1)), "y": ((), uni(0.1, 2.0))}),
    ]
    out += [make(rule, f"either/{name}", expr, inputs, kind="either")
            for rule, name, expr, inputs in either]
    return out


def cases():
    return special_cases() + tie_cases() + refusal_cases()
