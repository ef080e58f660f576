"""Loop nests for the index checks (transforms/checks/nests.py): whether a nest
runs and how many times its body runs, against enumeration; and compiled
derivatives of triangular nests and counters raise IndexError exactly
where the primal does."""
import itertools

import gast
import numpy as np
import pytest

import s2sad
from s2sad.transforms.checks.affine import Affine
from s2sad.transforms.checks.nests import Loop, nonempty, product_form, product_symbol, trip_count
from s2sad.transforms.emit.unparse import expr_source
from test_bounds import counted_from_one, counted_when, packed, packed_blocks

N, M = Affine.symbol("n"), Affine.symbol("m")


def V(name):
    return Affine.symbol(name)


def nest(*ranges):
    """Loops i, j, k, ... over the inclusive ranges (lo, hi), outermost first."""
    loops = []
    for var, (lo, hi) in zip("ijkl", ranges):
        node = gast.For(target=gast.Name(var, gast.Store(), None, None), iter=None, body=[],
                        orelse=[], type_comment=None)
        loops.append(Loop(node, lo, hi, lo, hi))
    return loops


def value(form, env):
    return sum(c * env[s] for s, c in form.terms.items()) + form.const


def runs(loops, env, depth=0):
    """How many times the innermost body runs, by enumeration."""
    if depth == len(loops):
        return 1
    loop = loops[depth]
    total = 0
    for v in range(value(loop.lo, env), value(loop.hi, env) + 1):
        total += runs(loops, {**env, loop.var: v}, depth + 1)
    return total


def count_holds(loops, env, depth=0):
    """Whether every inner count is >= 0 wherever it is taken (what
    trip_count asks of its caller)."""
    if depth == len(loops):
        return True
    loop = loops[depth]
    lo, hi = value(loop.lo, env), value(loop.hi, env)
    if depth and hi - lo + 1 < 0:
        return False
    return all(count_holds(loops, {**env, loop.var: v}, depth + 1) for v in range(lo, hi + 1))


SHAPES = {
    "rectangular": nest((Affine(), N.plus(-1)), (Affine(), M.plus(-1))),
    "strictly lower (GMM)": nest((Affine(), N.plus(-2)), (V("i").plus(1), N.plus(-1))),
    "lower with diagonal": nest((Affine(), N.plus(-1)), (Affine(), V("i"))),
    "shifted": nest((Affine({}, 2), N.plus(-1)), (Affine(), V("i").plus(-1))),
    "shrinking": nest((Affine(), N.plus(-1)), (V("i"), M.plus(-1))),
    "triangle then box": nest((Affine(), N.plus(-1)), (Affine(), V("i")), (Affine(), Affine({}, 2))),
    "box then triangle": nest((Affine(), M.plus(-1)), (Affine(), N.plus(-2)),
                              (V("j").plus(1), N.plus(-1))),
    "stepped by two": nest((Affine(), N.plus(-1)), (V("i").scale(2), M.plus(-1))),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_trip_count_matches_enumeration(shape):
    loops = SHAPES[shape]
    counted = trip_count(loops, "lo", "hi")
    assert counted is not None
    factors, divisor = counted
    checked = 0
    for n, m in itertools.product(range(7), range(7)):
        env = {"n": n, "m": m}
        if not count_holds(loops, env) or runs(loops, env) == 0:
            continue  # outside trip_count's terms, or nothing runs (a check's guard is false)
        product = int(np.prod([value(f, env) for f in factors]))
        assert product % divisor == 0 and product // divisor == runs(loops, env), (n, m)
        form = product_form(factors, divisor)
        if form is not None:
            assert value(form, env) == runs(loops, env)
        checked += 1
    assert checked > 10


def _written(factors, divisor):
    return expr_source(product_symbol(factors, divisor).expression())


def test_trip_counts_read_as_written():
    assert _written(*trip_count(SHAPES["strictly lower (GMM)"], "lo", "hi")) \
        == "(n - 1) * n // 2"
    assert _written(*trip_count(SHAPES["box then triangle"], "lo", "hi")) \
        == "m * (n - 1) * n // 2"
    assert product_form(*trip_count(nest((Affine(), N.plus(-1)),), "lo", "hi")) == N


def test_a_tetrahedral_count_is_not_attempted():
    loops = nest((Affine(), N.plus(-1)), (Affine(), V("i")), (Affine(), V("j")))
    assert trip_count(loops, "lo", "hi") is None


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_nonempty_holds_exactly_when_the_nest_runs(shape):
    loops = SHAPES[shape]
    forms = nonempty(loops, "lo", "hi")
    assert forms is not None
    for n, m in itertools.product(range(-1, 7), range(-1, 7)):
        env = {"n": n, "m": m}
        assert all(value(f, env) >= 0 for f in forms) == (runs(loops, env) > 0), (n, m, forms)


def test_nonempty_declines_ranges_that_pull_both_ways():
    # j from i to m - 1 runs when i <= m - 1; k below i when i >= 1: no single
    # end of i's range decides both
    loops = nest((Affine(), N.plus(-1)), (V("i"), M.plus(-1)), (Affine(), V("i").plus(-1)))
    assert nonempty(loops, "lo", "hi") is None


# ---- compiled derivatives raise where the primal does -----------------------

def triangular_rows(L, x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i + 1):
            s += L[i, j] * x[j]
    return s


def sizes(f):
    """(argument tuples) around the sizes where f's indices leave the arrays."""
    rng = np.random.default_rng(0)
    out = []
    if f is triangular_rows:
        for n, r, c in itertools.product(range(4), range(5), range(5)):
            out.append((rng.standard_normal((r, c)), rng.standard_normal(n)))
    elif f is packed_blocks:
        for k, L, d in itertools.product(range(3), range(8), range(4)):
            out.append((rng.standard_normal(k), rng.standard_normal(L), rng.standard_normal(d)))
    else:
        for L, d in itertools.product(range(8), range(5)):
            out.append((rng.standard_normal(L), rng.standard_normal(d)))
    return out


@pytest.mark.parametrize("f", [packed, packed_blocks, counted_from_one, counted_when,
                               triangular_rows], ids=lambda f: f.__name__)
def test_raises_exactly_where_the_primal_does(f, jit):
    df = s2sad.grad(f, wrt=0, jit=jit)
    df(*sizes(f)[-1])
    assert df.specialisation().generated.checks_own_indices  # numba checks nothing
    for args in sizes(f):
        try:
            expected = f(*args)
        except IndexError:
            with pytest.raises(IndexError):
                df(*args)
            continue
        assert df(*args).shape == args[0].shape, args
        assert np.isclose(s2sad.value_and_grad(f, wrt=0, jit=jit)(*args)[0], expected)
