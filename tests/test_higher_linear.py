"""Second and third derivatives through the rules of numpy's linear (or
locally linear) functions, whose gradients are the runtime helpers that are
linear (unrepeat, undiff, concatenate_parts, ...): each case is
f(x) = sum(sin(L(x))), whose gradient is M^T cos(L(x)) with M the Jacobian
of L (exact by central differences: L is linear where it is evaluated).
Checked against finite differences of that gradient (higher_orders.py),
forward over reverse, reverse over reverse and to third order, jit on and
off. The one-line functions are written to a module file (s2sad reads
source code) and imported."""
import importlib.util

import numpy as np
import pytest

import s2sad
from higher_orders import MODES, check_orders, jacobian_by_differences

# x: six distinct values (sort and max are linear around it)
X = np.array([0.3, -0.5, 0.7, 0.9, -0.4, 0.6])

# name: (L(x) written in numpy, numba cannot compile the derivatives)
CASES = {
    # broadcasting and reductions
    "sum_axis": ("np.sum(x.reshape(2, 3), axis=0)", False),
    "mean_keepdims": ("np.mean(x.reshape(2, 3), axis=1, keepdims=True) - 0.5 * x.reshape(2, 3)",
                      False),
    "max_axis": ("np.max(x.reshape(2, 3), axis=0)", False),
    "cumsum": ("np.cumsum(x)", False),
    "cumsum_axis": ("np.cumsum(x.reshape(2, 3), axis=1)", False),
    # shapes and stacks
    "concatenate": ("np.concatenate((x, x[1:4]))", False),
    "stack": ("np.stack((x[:3], x[3:]), axis=1)", False),
    "vstack": ("np.vstack((x[:3], x[3:]))", False),
    "column_stack": ("np.column_stack((x[:3], x[3:]))", False),
    "split": ("np.split(x, 2)[0] - 2.0 * np.split(x, 2)[1]", False),
    "append": ("np.append(x[:2], x[3:])", False),
    "append_axis": ("np.append(x.reshape(2, 3), x[:3].reshape(1, 3), axis=0)", False),
    "transpose": ("np.transpose(x.reshape(1, 2, 3), (2, 0, 1))", False),
    "rollaxis": ("np.rollaxis(x.reshape(1, 2, 3), 2)", True),
    "sort": ("np.sort(x)", False),
    "take_columns": ("x.reshape(2, 3)[:, np.array([0, 2, 0])]", False),
    "index_repeated": ("x[np.array([1, 1, 4])]", False),
    # diagonals
    "diag": ("np.diag(x.reshape(2, 3), 1)", False),
    "trace_stack": ("np.trace(x.reshape(1, 2, 3), axis1=1, axis2=2)", True),
    # differences
    "diff": ("np.diff(x, 2)", False),
    "diff_axis": ("np.diff(x.reshape(2, 3), axis=1)", False),
    "gradient": ("np.gradient(x)", True),
    # padding, tiling, repeating
    "pad": ("np.pad(x, (1, 2))", False),
    "pad_edge": ("np.pad(x.reshape(2, 3), 1, mode='edge')", False),
    "tile": ("np.tile(x[:3], (2, 2))", True),
    "repeat": ("np.repeat(x[:3], 2)", False),
    "repeat_axis": ("np.repeat(x.reshape(2, 3), 2, axis=1)", False),
    # a one-operand einsum (linear in its operand)
    "einsum_one": ("np.einsum('ij->j', x.reshape(2, 3))", False),
}


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    path = tmp_path_factory.mktemp("higher_linear") / "higher_linear_cases.py"
    lines = ["import numpy as np", ""]
    for case, (expr, _) in CASES.items():
        lines += [f"def {case}(x):", f"    return np.sum(np.sin({expr}))", "",
                  f"def linear_{case}(x):", f"    return {expr}", ""]
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("higher_linear_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gradient(linear):
    """M^T cos(L(x)), M the Jacobian of L at X (L is linear around X: its
    central differences are exact, whatever the step)."""
    m = jacobian_by_differences(linear, X, eps=1e-3)

    def grad_f(x):
        return (m.T @ np.cos(np.ravel(linear(x)))).reshape(x.shape)
    return grad_f


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(CASES))
def test_linear_rule_to_third_order(case, mode, functions, jit):
    f, linear = getattr(functions, case), getattr(functions, "linear_" + case)
    check_orders(f, _gradient(linear), X, mode, jit, falls_back=CASES[case][1])


def cube_sum(x):
    return np.sum(x * x * x)


def test_third_derivative_of_a_cube(jit):
    """grad(grad(grad(sum(x ** 3)))) is 6 for each element (d3/dx3 of x^3),
    through the cotangent broadcasts (unbroadcast, broadcast_like) the
    product rule makes."""
    x = np.array([1.0, -2.0, 0.5, 3.0])
    got = s2sad.grad(s2sad.grad(s2sad.grad(cube_sum, jit=jit), jit=jit), jit=jit)(x)
    np.testing.assert_allclose(got, np.full(4, 6.0), rtol=1e-12)
    # the Hessian of the gradient's sum: 6 on the diagonal
    np.testing.assert_allclose(s2sad.hessian(s2sad.grad(cube_sum, jit=jit), jit=jit)(x),
                               np.diag(np.full(4, 6.0)), rtol=1e-12, atol=1e-12)
