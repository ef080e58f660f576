"""Gradient templates, one module per topic (numpy's by the topics of
s2sad/runtime/ and s2sad/definitions/). Importing this package registers
them all; a module adding variants of another's rules comes after it.
scipy's (scipy_linalg.py, special.py) load once the user's code imported
scipy.linalg or scipy.special (s2sad/libraries.py)."""
from ..extend import REGISTRY, deferring_checks, give_helpers_their_rules

with deferring_checks():  # (the checks of these templates run in the tests: registry.py)
    from . import operators, math_rules  # noqa: F401
    from . import elementwise, reductions, contractions, linalg, shapes  # noqa: F401
    from . import builtin_rules, runtime_rules  # noqa: F401
    from . import stacks  # noqa: F401  (variants of the rules above, for stacks of matrices)
    from . import transposes  # noqa: F401  (reverse rules of the linear helpers registered above)

    give_helpers_their_rules(REGISTRY)  # (after every rule)
