"""Every gradient template against finite differences, jit on and off.

The one-line test functions are written to a module file (s2sad reads
source code) and imported."""
import importlib.util
import math  # noqa: F401
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(1)


def _unit(*shape):
    return rng.uniform(0.2, 0.8, shape) if shape else float(rng.uniform(0.2, 0.8))


def _big(*shape):
    return rng.uniform(1.2, 2.0, shape) if shape else float(rng.uniform(1.2, 2.0))


MATH_UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
              "atanh", "exp", "expm1", "log", "log1p", "log10", "log2", "sqrt", "fabs",
              "lgamma", "gamma", "erf", "erfc", "degrees", "radians"]
MATH_BINARY = ["atan2", "pow", "hypot", "log"]
NP_UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
            "arcsinh", "arctanh", "exp", "exp2", "expm1", "log", "log1p", "log10", "log2",
            "sqrt", "cbrt", "square", "reciprocal", "abs", "absolute", "negative", "fabs"]
NP_BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
             "arctan2", "hypot", "logaddexp"]
OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}
SHAPES = [((3, 1), (1, 4)), ((4,), (3, 4)), ((), (3, 2)), ((2, 3), ()), ((5,), (5,))]

# the body of each function under test, keyed by test id
CASES = {}
for name in MATH_UNARY:
    CASES[f"math_{name}"] = (f"math.{name}(x)", [_unit()])
CASES["math_acosh"] = ("math.acosh(x)", [_big()])
for name in MATH_BINARY:
    CASES[f"math2_{name}"] = (f"math.{name}(x, y)", [_unit(), _big()])
for name in NP_UNARY:
    CASES[f"np_{name}"] = (f"np.{name}(x)", [_unit(3, 2)])
CASES["np_arccosh"] = ("np.arccosh(x)", [_big(4)])
for name in NP_BINARY:
    for k, (sx, sy) in enumerate(SHAPES):
        CASES[f"np2_{name}_{k}"] = (f"np.{name}(x, y)", [_unit(*sx), _big(*sy)])
for name, op in OPERATORS.items():
    for k, (sx, sy) in enumerate(SHAPES):
        CASES[f"op_{name}_{k}"] = (f"x {op} y", [_unit(*sx), _big(*sy)])
