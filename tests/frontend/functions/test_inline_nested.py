"""A nested function changing its outer function's containers is inlined
where it is called (transforms/frontend/functions/inline_nested.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import inline_nested


def appends(x):
    out = []

    def add(v):
        out.append(v * 2.0)
    for i in range(3):
        add(x[i])
    return out[0] + out[1] * out[2]


def test_inlined_where_called():
    _, after = lowered(inline_nested, appends)
    assert after == source('''
        def appends(x):
            out = []
            for i in range(3):
                add_v = x[i]
                out.append(add_v * 2.0)
            return out[0] + out[1] * out[2]''')


def test_gradient(jit):
    check_grad(appends, [np.array([0.5, -1.0, 2.0])], jit=jit)


def running_sums(x):
    total = 0.0

    def add(v):
        nonlocal total
        total += v
        return total * v
    first = add(x[0])
    rest = [add(x[i]) for i in range(1, 3)]
    return first + np.sum(np.stack(rest)) + np.sum(np.stack([add(x[i] ** 2) for i in range(2)]))


def test_inlined_as_a_value_and_as_a_comprehension_element():
    _, after = lowered(inline_nested, running_sums)
    assert after == source('''
        def running_sums(x):
            total = 0.0
            add_v = x[0]
            total += add_v
            first = total * add_v
            rest = []
            for i2 in range(1, 3):
                add_v2 = x[i2]
                total += add_v2
                rest_item = total * add_v2
                rest.append(rest_item)
            add_values = []
            for i3 in range(2):
                add_v3 = x[i3] ** 2
                total += add_v3
                add_values_item = total * add_v3
                add_values.append(add_values_item)
            return first + np.sum(np.stack(rest)) + np.sum(np.stack(add_values))''')


def test_inlined_values_gradient(jit):
    check_grad(running_sums, [np.array([0.5, -1.0, 2.0])], jit=jit)


def filtered(x):
    total = 0.0

    def add(v):
        nonlocal total
        total += v
        return total
    kept = [add(x[i] * x[j]) for i in range(3) for j in range(i) if x[j] > 0]
    return kept


def test_a_comprehension_with_conditions_and_loops():
    _, after = lowered(inline_nested, filtered)
    assert after == source('''
        def filtered(x):
            total = 0.0
            kept = []
            for i2 in range(3):
                for j2 in range(i2):
                    if x[j2] > 0:
                        add_v = x[i2] * x[j2]
                        total += add_v
                        kept_item = total
                        kept.append(kept_item)
            return kept''')


def reads_what_it_changes(x):
    total = 0.0

    def add(v):
        nonlocal total
        total += v
        return v
    return total + np.sum(np.stack([add(x[i]) for i in range(2)]))


def test_a_comprehension_beside_what_it_changes_is_refused(jit):
    # (Python reads total before the comprehension runs: hoisting it would not)
    import pytest
    import s2sad
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="nested function 'add' that "
                                                           "changes its outer function"):
        s2sad.grad(reads_what_it_changes, jit=jit)(np.array([0.5, 1.0]))
