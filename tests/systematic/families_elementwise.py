"""Elementwise rules: numpy ufuncs, `math`, builtins and the operators, at
ranks 0-3, with broadcasting partners, literal partners and every spelling
(np.add(x, y), x + y, operator.add(x, y)), inside each function's domain."""
import numpy as np

from .cases import SHAPES, const, make, rank_name, signed, uni

ANY = uni(-2.0, 2.0)

# numpy spelling -> domain (rule name: numpy.<ufunc.__name__>)
NP_UNARY = {
    "sin": uni(-1.5, 1.5), "cos": uni(-1.5, 1.5), "tan": uni(-1.2, 1.2),
    "arcsin": uni(-0.9, 0.9), "arccos": uni(-0.9, 0.9), "arctan": ANY,
    "sinh": ANY, "cosh": ANY, "tanh": ANY, "arcsinh": ANY, "arccosh": uni(1.2, 3.0),
    "arctanh": uni(-0.9, 0.9), "exp": ANY, "exp2": ANY, "expm1": ANY,
    "log": uni(0.2, 3.0), "log1p": uni(-0.8, 2.0), "log10": uni(0.2, 3.0),
    "log2": uni(0.2, 3.0), "sqrt": uni(0.2, 3.0), "cbrt": signed(0.2, 2.0), "square": ANY,
    "reciprocal": signed(0.3, 2.0), "absolute": signed(0.1, 2.0), "abs": signed(0.1, 2.0),
    "fabs": signed(0.1, 2.0), "negative": ANY, "positive": ANY,
}

MATH_UNARY = {
    "sin": ANY, "cos": ANY, "tan": uni(-1.2, 1.2), "asin": uni(-0.9, 0.9),
    "acos": uni(-0.9, 0.9), "atan": ANY, "sinh": ANY, "cosh": ANY, "tanh": ANY,
    "asinh": ANY, "acosh": uni(1.2, 3.0), "atanh": uni(-0.9, 0.9), "exp": ANY,
    "expm1": ANY, "log": uni(0.2, 3.0), "log1p": uni(-0.8, 2.0), "log10": uni(0.2, 3.0),
    "log2": uni(0.2, 3.0), "sqrt": uni(0.2, 3.0), "fabs": signed(0.1, 2.0),
    "lgamma": uni(0.3, 3.0), "gamma": uni(0.3, 3.0), "erf": ANY, "erfc": ANY,
    "degrees": ANY, "radians": ANY, "cbrt": signed(0.2, 2.0),
}


def _apart(gap=0.05):
    return lambda x, y, *rest: bool(np.all(np.abs(np.subtract(x, y)) >= gap))


def _mod_ok(x, y, *rest):
    frac = np.mod(np.divide(x, y), 1.0)
    return bool(np.all((frac > 0.02) & (frac < 0.98)))


# name -> (domain of x, domain of y, valid)
NP_BINARY = {
    "add": (ANY, ANY, None), "subtract": (ANY, ANY, None), "multiply": (ANY, ANY, None),
    "divide": (ANY, signed(0.5, 2.0), None), "true_divide": (ANY, signed(0.5, 2.0), None),
    "power": (uni(0.3, 2.0), uni(-1.5, 2.5), None),
    "maximum": (ANY, ANY, _apart()), "minimum": (ANY, ANY, _apart()),
    "arctan2": (signed(0.2, 2.0), signed(0.2, 2.0), None),
    "hypot": (signed(0.2, 2.0), ANY, None), "logaddexp": (ANY, ANY, None),
    "float_power": (uni(0.3, 2.0), uni(-1.5, 2.5), None),
}

# operator name -> (infix, numpy twin whose domain it takes)
OPERATORS = {"add": ("+", "add"), "sub": ("-", "subtract"), "mul": ("*", "multiply"),
             "truediv": ("/", "divide"), "pow": ("**", "power"), "mod": ("%", None)}
MOD_DOMAIN = (uni(0.1, 3.0), uni(0.5, 1.5), _mod_ok)

MATH_BINARY = {"atan2": (signed(0.2, 2.0), signed(0.2, 2.0), None),
               "pow": (uni(0.3, 2.0), uni(-1.5, 2.5), None),
               "hypot": (signed(0.2, 2.0), ANY, None),
               "copysign": (signed(0.1, 2.0), signed(0.1, 2.0), None),
               "log": (uni(0.2, 3.0), uni(1.5, 4.0), None),
               "fmod": (uni(0.1, 3.0), uni(0.5, 1.5), _mod_ok)}

PAIRS = [((), ()), ((), (3,)), ((3,), ()), ((3,), (3,)), ((3,), (2, 3)), ((2, 3), (3,)),
         ((2, 1), (1, 3)), ((2, 3, 4), (3, 4)), ((2, 1, 4), (3, 1))]
OP_FUNCTION_PAIRS = [((), ()), ((2, 3), (3,)), ((2, 1), (1, 3))]


def _pair_name(sx, sy):
    return f"{rank_name(sx)}_{rank_name(sy)}"


