"""Gradient templates, one module per namespace. Importing this package
registers them all."""
from . import operators, math_rules, numpy_rules, builtin_rules, runtime_rules, numpy_shape_rules, \
    numpy_more_rules  # noqa: F401
from . import numpy_linalg_rules  # noqa: F401
from . import numpy_stack_rules  # noqa: F401  (variants of the rules above)
from . import scipy_special_rules, scipy_linalg_rules  # noqa: F401

from ..extend import REGISTRY, give_helpers_their_rules  # noqa: E402

give_helpers_their_rules(REGISTRY)  # (after every rule)
