"""A simulation calling a plotting helper with `ax=None` compiles
(transforms/emit/objmode.py): the helper's method calls of its axes
(`ax.imshow(m)`, a method no array, number or container has) and its
f-strings with a format spec (`f"step{t:03d}.png"`, which numba cannot
read) run in object-mode blocks. autograd's fluidsim and wing examples fell
back to Python."""
import operator

import numpy as np

import s2sad
from gradcheck import check_grad


def plot_matrix(ax, m, t, render=False):
    if ax:
        ax.cla()
        ax.imshow(m)
        ax.set_xticks([])
        if render:
            ax.figure.savefig(f"step{t:03d}.png", bbox_inches="tight")
        print(f"frame {t:>4} max {np.max(m):.3f}")


def simulate(x, steps, ax=None, render=False):
    for t in range(steps):
        plot_matrix(ax, x, t, render)
        x = np.sin(x) * 1.1 + 0.1 * np.roll(x, 1)
    plot_matrix(ax, x, steps, render)
    return x


def objective(x):
    return np.mean(simulate(x, 4) ** 2)


X = np.array([[0.3, -0.5], [1.2, 0.1]])


def test_gradient(jit):
    check_grad(objective, [X], jit=jit)


def test_compiled_with_the_helper_in_object_mode():
    df = s2sad.grad(objective, jit="require")
    df(X)
    assert "with numba.objmode():\n            ax.imshow(m)" in df.source
    assert "format(t, '03d')" in df.source


class Axes:
    def __init__(self):
        self.calls = []

    def cla(self):
        self.calls.append("cla")

    def imshow(self, m):
        self.calls.append(m.shape)

    def set_xticks(self, ticks):
        pass


def test_the_helper_runs_as_python_given_axes(capsys):
    """As Python (jit=False) the blocks run their bodies: the axes given are drawn on."""
    ax = Axes()

    def drawn(x):
        return np.mean(simulate(x, 2, ax) ** 2)

    check_grad(drawn, [X], jit=False)
    assert ax.calls and ax.calls[0] == "cla"


def powered(x, y):
    # operator.pow is a module's function, no object's method: compiled as it
    # is, not an object-mode block (which a second derivative refuses)
    return operator.pow(x, y) * operator.truediv(x, 2.0)


def test_a_modules_function_is_no_objects_method(jit):
    d = s2sad.grad(powered, wrt=(0, 1), jit=jit)
    d(1.9, -1.4)
    assert "objmode" not in d.source
    h = s2sad.hessian(powered, wrt=0, jit=jit)(1.9, -1.4)
    x, y = 1.9, -1.4  # d2/dx2 of x**(y+1) / 2
    np.testing.assert_allclose(h, (y + 1) * y * x ** (y - 1) / 2, rtol=1e-10)
