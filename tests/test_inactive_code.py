"""Code that computes nothing needing a gradient runs as written: a random
generator given, read from the module or made in the function and drawn
from (the draws are constants), print with keywords; compiled, in numba's
object mode (transforms/emit/objmode.py), with the generator held by a
handle (s2sad/runtime/objects.py). Against finite differences with the same
draws (a generator seeded alike for every evaluation), as Python and
compiled; a value that needs a gradient computed by such code is refused
with its line. (try ... except: tests/frontend/statements/test_python_blocks.py.)"""
import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad

X = np.array([0.3, -0.7, 1.1, 0.4])


def check_with_draws(f, x, fresh, jit):
    """s2sad's gradient of f(x, generator) against central differences, every
    evaluation given a generator made by `fresh()` (the same draws)."""
    df = s2sad.grad(f, jit=jit)
    got = df(x, fresh())
    want = numerical_grad(lambda v: f(v, fresh()), [x], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=df.source)
    return df


def given_random_state(x, rng):
    noise = rng.standard_normal(x.shape)
    return np.sum(np.sin(x) * noise) + np.sum(x ** 2 * rng.uniform(0.5, 1.5, size=x.shape[0]))


def given_generator(x, rng):
    picks = rng.integers(0, x.shape[0], size=3)
    return np.sum(x[picks] ** 2 * rng.normal(0.0, 2.0, size=3)) + rng.random() * np.sum(x)


@pytest.mark.parametrize("f, fresh", [
    (given_random_state, lambda: np.random.RandomState(3)),
    (given_generator, lambda: np.random.default_rng(3)),
], ids=["RandomState", "Generator"])
def test_a_generator_given(f, fresh, jit):
    df = check_with_draws(f, X, fresh, jit)
    assert "with numba.objmode(" in df.source and "held(rng)" in df.source


def made_in_the_function(x):
    rng = np.random.RandomState(0)
    weights = rng.normal(size=x.shape)
    other = np.random.default_rng(1)
    return np.sum(np.exp(x) * weights) + other.standard_normal() * np.sum(x ** 3)


def test_a_generator_made_in_the_function(jit):
    # (the same draws every call: the self-checks, forward mode included, run)
    df = s2sad.grad(made_in_the_function, jit=jit)
    np.testing.assert_allclose(df(X), numerical_grad(made_in_the_function, [X], 0),
                               rtol=1e-6, atol=1e-8)
    assert "rng = keep(np.random.RandomState(0))" in df.source


MODULE_RNG = np.random.RandomState(7)


def read_from_the_module(x):
    return np.sum(np.cos(x) * MODULE_RNG.uniform(0.0, 1.0, x.shape))


def closing_over(rng):
    def loss(x):
        return np.sum(x ** 2 * rng.standard_normal(x.shape[0]))
    return loss


def test_a_generator_of_the_module_or_a_closure(jit):
    def fresh_module_rng():
        MODULE_RNG.seed(7)
    fresh_module_rng()
    got = s2sad.grad(read_from_the_module, jit=jit)(X)
    fresh_module_rng()
    want = numerical_grad(lambda v: (fresh_module_rng(), read_from_the_module(v))[1], [X], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    gen = np.random.default_rng(5)
    loss = closing_over(gen)
    got = s2sad.grad(loss, jit=jit)(X)
    want = 2 * X * np.random.default_rng(5).standard_normal(4)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def draws_in_order(x, rng):
    first = rng.uniform()
    s = 0.0
    for i in range(x.shape[0]):
        s = s + rng.uniform() * x[i] ** 2
    last = rng.uniform()
    return s * last + first


def test_draws_keep_their_order(jit):
    # (a loop only adding to a total has its sweeps fused: a draw after it stays after it)
    df = check_with_draws(draws_in_order, X, lambda: np.random.RandomState(11), jit)
    value = s2sad.value_and_grad(draws_in_order, jit=jit)(X, np.random.RandomState(11))[0]
    assert value == pytest.approx(draws_in_order(X, np.random.RandomState(11)), rel=1e-12)
    assert df.source.index("first = ") < df.source.index("for i in range(")


def noisy(x, rng):
    return x * rng.standard_normal(x.shape)


def noise_as_a_constant(x):
    rng = np.random.RandomState(0)
    w = noisy(np.ones(4), rng)  # (the helper's primal copy draws, in object mode)
    return np.sum(x * w)


def noise_differentiated(x):
    rng = np.random.RandomState(0)
    return np.sum(noisy(x, rng) ** 2)


def test_a_helper_drawing(jit):
    got = s2sad.grad(noise_as_a_constant, jit=jit)(X)
    np.testing.assert_allclose(got, np.random.RandomState(0).standard_normal(4), rtol=1e-12)
    # its derivative: the helper inlined, the gradient of the numbers the call drew
    e = np.random.RandomState(0).standard_normal(4)
    np.testing.assert_allclose(s2sad.grad(noise_differentiated, jit=jit)(X), 2 * X * e * e,
                               rtol=1e-12)


def draw_around_x(x):
    rng = np.random.RandomState(0)
    return np.sum(rng.normal(x, 1.0))


def test_a_draw_from_a_value_that_needs_a_gradient_is_refused(jit):
    with pytest.raises(LookupError, match=r"No gradient defined for operation 'rng\.normal \(a "
                                          r"local variable\)' \(.*test_inactive_code\.py:\d+, "
                                          r"in draw_around_x\)"):
        s2sad.grad(draw_around_x, jit=jit)(X)


def printing(x):
    s = 0.0
    for i in range(x.shape[0]):
        print(i, end=" ")
        s = s + x[i] ** 2
    print("done", sep="")
    return s


def test_print_with_keywords(jit, capsys):
    df = s2sad.grad(printing, jit=jit)
    np.testing.assert_allclose(df(X), 2 * X)
    out = capsys.readouterr().out
    printing(X)
    assert out.splitlines()[0] == capsys.readouterr().out.splitlines()[0] == "0 1 2 3 done"
    assert "with numba.objmode():\n            print(i, end=' ')" in df.source


def test_differentiated_again_is_refused(jit):
    # (the gradient's object-mode blocks are not differentiated: a hessian says so)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="in numba's object mode .* in a "
                                                           "derivative differentiated again"):
        s2sad.hessian(made_in_the_function, jit=jit)(X)


def shout(v):
    print("v", v, sep="=")
    return v * 2.0


def uses_shout(x):
    return np.sum(shout(x) ** 2)


def test_a_helper_printing_prints_once(jit, capsys):
    # (its derivative ran it again, printing twice)
    np.testing.assert_allclose(s2sad.grad(uses_shout, jit=jit, check=False)(X), 8 * X)
    assert capsys.readouterr().out == "v=[ 0.3 -0.7  1.1  0.4]\n"


def drawn_per_element(x, rng):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        print(i, end=" ")
        y[i] = x[i] * rng.uniform()
    return np.sum(y ** 2)


def test_parallel_keeps_draws_and_prints_in_order(jit, capsys):
    got = s2sad.grad(drawn_per_element, jit=jit, parallel=True, check=False)(
        X, np.random.RandomState(2))
    assert capsys.readouterr().out == "0 1 2 3 "
    want = numerical_grad(lambda v: drawn_per_element(v, np.random.RandomState(2)), [X], 0)
    capsys.readouterr()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