CASES.update({
    "op_neg": ("-x * x", [_unit(4)]),
    "op_mod": ("(x * 7.0) % y", [_unit(4), 0.3]),
    "int_power": ("x ** 3 + x ** -2", [_unit(4)]),
    "builtin_abs": ("abs(x - 0.5) * x", [_unit()]),
    "builtin_min_max": ("min(x, y) + max(x * y, 0.3)", [_unit(), _big()]),
    "builtin_pow": ("pow(x, y)", [_unit(), _big()]),
    "np_where": ("np.where(x > 0.5, x * y, y * y)", [_unit(3, 4), _big(4)]),
    "np_clip": ("np.clip(x, 0.3, 0.6) * y", [_unit(8), _big(8)]),
    "sum": ("np.sum(x * x)", [_unit(3, 4)]),
    "sum_axis0": ("np.sum(x, axis=0) * y", [_unit(3, 4), _big(4)]),
    "sum_axis1": ("np.sum(x, axis=1) * y", [_unit(3, 4), _big(3)]),
    "sum_method": ("x.sum(axis=1) * y + x.sum()", [_unit(3, 4), _big(3)]),
    "sum_3d": ("np.sum(x, axis=2) * y", [_unit(2, 3, 4), _big(2, 3)]),
    "mean": ("np.mean(x) + np.mean(x, axis=0) * y", [_unit(3, 4), _big(4)]),
    "mean_method": ("x.mean(axis=1) * y", [_unit(3, 4), _big(3)]),
    "prod": ("np.prod(x) + np.prod(x, axis=1) * y", [_unit(3, 4), _big(3)]),
    "np_max": ("np.max(x) + np.max(x, axis=0) * y", [_unit(3, 4), _big(4)]),
    "np_min": ("np.min(x) * 2.0 + np.amin(x, axis=1) * y + x.max()", [_unit(3, 4), _big(3)]),
    "cumsum": ("np.cumsum(x) * y", [_unit(5), _big(5)]),
    "dot_vv": ("np.dot(x, y)", [_unit(4), _big(4)]),
    "dot_mv": ("np.dot(x, y)", [_unit(3, 4), _big(4)]),
    "dot_vm": ("np.dot(y, x)", [_unit(3, 4), _big(3)]),
    "dot_mm": ("np.dot(x, y)", [_unit(3, 4), _big(4, 2)]),
    "matmul_mm": ("x @ y", [_unit(3, 4), _big(4, 2)]),
    "matmul_mv": ("x @ y", [_unit(3, 4), _big(4)]),
    "matmul_vv": ("x @ y", [_unit(4), _big(4)]),
    "outer": ("np.outer(x, y) * np.outer(x, y)", [_unit(3), _big(4)]),
    "transpose": ("np.transpose(x) * y", [_unit(3, 4), _big(4, 3)]),
    "transpose_axes": ("np.transpose(x, (2, 0, 1)) * y", [_unit(2, 3, 4), _big(4, 2, 3)]),
    "dot_T": ("x.T * y", [_unit(3, 4), _big(4, 3)]),
    "reshape": ("np.reshape(x, (4, 3)) * y", [_unit(3, 4), _big(4, 3)]),
    "reshape_method": ("x.reshape((2, 6)) * y", [_unit(3, 4), _big(2, 6)]),
    "ravel": ("np.ravel(x) * y", [_unit(3, 4), _big(12)]),
    "concatenate": ("np.concatenate((x, y, x)) * np.arange(11.0)", [_unit(4), _big(3)]),
    "concatenate_axis1": ("np.concatenate((x, y), axis=1) * x[0, 0]",
                          [_unit(2, 3), _big(2, 2)]),
    "stack": ("np.stack((x, y)) * np.ones((2, 3)) * x", [_unit(3), _big(3)]),
    "stack_axis1": ("np.stack((x, y), axis=1) * 2.0 * y[0]", [_unit(3), _big(3)]),
    "norm": ("np.linalg.norm(x) * y", [_unit(5), _big()]),
    "det": ("np.linalg.det(x)", [_unit(3, 3) + 2.0 * np.eye(3)]),
    "inv": ("np.sum(np.linalg.inv(x) * y)", [_unit(3, 3) + 2.0 * np.eye(3), _big(3, 3)]),
    "solve": ("np.sum(np.linalg.solve(x, y) * y)", [_unit(3, 3) + 2.0 * np.eye(3), _big(3)]),
    "copy": ("np.copy(x) * np.array((y, y * y))", [_unit(2), _big()]),
})


# numba itself cannot compile these calls (axis= on mean/prod/max/min,
# math.log with a base): the derivative runs as Python, with a warning.
NUMBA_CANNOT = {"math2_log"}  # (math.log(x, base): numba has the one-argument form only)


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    """A module with one function per case."""
    path = tmp_path_factory.mktemp("rules") / "rule_cases.py"
    lines = ["import math", "import numpy as np", ""]
    for case, (expr, args) in CASES.items():
        params = ", ".join("xy"[: len(args)])
        lines += [f"def {case}({params}):", f"    return {expr}", ""]
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("rule_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", list(CASES))
def test_rule(case, functions, jit):
    expr, args = CASES[case]
    f = getattr(functions, case)
    wrt = tuple(range(len(args)))
    if jit and case in NUMBA_CANNOT:
        with pytest.warns(s2sad.NumbaFallbackWarning, match=case):
            check_grad(f, args, wrt=wrt, jit=jit, rtol=1e-4, atol=1e-6)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        check_grad(f, args, wrt=wrt, jit=jit, rtol=1e-4, atol=1e-6)


def _max_times_three(x):
    return 3.0 * np.max(x)


def test_max_shares_the_cotangent_among_ties(jit):
    """Finite differences cannot see a tie (max is not differentiable there):
    the rule gives each tied element an equal share, as TensorFlow does."""
    x = np.array([[1.0, 4.0, 2.0], [4.0, 0.5, 4.0]])
    g = s2sad.grad(_max_times_three, jit=jit)(x)
    assert np.array_equal(g, np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]))


def _maximum_pair(x, y):
    return np.maximum(x, y)


def _minimum_pair(x, y):
    return np.minimum(x, y)


def _clip_three(x, lo, hi):
    return np.clip(x, lo, hi)


def _clip_lower(x, lo):
    return np.clip(x, lo, None)


def _relu_sum(x):
    return np.sum(np.maximum(x, 0.0))