def unary_cases():
    out = []
    for spelling, dom in NP_UNARY.items():
        rule = f"numpy.{getattr(np, spelling).__name__}"
        for r, shape in SHAPES.items():
            out.append(make(rule, f"np.{spelling}/{rank_name(shape)}", f"np.{spelling}(x)",
                            {"x": (shape, dom)}))
    for name, dom in MATH_UNARY.items():
        out.append(make(f"math.{name}", f"math.{name}/s", f"math.{name}(x)", {"x": ((), dom)}))
    for name in ("gamma", "lgamma"):  # negative, away from the poles
        out.append(make(f"math.{name}", f"math.{name}/negative", f"math.{name}(x)",
                        {"x": ((), uni(-1.8, -1.2))}))
    for r, shape in SHAPES.items():
        n = rank_name(shape)
        out.append(make("operator.neg", f"-x/{n}", "-x", {"x": (shape, ANY)}))
        out.append(make("builtins.abs", f"abs/{n}", "abs(x)", {"x": (shape, signed(0.1, 2.0))}))
    out.append(make("operator.neg", "operator.neg/2x3", "operator.neg(x)",
                    {"x": ((2, 3), ANY)}))
    out.append(make("operator.neg", "-(x*y)/s", "-(x * y)", {"x": ((), ANY), "y": ((), ANY)}))
    out.append(make("builtins.float", "float(x)/s", "float(x) * x", {"x": ((), ANY)}))
    out.append(make("builtins.float", "float(np.sum(x))/3", "float(np.sum(x))",
                    {"x": ((3,), ANY)}))
    out.append(make("builtins.float", "float(x[1])/3", "float(x[1]) * x", {"x": ((3,), ANY)}))
    out.append(make("numpy.float64", "np.float64(x)/s", "np.float64(x) * x", {"x": ((), ANY)}))
    out.append(make("numpy.float64", "np.float64(x[1])/3", "np.float64(x[1]) * x",
                    {"x": ((3,), ANY)}))
    out.append(make("numpy.float64", "np.float64(x)/3x2", "np.float64(x) * x",
                    {"x": ((3, 2), ANY)}))
    return out


def _binary(rule, name, expr, sx, sy, dom, extra=None, **kw):
    dx, dy, valid = dom
    inputs = {"x": (sx, dx), "y": (sy, dy)}
    if extra:
        inputs.update(extra)
    return make(rule, name, expr, inputs, valid=valid, **kw)


def binary_cases():
    out = []
    for name, dom in NP_BINARY.items():
        rule = f"numpy.{getattr(np, name).__name__}"
        for sx, sy in PAIRS:
            out.append(_binary(rule, f"np.{name}/{_pair_name(sx, sy)}", f"np.{name}(x, y)",
                               sx, sy, dom))
        if name != "power":  # literal partners (power's are in families_special)
            dx, dy, valid = dom
            lit_y = {"divide": "1.5", "true_divide": "-0.7", "arctan2": "0.8"}.get(name, "0.4")
            lit_x = {"arctan2": "-0.8"}.get(name, "1.5")
            good = (lambda v: valid(v, float(lit_y))) if valid else None
            out.append(make(rule, f"np.{name}/2x3_lit", f"np.{name}(x, {lit_y})",
                            {"x": ((2, 3), dx)}, valid=good))
            good = (lambda v: valid(float(lit_x), v)) if valid else None
            out.append(make(rule, f"np.{name}/lit_2x3", f"np.{name}({lit_x}, x)",
                            {"x": ((2, 3), dy)}, valid=good))
    for name, (infix, twin) in OPERATORS.items():
        dom = NP_BINARY[twin] if twin else MOD_DOMAIN
        rule = f"operator.{name}"
        for sx, sy in PAIRS:
            out.append(_binary(rule, f"x{infix}y/{_pair_name(sx, sy)}", f"x {infix} y",
                               sx, sy, dom))
        for sx, sy in OP_FUNCTION_PAIRS:
            out.append(_binary(rule, f"operator.{name}/{_pair_name(sx, sy)}",
                               f"operator.{name}(x, y)", sx, sy, dom))
        if name != "pow":
            lit = "0.7" if name == "mod" else "1.5"
            valid = (lambda v: _mod_ok(v, 0.7)) if name == "mod" else None
            out.append(make(rule, f"x{infix}lit/2x3", f"x {infix} {lit}", {"x": ((2, 3), dom[0])},
                            valid=valid))
            valid = (lambda v: _mod_ok(2.3, v)) if name == "mod" else None
            out.append(make(rule, f"lit{infix}x/2x3", f"2.3 {infix} x", {"x": ((2, 3), dom[1])},
                            valid=valid))
    for name, dom in MATH_BINARY.items():
        out.append(_binary(f"math.{name}", f"math.{name}/s_s", f"math.{name}(x, y)",
                           (), (), dom))
    out.append(make("math.log", "math.log/base_lit", "math.log(x, 2.0)", {"x": ((), uni(0.2, 3))}))
    out.append(make("math.log", "math.log/base_int", "math.log(x, 10)", {"x": ((), uni(0.2, 3))}))
    out.append(make("math.pow", "math.pow/x_lit", "math.pow(x, 2.5)", {"x": ((), uni(0.3, 2))}))
    out.append(make("math.pow", "math.pow/lit_x", "math.pow(1.7, x)", {"x": ((), ANY)}))
    out.append(make("math.atan2", "math.atan2/lit", "math.atan2(x, -1.5)",
                    {"x": ((), signed(0.2, 2.0))}))
    out.append(make("math.hypot", "math.hypot/lit", "math.hypot(x, 3.0)", {"x": ((), ANY)}))
    out.append(make("math.copysign", "math.copysign/lit", "math.copysign(x, -1.0)",
                    {"x": ((), signed(0.1, 2.0))}))
    for name in ("min", "max"):
        out.append(_binary(f"builtins.{name}", f"{name}/s_s", f"{name}(x, y)", (), (),
                           (ANY, ANY, _apart())))
        out.append(make(f"builtins.{name}", f"{name}/lit", f"{name}(x, 0.3) * x",
                        {"x": ((), ANY)}, valid=lambda v: abs(v - 0.3) >= 0.05))
    for sx, sy in [((), ()), ((3,), ()), ((2, 3), (3,)), ((2, 1), (1, 3))]:
        out.append(_binary("builtins.pow", f"pow/{_pair_name(sx, sy)}", "pow(x, y)", sx, sy,
                           NP_BINARY["power"]))
    out.append(_binary("builtins.pow", "pow/keywords", "pow(base=x, exp=y)", (), (),
                       NP_BINARY["power"]))
    out.append(make("builtins.pow", "pow/lit_int", "pow(x, 3)", {"x": ((3,), ANY)}))
    return out


