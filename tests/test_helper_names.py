"""A function passed under the name of another function it calls: the
generated module gives each its own name (transforms/program.py,
`_other_helper`). autograd's bayesian_neural_net passes
`lambda weights, t: logprob(weights, inputs, targets)` to a function whose
parameter is `logprob`: the lambda's copy, named `logprob`, called itself
(a TypeError, compiled or not)."""
import numpy as np

from gradcheck import check_grad


def make_objective(logprob):
    def objective(x):
        return np.sum(logprob(x, 2.0))
    return objective


def logprob(w, a, b):
    return np.sin(w) * a + b


def scaled(w, t):
    return logprob(w, t, 1.0) * 3.0


X = np.array([0.3, -0.5, 1.2])


def test_a_lambda_passed_as_the_name_it_calls(jit):
    check_grad(make_objective(lambda w, t: logprob(w, t, 1.0)), [X], jit=jit)


def test_a_def_passed_as_the_name_it_calls(jit):
    check_grad(make_objective(scaled), [X], jit=jit)


def twice(logprob, x):
    return logprob(x, 0.5) + logprob(x, 1.5)


def calls_both(x):
    """The passed function and the module's logprob in one function."""
    return np.sum(twice(lambda w, t: logprob(w, t, 0.0) ** 2, x)) + np.sum(logprob(x, 1.0, 2.0))


def test_both_in_one_function(jit):
    check_grad(calls_both, [X], jit=jit)
