"""`.source` before the first call: the derivative for argument kinds
guessed from the function's source. A function that works when called
never raises an internal error there: the guess makes an argument an array
where the source needs one, and a guess that still does not fit says to
call the derivative first."""
import ast
import importlib.util
import inspect
import os
import re
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad.guessed_kinds import GuessedKindsError, guess_kinds
from s2sad.transforms.analysis import kinds as K
from gradcheck import numerical_grad

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


# ---- functions whose operations need arrays -------------------------------------------

def matmul_sum(A, B):
    return np.sum(np.sin(A @ B))


def matmul_vector(W, x):
    h = W @ x
    s = 0.0
    for i in range(h.shape[0]):
        s += np.tanh(h[i]) * x[i]
    return s


def dot_product(W, x):
    return np.sum(np.dot(W, x) ** 2)


def solve_system(A, b):
    return np.sum(np.linalg.solve(A + 4.0 * np.eye(A.shape[0]), b))


def log_det(A):
    return np.linalg.det(A @ A.T + np.eye(A.shape[0]))


def inverse_trace(A):
    return np.trace(np.linalg.inv(A @ A.T + np.eye(3)))


def vector_norm(x):
    return np.linalg.norm(x) ** 2


def reduce_rows(x):
    return np.sum(np.sum(x, axis=1) ** 2)


def method_axis(x):
    return np.sum(x.mean(axis=-2) ** 2)


def transposed(x, c):
    return np.sum(x.T * c)


def shape_loop(x, k):
    e = 0.0
    for i in range(x.shape[0]):
        e += k * np.sin(x[i]) ** 2
    return e


def scaled_then_indexed(x, k):
    y = 2.0 * x
    return y[0] * k


def iterated(x):
    s = 0.0
    for v in x:
        s += v * v
    return s


def counted(x):
    return len(x) * np.sum(x)


def einsum_pair(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)


def reduced_then_multiplied(x):
    return np.sum(np.sum(x ** 2, axis=0) @ np.ones(3))


def singular_values(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[1])


def _gram(a):
    return a.T @ a


def through_helper(x, c):
    return np.sum(_gram(x)) * c


NEEDS_ARRAYS = [
    (matmul_sum, [K.array(2), K.array(2)]),
    (matmul_vector, [K.array(2), K.array(1)]),
    (dot_product, [K.array(2), K.array(2)]),
    (solve_system, [K.array(2), K.array(1)]),
    (log_det, [K.array(2)]),
    (inverse_trace, [K.array(2)]),
    (vector_norm, [K.array(1)]),
    (reduce_rows, [K.array(2)]),
    (method_axis, [K.array(2)]),
    (transposed, [K.array(2), K.FLOAT]),
    (shape_loop, [K.array(1), K.FLOAT]),
    (scaled_then_indexed, [K.array(1), K.FLOAT]),
    (iterated, [K.array(1)]),
    (counted, [K.array(1)]),
    (einsum_pair, [K.array(2), K.array(2)]),
    (through_helper, [K.array(2), K.FLOAT]),
    (reduced_then_multiplied, [K.array(3)]),  # (@'s operand a matrix: a sum over an axis of 3)
    (singular_values, [K.array(2)]),
]


def _value(kind, rng):
    """A real argument of `kind` (square arrays: products and solves fit)."""
    if kind.is_array:
        return rng.uniform(0.5, 1.5, (3,) * kind.ndim)
    if kind.tag == "int":
        return 3
    if kind.tag == "bool":
        return True
    if kind.tag == "none":
        return None
    if kind.tag == "str":
        return kind.text
    return 0.7


@pytest.mark.parametrize("fn, expected", NEEDS_ARRAYS, ids=[f.__name__ for f, _ in NEEDS_ARRAYS])
def test_source_before_a_call_guesses_the_arrays_an_operation_needs(fn, expected, jit):
    assert guess_kinds(fn) == expected
    # (numba has no np.einsum: its derivative runs as Python)
    d = s2sad.grad(fn, jit=jit and fn is not einsum_pair)
    before = d.source
    args = [_value(k, np.random.default_rng(0)) for k in expected]
    got = d(*args)
    assert d.source == before
    np.testing.assert_allclose(got, numerical_grad(fn, args, 0), rtol=1e-6, atol=1e-8)