def _bools(rng, shape):
    return rng.uniform(size=shape) > 0.5


def where_clip_cases():
    out = []
    for sc, sx, sy in [((3,), (3,), (3,)), ((2, 3), (3,), ()), ((2, 1), (1, 3), (2, 3)),
                       ((2, 3, 4), (3, 4), (2, 1, 4)), ((), (3,), (3,))]:
        out.append(make("numpy.where", f"where/{rank_name(sc)}_{rank_name(sx)}_{rank_name(sy)}",
                        "np.where(c, x, y)",
                        {"c": (sc, _bools), "x": (sx, ANY), "y": (sy, ANY)}))
    out.append(make("numpy.where", "where/leaky", "np.where(x > 0.0, x, 0.1 * x)",
                    {"x": ((2, 3), signed(0.1, 2.0))}))
    out.append(make("numpy.where", "where/compare", "np.where(x > y, x, y)",
                    {"x": ((2, 3), ANY), "y": ((3,), ANY)}, valid=_apart()))
    out.append(make("numpy.where", "where/lit", "np.where(c, x, 2.0)",
                    {"c": ((2, 3), _bools), "x": ((2, 3), ANY)}))
    out.append(make("numpy.where", "where/pybool", "np.where(c, x, y)",
                    {"c": ((), const(True)), "x": ((3,), ANY), "y": ((3,), ANY)}, kind="either"))
    away = lambda *args: bool(np.all(np.abs(np.abs(args[0]) - 0.5) >= 0.05))  # noqa: E731
    for r, shape in SHAPES.items():
        out.append(make("numpy.clip", f"clip/{rank_name(shape)}", "np.clip(x, -0.5, 0.5)",
                        {"x": (shape, uni(-1.0, 1.0))}, valid=away))
    spellings = {"keywords": "np.clip(x, a_min=-0.5, a_max=0.5)",
                 "all_keywords": "np.clip(a=x, a_min=-0.5, a_max=0.5)",
                 "method": "x.clip(-0.5, 0.5)"}
    for name, expr in spellings.items():
        out.append(make("numpy.clip", f"clip/{name}", expr, {"x": ((2, 3), uni(-1.0, 1.0))},
                        valid=away))

    def bounds_ok(x, lo, hi):
        return bool(np.all(np.abs(x - lo) >= 0.05) and np.all(np.abs(x - hi) >= 0.05))
    for name, expr in {"args": "np.clip(x, y, z)", "method_args": "x.clip(y, z)"}.items():
        out.append(make("numpy.clip", f"clip/{name}", expr,
                        {"x": ((2, 3), uni(-1.0, 1.0)), "y": ((3,), uni(-0.6, -0.2)),
                         "z": ((), uni(0.2, 0.6))}, valid=bounds_ok))
    out.append(make("numpy.clip", "clip/arg_lit", "np.clip(x, y, 0.5)",
                    {"x": ((3,), uni(-1.0, 1.0)), "y": ((), uni(-0.6, -0.2))},
                    valid=lambda x, y: bounds_ok(x, y, 0.5)))
    return out


def cases():
    return unary_cases() + binary_cases() + where_clip_cases()
