"""Every runtime helper a gradient rule emits (in a reverse or a tangent
template, or in a helper's own reverse rule), and every one the compiler
itself writes into derivatives, can be differentiated again, in reverse and
in forward mode: a derivative of a derivative reaches each one. A helper
passes with rules of its own (a reverse template and a tangent, or
linearity), as a function with no gradient, or through a definition in
terms of functions that have rules (s2sad/definitions/). A new helper
without them fails here."""
import numpy as np
import pytest

import s2sad.generate  # noqa: F401  (registers the rules and definitions, as the first derivative does)
from s2sad import libraries
from s2sad import runtime as rt
from s2sad.definitions import derivative_pieces, linalg_pieces
from s2sad.definitions.registry import BY_CALL, DEFINITIONS
from s2sad.extend import REGISTRY
from s2sad.transforms.names import RUNTIME_NAMES
from s2sad.transforms.templates import template_of

libraries.load_all()  # (scipy's rules and their helpers too)
from s2sad.definitions import scipy_linalg_pieces  # noqa: E402  (loaded just above)


def _templates():
    seen = {}
    for rule in list(REGISTRY._rules.values()):
        for template in [rule.template, rule.tangent] + [t for _, t in rule.variants] + \
                [t for _, t in rule.tangent_variants]:
            if template is not None and getattr(template, "__name__", "") != "_no_gradient":
                seen[id(template)] = template
    return list(seen.values())


def _emitted():
    """{helper name: the templates that call it}."""
    helpers = set(rt.__all__)
    found = {}
    for template in _templates():
        for name in template_of(template).globals & helpers:
            found.setdefault(name, []).append(template.__qualname__)
    for name in RUNTIME_NAMES:  # (the compiler's own: unbroadcast, unreduce, scatter_sum, ...)
        if name in helpers:
            found.setdefault(name, []).append("the compiler")
    return found


EMITTED = _emitted()


def test_the_templates_emit_the_helpers_we_know_of():
    # (the enumeration itself works: a few helpers each family's rules emit)
    for name in ("unbroadcast", "broadcast_like", "unrepeat", "einsum_grad_left", "unkron_left",
                 "cholesky_grad", "reverse_cumsum", "concatenate_parts", "scatter_sum_axis"):
        assert name in EMITTED, name


@pytest.mark.parametrize("name", sorted(EMITTED))
def test_emitted_helper_has_reverse_and_forward_rules(name):
    fn = getattr(rt, name)
    rule = REGISTRY.lookup(fn)
    where = ", ".join(EMITTED[name][:3])
    if fn in DEFINITIONS or fn in BY_CALL:
        # differentiated through a definition the call binder puts in its place
        return
    assert rule is not None, f"{name} (emitted by {where}) has no rule"
    assert rule.refusal is None, f"{name} (emitted by {where}) is refused: {rule.refusal}"
    if rule.nondiff:
        return
    assert rule.template is not None or rule.function is not None, \
        f"{name} (emitted by {where}) has no reverse rule"
    assert rule.tangent is not None or rule.linear is not None or rule.pointwise, \
        f"{name} (emitted by {where}) has no forward rule"


def test_refused_only_where_a_definition_does_not_reach():
    """np.prod's third derivative over a tuple of axes is the one refusal
    left: its definition takes None and int axes."""
    refused = {n for n in EMITTED if getattr(REGISTRY.lookup(getattr(rt, n)), "refusal", None)
               and getattr(rt, n) not in DEFINITIONS}
    assert refused == {"prod_others_tangent"}
    assert rt.prod_others_tangent in BY_CALL


# ---- each definition computes its helper's values ---------------------------------------------

rng = np.random.default_rng(5)
_N = 3
_A = rng.normal(size=(_N, _N))
_S = _A @ _A.T + _N * np.eye(_N)
_L = np.linalg.cholesky(_S)


def _m(*shape):
    return rng.normal(size=shape or (_N, _N))


