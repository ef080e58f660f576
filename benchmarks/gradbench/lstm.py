"""lstm: ADBench's diagonal LSTM predicting the next character of a text,
and the gradient of its loss w.r.t. main_params and extra_params.

All weight "matrices" are diagonal, so every product is elementwise and
each of the b bits runs through the layers on its own (the loop over k).
Gate wiring (f and o driven by the input, i and g by the previous hidden
state) and the "+ 2" in the normaliser are ADBench's; kept on purpose."""
import math

import numpy as np
import s2sad

from ._common import Function, matrix, primal


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def lstm(main_params, extra_params, state, sequence):
    layers = main_params.shape[0] // 2
    c = sequence.shape[0]
    b = sequence.shape[1]
    s = np.copy(state)  # rows 2j, 2j+1: hidden and cell state of layer j
    v = np.empty(b)
    y = np.empty(b)
    total = 0.0
    for t in range(c - 1):
        for k in range(b):
            v[k] = sequence[t, k] * extra_params[0, k]
        for j in range(layers):
            w = 2 * j  # weights row; biases in row w + 1
            for k in range(b):
                f = sigmoid(v[k] * main_params[w, k] + main_params[w + 1, k])
                i = sigmoid(s[w, k] * main_params[w, b + k] + main_params[w + 1, b + k])
                o = sigmoid(v[k] * main_params[w, 2 * b + k] + main_params[w + 1, 2 * b + k])
                g = math.tanh(s[w, k] * main_params[w, 3 * b + k]
                              + main_params[w + 1, 3 * b + k])
                s[w + 1, k] = s[w + 1, k] * f + i * g
                s[w, k] = o * math.tanh(s[w + 1, k])
                v[k] = s[w, k]
        sumexp = 0.0
        for k in range(b):
            y[k] = v[k] * extra_params[1, k] + extra_params[2, k]
            sumexp += math.exp(y[k])
        lognorm = math.log(sumexp + 2.0)
        for k in range(b):
            total += sequence[t + 1, k] * (y[k] - lognorm)
    return -total / ((c - 1) * b)


def inputs(inp):
    b = len(inp["sequence"][0])
    return (matrix(inp["main_params"], 4 * b), matrix(inp["extra_params"], b),
            matrix(inp["state"], b), matrix(inp["sequence"], b))


def flat(grads):
    return np.concatenate([g.ravel() for g in grads])


def define(jit):
    objective = primal(lstm, jit)
    gradient = s2sad.grad(lstm, wrt=(0, 1), jit=jit, boundscheck=False)
    rng = np.random.default_rng(0)
    args = (rng.random((2, 8)), rng.random((3, 2)), rng.random((2, 2)),
            np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    objective(*args)
    gradient(*args)
    return {"objective": Function(objective, inputs),
            "jacobian": Function(lambda *args: flat(gradient(*args)), inputs)}