@pytest.mark.parametrize("f, args, want", [
    (_maximum_pair, (0.7, 0.7), (0.5, 0.5)),
    (_maximum_pair, (0.7, 0.2), (1.0, 0.0)),
    (_minimum_pair, (0.7, 0.7), (0.5, 0.5)),
    (_minimum_pair, (0.7, 0.2), (0.0, 1.0)),
    (_clip_three, (0.2, 0.2, 0.5), (0.5, 0.5, 0.0)),   # at the lower bound
    (_clip_three, (0.5, 0.2, 0.5), (0.5, 0.0, 0.5)),   # at the upper bound
    (_clip_three, (0.3, 0.2, 0.5), (1.0, 0.0, 0.0)),
    (_clip_three, (0.3, 0.6, 0.5), (0.0, 0.0, 1.0)),   # a_min > a_max: a_max wins
    (_clip_three, (0.5, 0.5, 0.5), (0.25, 0.25, 0.5)),
    (_clip_lower, (0.2, 0.2), (0.5, 0.5)),
])
def test_maximum_minimum_and_clip_share_ties_as_jax(f, args, want, jit):
    """Finite differences cannot see a tie: np.maximum, np.minimum and
    np.clip (their composition) share it equally, as JAX's, autograd's and
    PyTorch's maximum do (JAX's clip is the same composition)."""
    got = s2sad.grad(f, wrt=tuple(range(len(args))), jit=jit)(*args)
    assert np.allclose(got, want, rtol=0, atol=1e-15), (got, want)


def test_relu_at_zero_is_half(jit):
    g = s2sad.grad(_relu_sum, jit=jit)(np.array([0.0, 1.5, -1.5]))
    assert np.array_equal(g, [0.5, 1.0, 0.0])


_SHAPES_MODEL = '''
import numpy as np


def model(x, y):
    z = np.hstack((np.sort(x), y))
    return np.sum(np.diff(z) ** 2) + np.std(x) * np.sum(np.kron(x, y))
'''

_SHAPES_RUN = '''
import json, sys
sys.modules["s2sad"] = None  # s2sad is not importable here
import numpy as np
import exported_shapes
value, (dx, dy) = exported_shapes.{entry}(np.array([0.3, -1.2, 0.7]), np.array([2.0, 0.5]))
print(json.dumps({{"dx": dx.tolist(), "dy": dy.tolist()}}))
'''


def test_export_copies_the_shape_helpers(tmp_path):
    """An exported derivative that calls helpers of s2sad.runtime.shapes
    (unpermute, unstack_nd, undiff, unkron_*) runs without s2sad, compiled."""
    import json
    import subprocess
    import sys
    (tmp_path / "shapes_model.py").write_text(_SHAPES_MODEL)
    sys.path.insert(0, str(tmp_path))
    try:
        import shapes_model
        df = s2sad.value_and_grad(shapes_model.model, wrt=(0, 1), jit=False)
        x, y = np.array([0.3, -1.2, 0.7]), np.array([2.0, 0.5])
        _, (dx, dy) = df(x, y)
        entry = s2sad.export(df, str(tmp_path / "exported_shapes.py"))
    finally:
        sys.path.remove(str(tmp_path))
    source = (tmp_path / "exported_shapes.py").read_text()
    assert "def unpermute(" in source
    assert not any(line.startswith(("from s2sad", "import s2sad")) for line in source.splitlines())
    out = subprocess.run([sys.executable, "-c", _SHAPES_RUN.format(entry=entry)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    np.testing.assert_allclose(got["dx"], dx, rtol=1e-12)
    np.testing.assert_allclose(got["dy"], dy, rtol=1e-12)


def test_every_builtin_template_passes_its_registration_checks():
    # (they wait while the built-in rules load: s2sad/registry.py, check_template)
    import s2sad.rules  # noqa: F401
    from s2sad import libraries, registry
    libraries.load_all()  # (scipy's rules too)
    assert len(registry._deferred) > 200
    registry.run_deferred_checks()


def test_a_template_that_ignores_a_parameter_is_refused_at_registration():
    from s2sad.extend import AXIS, adjoint
    from s2sad.transforms.errors import S2sadTypeError

    def total(x, axis=None):
        return np.sum(x, axis=axis)

    with pytest.raises(S2sadTypeError, match="never reads axis"):
        @adjoint(total, kind=lambda args, kws: args[0], values={"axis": AXIS})
        def total_grad(g, ans, x, axis=None):
            return (g * np.ones_like(x),)
