"""The documentation's generated tables (s2sad/support_table.py,
s2sad/construct_table.py) say what s2sad does: a function marked compiled
compiles and one marked Python falls back, checked on a sample by compiling
real derivatives (jit="require"); every front-end pass is in the constructs
table, and every row points at a module that exists."""
import math
import os

import numpy as np
import pytest
import scipy.special

import s2sad
from s2sad import construct_table, support_table

STATUS = {name: status for name, status, _text in support_table.rows()}


def _sin(x):
    return np.sum(np.sin(x))


def _cov(x):
    return np.sum(np.cov(x))


def _gammaln(x):
    return np.sum(scipy.special.gammaln(x))


def _tile(x):
    return np.sum(np.tile(x, 2))


def _einsum(x):
    return np.einsum("i,i->", x, x)


def _cbrt(x):
    return math.cbrt(x[0])


SAMPLE = [("np.sin", _sin), ("np.cov", _cov), ("scipy.special.gammaln", _gammaln),
          ("np.tile", _tile), ("np.einsum", _einsum), ("math.cbrt", _cbrt)]


@pytest.mark.parametrize("name, fn", SAMPLE, ids=[n for n, _ in SAMPLE])
def test_status_says_whether_the_derivative_compiles(name, fn):
    x = np.array([0.5, 1.2, 0.7, 1.9])
    try:
        s2sad.grad(fn, jit="require")(x)
        found = support_table.COMPILED
    except s2sad.JitError:
        found = support_table.PYTHON
    assert STATUS[name] == found


def test_statuses_of_constants_and_refusals():
    assert STATUS["np.floor"] == support_table.NO_GRADIENT
    assert STATUS["np.argmax"] == support_table.NO_GRADIENT
    assert STATUS["np.arange"] == support_table.REFUSED
    assert set(STATUS.values()) <= {support_table.COMPILED, support_table.PYTHON,
                                    support_table.NO_GRADIENT, support_table.REFUSED}


def test_every_function_section_is_a_module_of_its_own():
    text = support_table.markdown()
    for title, prefix in support_table.GROUPS:
        assert f"### {title}\n" in text
    numpy_part = text.split("### numpy\n")[1].split("### numpy.linalg\n")[0]
    assert "`np.einsum`" in numpy_part and "`np.linalg." not in numpy_part


def test_construct_rows_point_at_existing_modules():
    assert construct_table.check_modules() == []


def test_every_front_end_module_is_in_the_constructs_table():
    folder = os.path.join(os.path.dirname(s2sad.transforms.__file__), "frontend")
    modules = {os.path.relpath(os.path.join(d, f), folder)[:-3].replace(os.sep, ".")
               for d, _, names in os.walk(folder) for f in names
               if f.endswith(".py") and f != "__init__.py"}
    named = {c.handled_by.split(".", 1)[1] for c in construct_table.CONSTRUCTS
             if c.handled_by.startswith("frontend.")}
    missing = modules - named - construct_table.INTERNAL
    assert not missing, (f"front-end modules the documentation's constructs table does not "
                         f"name: {sorted(missing)} (add a row to s2sad/construct_table.py, or "
                         f"list the module in INTERNAL)")
    assert not construct_table.INTERNAL - modules


def test_every_refused_syntax_has_a_row():
    from s2sad.transforms.frontend.refused_syntax import UNSUPPORTED
    text = construct_table.markdown()
    covered = {s for c in construct_table.CONSTRUCTS for s in c.syntax}
    for cls, what in UNSUPPORTED.items():
        assert cls.__name__ in covered or what[0].upper() + what[1:] in text, what