def _cases():
    cases = []
    for lower in (True, False):
        factor = _L if lower else _L.T
        c = np.tril(_L) + np.triu(_A, 1) if lower else np.triu(_L.T) + np.tril(_A, -1)
        cases += [("cholesky_grad", (_m(), factor, lower)),
                  ("cholesky_tangent", (_m(), factor, lower)),
                  ("cho_factor_grad", (_m(), factor, lower)),
                  ("cho_factor_tangent", (_m(), factor, lower)),
                  ("eigh_grad", (_m(_N), _m(), _A, lower)), ("eigh_grad", (0.0, _m(), _A, lower)),
                  ("eigh_tangent", (_m(), _A, lower))]
        for x in (_m(_N), _m(_N, 2)):
            cases += [("cho_solve_grad_c", (_m(*x.shape), x, c, lower)),
                      ("cho_solve_tangent", (_m(), _m(*x.shape), x, c, lower))]
            for transposed in (False, True):
                for unit in (False, True):
                    flags = (transposed, lower, unit)
                    cases += [("solve_triangular_grad_a", (_m(*x.shape), x) + flags),
                              ("solve_triangular_adjoint", (_m(*x.shape), _S) + flags),
                              ("solve_triangular_tangent", (_m(), _m(*x.shape), x, _S) + flags)]
            for assume_a in (None, "gen", "sym", "pos"):
                cases += [("solve_grad_a", (_m(*x.shape), x, lower, assume_a)),
                          ("solve_tangent", (_m(), _m(*x.shape), x, _S, lower, assume_a))]
    cases += [("expm_frechet", (0.5 * _A, _m())), ("eigh_lower_grad", (_m(_N), _m(), _A)),
              ("eigh_lower_grad", (_m(_N), 0.0, _A)), ("eigh_lower_tangent", (_m(), _A)),
              ("slogdet_tangent", (_m(), _S))]
    for shape in ((3, 3), (4, 2), (2, 4)):
        a, k = _m(*shape), min(shape)
        cases += [("svd_values_grad", (_m(k), a)), ("svd_values_tangent", (_m(*shape), a)),
                  ("svd_grad", (_m(shape[0], k), _m(k), _m(k, shape[1]), a)),
                  ("svd_grad", (0.0, _m(k), 0.0, a)), ("svd_tangent", (_m(*shape), a)),
                  ("pinv_grad", (_m(*shape[::-1]), np.linalg.pinv(a), a)),
                  ("pinv_tangent", (_m(*shape), np.linalg.pinv(a), a))]
    stack = np.stack([_S, _S + np.eye(_N)])
    factors = np.linalg.cholesky(stack)
    for upper in (False, True):
        f = np.swapaxes(factors, -1, -2) if upper else factors
        cases += [("cholesky_stack_grad", (_m(2, _N, _N), f, upper)),
                  ("cholesky_stack_tangent", (_m(2, _N, _N), f, upper))]
    for uplo in ("L", "U"):
        cases += [("eigh_uplo_grad", (_m(2, _N), _m(2, _N, _N), _m(2, _N, _N), uplo)),
                  ("eigh_uplo_grad", (0.0, _m(2, _N, _N), _m(2, _N, _N), uplo)),
                  ("eigh_uplo_tangent", (_m(2, _N, _N), _m(2, _N, _N), uplo))]
    cases.append(("slogdet_stack_tangent", (_m(2, _N, _N), stack)))
    return cases


@pytest.mark.parametrize("name, args", _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_definition_computes_the_helpers_values(name, args):
    helper = getattr(rt, name)
    got = DEFINITIONS[helper](*args)
    want = helper(*args)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float),
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_prod_others_tangent_definition(axis):
    x, t = _m(3, 4), _m(3, 4)
    x[1, 2] = 0.0  # (exact at a zero: no division)
    np.testing.assert_allclose(derivative_pieces.prod_others_tangent(x, t, axis),
                               rt.prod_others_tangent(x, t, axis), rtol=1e-12, atol=1e-14)


def test_every_helper_definition_is_checked():
    defined = {h.__name__ for h, d in DEFINITIONS.items()
               if d.__module__ in (linalg_pieces.__name__, derivative_pieces.__name__,
                                   scipy_linalg_pieces.__name__)}
    assert defined == {name for name, _ in _cases()}
