"""Array attributes, loops over computed arrays and writes that broadcast,
in differentiated code.

`x.flat` and `x.mT` have gradients (as np.ravel and np.swapaxes); metadata
(`shape`, `ndim`, `size`, `dtype`) has none; any other attribute of a value
that needs a gradient is refused with the line, never taken as a constant
(`x.flat` once gave a zero gradient with no error). A loop may run over a
numpy function's result or an array method's (`for t in np.linspace(...)`,
`for v in x.ravel()`); over another call's (a helper's, which may return a
dict) it is refused. A region assigned or added to from a smaller array
(`y[:] = x[0]`, `y[:, 1:] -= c[:, None]`) sends the cotangent back summed
over the broadcast axes (compiled, numba's `+=` into the smaller array gave
a wrong value with no error)."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

M = np.arange(1.0, 13.0).reshape(3, 4) / 7 + 0.05


def flat_loop(x):
    s = 0.0
    for v in x.flat:
        s += v * v
    return s


def flat_loop_branches(x):
    s = 0.0
    for v in x.flat:
        if v > 0.8:
            s += v * v
        else:
            s -= np.sin(v)
    return s


def flat_of_expression(x):
    s = 0.0
    for v in (x * 2.0).flat:
        s += np.cos(v)
    return s


def flat_index(x):
    return x.flat[3] * x.flat[5] + x.flat[-1]


def flat_slice(x):
    return np.sum(x.T.flat[:5] ** 2) + np.sum(x.flat[::3])


def flat_bound(x):
    y = x ** 2
    z = y.flat
    return z[0] + z[7] * z[2]


def flat_in_helper_caller(x):
    return _sum_of_squares(x) * 2.0


def _sum_of_squares(a):
    s = 0.0
    for v in a.flat:
        s += v * v
    return s


def m_transpose(x):
    return np.sum(x.mT @ x)


def m_transpose_stack(x):
    return np.sum(x[None].mT * np.arange(12.0).reshape(1, 4, 3))


def metadata(x):
    return np.sum(x) * x.ndim * x.size + x.shape[1] * np.sum(x ** 2) \
        + np.sum(x.real ** 2) + np.sum(x.imag)


def loop_linspace(x):
    s = 0.0
    for t in np.linspace(0.0, 1.0, 5):
        s += t * np.sum(x ** 2)
    return s


def loop_arange(x):
    s = 0.0
    for t in np.arange(3):
        s += np.sum(x[t] ** 2) * (t + 1)
    return s


def loop_ravel_method(x):
    s = 0.0
    for v in x.ravel():
        s += v ** 3
    return s


def loop_ufunc(x):
    s = 0.0
    for row in np.sin(x):
        s += np.prod(row)
    return s


def loop_reshape_method(x):
    s = 0.0
    for pair in x.reshape(-1, 2):
        s += pair[0] * pair[1]
    return s


def loop_sorted(x):
    s, k = 0.0, 1.0
    for v in sorted(x[0] * np.array([1.0, -2.0, 0.5, 3.0])):
        s += k * v
        k += 1.0
    return s


FORMS = [loop_linspace, loop_arange, loop_ravel_method, loop_ufunc, loop_reshape_method,
         loop_sorted, flat_loop, flat_loop_branches, flat_of_expression, flat_index, flat_slice,
         flat_bound, flat_in_helper_caller, m_transpose, m_transpose_stack, metadata]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_gradient(f, jit):
    check_grad(f, [M.copy()], jit=jit)


@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_forward_mode(f):
    check_jvp(f, [M.copy()], jit=False)


def through_base(x):
    y = x[1:]
    return np.sum(y.base)


def flat_augmented_write(x):
    y = x * 1.0
    y.flat[2] += 1.0
    return np.sum(y * y)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_unknown_attribute_is_refused(mode):
    transform = s2sad.grad if mode == "grad" else s2sad.jvp
    args = (M.copy(),) if mode == "grad" else (M.copy(), np.ones_like(M))
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        transform(through_base, jit=False)(*args)
    assert "`.base`" in str(err.value) and "test_array_forms.py" in str(err.value)


def test_writing_through_flat_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        s2sad.grad(flat_augmented_write, jit=False)(M.copy())
    assert "flat" in str(err.value) and "test_array_forms.py" in str(err.value)


def test_flat_reads_as_ravel_in_the_source():
    source = s2sad.grad(flat_index, jit=False).source_for(M)
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert any("np.ravel(x)" in line for line in code)
    assert not any(".flat" in line for line in code)


def _pairs(x):
    return {0: x[0], 1: x[1]}


def loop_over_helper_result(x):
    s = 0.0
    for k in _pairs(x):
        s += k * np.sum(x[k])
    return s


def loop_over_nditer(x):
    s = 0.0
    for v in np.nditer(np.array([1.0, 2.0])):  # (indexing an nditer is not iterating it)
        s += v * np.sum(x)
    return s


def test_loop_over_an_iterator_class_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        s2sad.grad(loop_over_nditer, jit=False)(M.copy())
    assert "for loop over nditer(...)" in str(err.value)


def test_loop_over_other_calls_is_refused():
    """A helper may return a dict, whose iteration gives its keys: the loop
    is refused, not read by position."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        s2sad.grad(loop_over_helper_result, jit=False)(M.copy())
    assert "for loop over _pairs(...)" in str(err.value)


# ---- writes that broadcast -------------------------------------------------------

def row_assigned_to_all(x):
    y = np.zeros((3, 4))
    y[:] = x[0]
    return np.sum(y * x)


def row_assigned_to_some(x):
    y = np.zeros((3, 4))
    y[1:, :] = x[0] * 2.0
    return np.sum(y * x)


def row_added(x):
    y = x * 1.0
    y[1:] += x[0] ** 2
    return np.sum(y * x)


def column_subtracted(x):
    y = x * 1.0
    y[:, 1:] -= np.cos(x[:, 0])[:, None] * 1.0
    return np.sum(y ** 2)


def planes_assigned(x):
    y = np.zeros((2, 3, 4))
    y[0] = x
    y[1, :] = x[1]
    return np.sum(y * y)


BROADCASTS = [row_assigned_to_all, row_assigned_to_some, row_added, column_subtracted,
              planes_assigned]


@pytest.mark.parametrize("f", BROADCASTS, ids=lambda f: f.__name__)
def test_broadcast_write(f):
    check_grad(f, [M.copy()], jit=False)
    check_jvp(f, [M.copy()], jit=False)


def test_broadcast_write_compiled():
    """(always compiled: the wrong value was numba's)"""
    check_grad(column_subtracted, [M.copy()], jit=True)
    check_grad(row_assigned_to_some, [M.copy()], jit=True)


# ---- a shape built from another: x.shape + (1,) ------------------------------------
# (the kind of a tuple concatenated was not known, np.reshape's by it neither,
# and `@` of the result was refused: ADBench's hand tracking)

def weighted_by_rows(x, w):
    q = np.sum(x[:, :, None] * w.reshape(w.shape + (1,)) * x[:, None, :], 1)
    return np.sum(np.transpose(M[:2, :] @ np.transpose(q)) ** 2)


def test_a_shape_concatenated(jit):
    check_grad(weighted_by_rows, (M, M[::-1] * 0.5), wrt=(0, 1), jit=jit)
