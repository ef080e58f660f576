"""An attribute of the function itself used as a variable is a local of the
call, `nonlocal` in the nested functions changing it
(transforms/frontend/functions/function_attributes.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import function_attributes


def columns(d, v):
    # (ADBench's GMM keeps its position in v on the function, constructL.Lparamidx)
    columns.start = 0

    def column(i):
        n = d - i
        col = np.concatenate((np.zeros(i), v[columns.start:columns.start + n]))
        columns.start += n
        return col
    return np.column_stack([column(i) for i in range(d)])


def triangle(v):
    return np.sum(np.sin(columns(3, v)) * np.arange(1.0, 10.0).reshape(3, 3))


def test_a_local_nonlocal_in_the_nested_function():
    _, after = lowered(function_attributes, columns)
    assert after == source('''
        def columns(d, v):
            columns_start = 0

            def column(i):
                nonlocal columns_start
                n = d - i
                col = np.concatenate((np.zeros(i), v[columns_start:columns_start + n]))
                columns_start += n
                return col
            return np.column_stack([column(i) for i in range(d)])''')


def test_gradient(jit):
    check_grad(triangle, [np.linspace(-1.0, 1.0, 6)], jit=jit)


def counted(x):
    counted.calls += 1  # an earlier call's count
    return x * counted.calls


counted.calls = 0


def test_read_before_it_is_set_is_refused(jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=r"test_function_attributes\.py:\d+, in counted: the attribute "
                             r"counted\.calls of the function read before the function "
                             r"assigns it .*Assign counted\.calls = \.\.\. first"):
        s2sad.grad(counted, jit=jit)(1.0)
