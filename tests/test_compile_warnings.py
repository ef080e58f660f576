"""numba's performance hints about the generated code (its arrays' memory
layouts, which the user cannot change) are not shown to the user; numba's
other warnings are."""
import warnings

import numpy as np
from numba.core.errors import NumbaPerformanceWarning

import s2sad
from gradcheck import numerical_grad


def transposed_products(x):
    # np.transpose(..., axes=) is a view numba types as non-contiguous ('A'):
    # its @ and np.dot in the derivative draw a NumbaPerformanceWarning
    return np.sum(np.transpose(np.outer(x, x), axes=(1, 0)) @ x)


def test_performance_hints_about_generated_code_are_not_shown():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = s2sad.grad(transposed_products, jit=True)(x)
    assert not [w for w in seen if issubclass(w.category, NumbaPerformanceWarning)], \
        [str(w.message) for w in seen]
    np.testing.assert_allclose(got, numerical_grad(transposed_products, [x], 0), rtol=1e-6)
