"""The full grid of cases (deterministic: arguments are drawn from each
case's id), the rules it covers, and the CI samples.

    from systematic.grid import build_cases, ci_sample, coverage
"""
import builtins
import functools
import math
import operator
import zlib

import numpy as np
import scipy.linalg
import scipy.special

from . import families_arrays, families_elementwise, families_keywords, families_numpy_more, \
    families_scipy, families_shapes, families_special

# modules whose registered rules the grid must cover (the runtime helpers'
# rules are internal to generated code)
MODULES = {"numpy": np, "numpy.linalg": np.linalg, "math": math, "builtins": builtins,
           "operator": operator, "scipy.special": scipy.special, "scipy.linalg": scipy.linalg}
NOT_CALLED = {"builtins.print"}  # a rule, but no value to check


@functools.lru_cache(maxsize=None)
def _build():
    cases = (families_elementwise.cases() + families_arrays.cases()
             + families_special.cases() + families_shapes.cases() + families_scipy.cases()
             + families_numpy_more.cases() + families_keywords.cases())
    ids = [c.id for c in cases]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate case ids: {sorted(dupes)}")
    return tuple(cases)


def build_cases(kinds=None):
    """Every case, in a fixed order; `kinds` filters ("value", "tie",
    "either", "refuse")."""
    cases = list(_build())
    return [c for c in cases if kinds is None or c.kind in kinds]


def rule_name(obj):
    """The name a case's `rule` uses for a registered primitive."""
    for prefix, module in MODULES.items():
        name = getattr(obj, "__name__", None)
        if name is not None and getattr(module, name, None) is obj:
            return f"{prefix}.{name}"
    return None


def registered_rules():
    """{name: Rule} for every rule registered for a numpy / math / builtins /
    operator function."""
    import s2sad.generate  # noqa: F401  (registers the rules, as the first derivative does)
    from s2sad import libraries
    from s2sad.registry import REGISTRY
    libraries.load_all()  # (scipy's too)
    out = {}
    for obj, rule in REGISTRY._rules.items():
        name = rule_name(obj)
        if name is not None:
            out[name] = rule
    return out


def defined_functions():
    """Names of the numpy functions s2sad differentiates through definitions
    (s2sad/definitions/), which need cases as rules do."""
    import s2sad.generate  # noqa: F401  (registers the definitions)
    from s2sad import libraries
    from s2sad.definitions import registry as d
    libraries.load_all()  # (scipy's too)
    return {name for name in map(rule_name, list(d.DEFINITIONS) + list(d.BY_CALL))
            if name is not None}


def coverage(cases=None):
    """(rules and definitions without a case, case rules that are neither)."""
    cases = build_cases() if cases is None else cases
    rules = set(registered_rules()) | defined_functions()
    tested = {c.rule for c in cases}
    return sorted(rules - tested - NOT_CALLED), sorted(tested - rules - {"subscript"})


def _round_robin(cases, salt):
    """Cases ordered so that every rule comes up before any comes twice;
    within a rule, in an order shuffled by `salt` (deterministic)."""
    groups = {}
    for c in cases:
        groups.setdefault(c.rule, []).append(c)
    for rule, group in groups.items():
        group.sort(key=lambda c: zlib.crc32(f"{salt}/{c.id}".encode()))
    order = []
    depth = 0
    while True:
        layer = [g[depth] for g in groups.values() if depth < len(g)]
        if not layer:
            return order
        layer.sort(key=lambda c: zlib.crc32(f"{salt}/{c.rule}".encode()))
        order += layer
        depth += 1


SPECIAL = ("zero/", "zero_base/", "negative_base/", "same_arg/", "tie/", "kink/")


def ci_sample(n, kinds=("value", "tie", "either"), salt="ci", jit=False, special=True):
    """A deterministic sample of `n` cases: with `special`, every special
    point and tie first (they are few), then round-robin over the rules so
    that as many rules as possible come up. With `jit`, the cases numba is
    asked to compile: values only, no special points, refusals or constants."""
    cases = build_cases(kinds)
    if jit:
        cases = [c for c in cases if c.kind == "value" and not c.id.endswith("/const")]
        special = False
    first = [c for c in cases if special and c.id.split(":", 1)[1].startswith(SPECIAL)]
    chosen = {c.id for c in first}
    rest = _round_robin([c for c in cases if c.id not in chosen], salt)
    return (first + rest)[:n]
