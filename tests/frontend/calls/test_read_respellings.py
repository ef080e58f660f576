"""sorted(x), list(x) and x.tolist() written as the comprehensions they
compute, one table keyed by callee (transforms/frontend/calls/read_respellings.py,
sorted_forms.py, list_spellings.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import read_respellings


def sorted_and_listed(x):
    s = sorted(x)
    return s[0] * s[-1] + sum(list(x))


def plain(x):
    return np.sum(x * x)


def test_sorted_and_list_are_comprehensions():
    _, after = lowered(read_respellings, sorted_and_listed, np.ones(3))
    assert after == source('''
        def sorted_and_listed(x):
            sorted_values = np.asarray(x)
            if sorted_values.ndim != 1:
                raise ValueError('sorted() of an array that is not 1-d (Python compares its rows, which raises for arrays)')
            s = [value for value in np.sort(sorted_values)]
            return s[0] * s[-1] + sum([item for item in x])''')


def test_a_function_without_them_is_left_as_it_is():
    before, after = lowered(read_respellings, plain, np.ones(3))
    assert before == after


def test_gradient(jit):
    check_grad(sorted_and_listed, [np.array([0.3, -1.2, 2.5])], jit=jit)
