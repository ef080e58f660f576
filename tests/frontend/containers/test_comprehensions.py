"""Comprehensions lowered to loops: a sum adds into a total, a list fills
an array (transforms/frontend/containers/comprehensions.py)."""
import numpy as np
import pytest

import s2sad

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import comprehensions


def comp(x):
    return sum(x[i] * x[i] for i in range(3)) + np.sum(np.array([v * 2.0 for v in x]))


def test_loops():
    _, after = lowered(comprehensions, comp, np.ones(3))
    message = f"{__file__}:{comp.__code__.co_firstlineno + 1}, in comp: s2sad needs at least " \
        "one element in a list comprehension, to know its shape"
    assert after == source(f'''
        def comp(x):
            total = 0
            for i2 in range(3):
                total = total + x[i2] * x[i2]
            n_vals = len(x)
            if n_vals == 0:
                raise ValueError('{message}')
            v2 = x[0]
            vals_first = v2 * 2.0
            vals = empty_stack(n_vals, vals_first)
            vals[0] = vals_first
            for k in range(1, n_vals):
                v2 = x[k]
                vals[k] = stack_element(v2 * 2.0, vals_first)
            return total + np.sum(vals)''')


def test_gradient(jit):
    check_grad(comp, [np.array([0.5, -1.0, 2.0])], jit=jit)


def pieces(v, shapes_of):
    out = []
    start = 0
    for w in shapes_of:
        out.append(np.reshape(v[start:start + w.size], w.shape))
        start += w.size
    return out


def second_piece(v, W, b):
    return np.sum(pieces(v, [W, b])[1] * v[4:6])


def test_elements_of_another_shape_are_refused_not_broadcast(jit):
    """Python's list holds a matrix then a vector; one array holding both
    would broadcast the vector to the matrix's shape (a wrong value). (The
    helper is inlined where it is called, functions/returned_lists.py: its
    list is the caller's, refused when the derivative is made.)"""
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=r"test_comprehensions\.py:\d+, in second_piece: an element of "
                             r"another kind \(array1d\[f\], after array2d\[f\]\) appended "
                             r"to the list 'pieces_out'"):
        s2sad.value_and_grad(second_piece, jit=jit)(np.arange(1.0, 7.0), np.ones((2, 2)),
                                                    np.ones(2))


# ---- with an `if`: the list Python makes, grown as it runs -------------------
def filtered_reads(x):
    ys = [x[i] * x[i] for i in range(x.shape[0]) if x[i] > 0]
    return np.sum(np.array(ys)) + ys[0] * len(ys)


def filtered_loop(x):
    pos = [v for v in x if v > 0.0 and v < 1.0]
    t = 0.0
    for p in pos:
        t += np.sin(p)
    return t * len(pos)


def filtered_calls(x):
    big = np.stack([x * k for k in range(4) if k % 2 == 1])
    return np.sum(big) + max([v * v for v in x if v < 1.0]) + min([v for v in x if v > 0.4])


def test_filtered_is_the_list_grown():
    _, after = lowered(comprehensions, filtered_reads, np.ones(3))
    assert after == source('''
        def filtered_reads(x):
            ys = []
            for i2 in range(x.shape[0]):
                if x[i2] > 0:
                    ys.append(x[i2] * x[i2])
            return np.sum(np.array(ys)) + ys[0] * len(ys)'''), after


@pytest.mark.parametrize("f", [filtered_reads, filtered_loop, filtered_calls])
@pytest.mark.parametrize("x", [[0.5, -1.0, 2.0, 0.3], [0.9, 0.7, -0.2, 0.45]])
def test_filtered_gradient(jit, f, x):
    x = np.array(x)
    value, _ = s2sad.value_and_grad(f, jit=jit)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    check_grad(f, [x], jit=jit)