def test_source_before_a_call_of_the_reported_function():
    # `.source` raised LookupError: the gradient rule of @ implements its
    # parameter 'x' for an array ... here it is `A` (float)
    src = s2sad.grad(matmul_sum).source
    assert "def grad_matmul_sum(A, B):" in src


def _needs_a_string(x, mode):
    if mode.startswith("sq"):  # a method of a str, which the guess takes for an array's
        return x * x
    return x


def test_a_guess_that_does_not_fit_says_to_call_first(tmp_path):
    d = s2sad.grad(_needs_a_string, jit=False)
    with pytest.raises(GuessedKindsError) as info:
        d.source
    text = str(info.value)
    assert "_needs_a_string" in text and "guessed from the source" in text
    assert "Call the derivative once" in text and ".source_for(*args)" in text
    assert info.value.__cause__ is not None
    with pytest.raises(GuessedKindsError, match="Call the derivative once"):
        s2sad.export(d, str(tmp_path / "out.py"))  # (before a call: for the guessed kinds)
    assert d(1.5, "square") == 3.0  # the function works when called
    assert "def grad__needs_a_string(x, mode):" in d.source


# ---- every function of the examples and of the README ---------------------------------

def _example_functions():
    out = []
    folder = os.path.join(ROOT, "examples")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        spec = importlib.util.spec_from_file_location(f"_examples_{name[:-3]}",
                                                      os.path.join(folder, name))
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except ImportError:  # an optional dependency (dask.distributed)
            continue
        for obj in vars(module).values():
            fn = getattr(obj, "fn", obj)  # (a custom gradient's function)
            if inspect.isfunction(fn) and fn.__module__ == module.__name__ \
                    and inspect.signature(fn).parameters:
                out.append((f"examples/{name}:{fn.__name__}", obj))
    return out


def _readme_functions(tmp_path):
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    out = []
    for k, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
        try:
            tree = ast.parse(textwrap.dedent(block))
        except SyntaxError:
            continue
        lines = block.splitlines()
        for node in tree.body:
            # plain functions, and those decorated with s2sad.grad (not rules or templates)
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("grad_") or any(
                    ast.unparse(d) != "s2sad.grad" for d in node.decorator_list):
                continue
            body = "\n".join(lines[node.lineno - 1:node.end_lineno])
            path = tmp_path / f"readme_{k}_{node.name}.py"
            path.write_text("import math\nimport numpy as np\nimport s2sad\n"
                            "from numba import prange\n\n\n" + body + "\n")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            out.append((f"README.md block {k}:{node.name}", getattr(module, node.name)))
    return out


def test_every_example_and_readme_function_has_source_before_a_call(tmp_path):
    functions = _example_functions() + _readme_functions(tmp_path)
    assert len(functions) >= 25, [n for n, _ in functions]
    shown = 0
    for name, fn in functions:
        d = s2sad.grad(fn, jit=False)
        try:
            before = d.source
        except GuessedKindsError as exc:
            assert "Call the derivative once" in str(exc), name
            continue
        except s2sad.S2sadError as exc:  # (not a derivative's function: main(), run())
            with pytest.raises(type(exc)):
                d(*[0.7] * len(inspect.signature(d.fn).parameters))
            continue
        shown += 1
        kinds = guess_kinds(d.fn)
        args = [_value(k, np.random.default_rng(1)) for k in kinds]
        try:
            d(*args)
        except Exception:  # noqa: BLE001 - values the function cannot take (its own checks)
            after = d.source_for(*args)
        else:
            after = d.source
        assert after == before, name
    assert shown >= 0.8 * len(functions), shown


def _reads_fields(p, x):
    return np.sum(p.w * x) + p.b


def test_a_record_argument_is_named_with_its_field():
    """(The guess took p for an array and reported numpy's AttributeError.)"""
    with pytest.raises(GuessedKindsError) as info:
        s2sad.grad(_reads_fields, jit=False).source
    text = str(info.value)
    assert "p.w reads a field" in text and "NamedTuple" in text
    assert "Call the derivative once" in text
