"""What gradient rules are written with, in one import: s2sad's own rule
modules (s2sad/rules/) and s2sad.register_gradient use this and nothing
else of s2sad's internals.

    from s2sad.extend import adjoint, same_as_first

    @adjoint(np.tan, kind=same_as_first, pointwise=True)
    def tan(g, ans, x):
        return g * (1.0 + ans * ans)

- rules: `adjoint` (a cotangent template), `tangent` (forward mode),
  `refused`, `nondifferentiable` and `by_definition` (a runtime helper
  differentiated through its definition), the `REGISTRY` they go into, `Rule`;
- kinds of results (`same_as_first`, `reduction`, ...) and the kinds
  module `K` they are built from;
- parameters' accepted values (`AXIS`, `KEEPDIMS`, `Values`, ...), which a
  call is checked against before its rule applies;
- tests for `adjoint(..., when=...)` variants (`ndims_are`);
- numba forms (`numba_form`, `takes_rule_of` and the tests on a call):
  numpy calls numba cannot compile, rewritten into runtime helpers
  (s2sad/forms.py)."""
from .forms import (any_of, copied, every_call, frobenius, give_helpers_their_rules, given,
                    numba_form, one_argument, one_name, parts_literal, takes_rule_of)
from .transforms.parameters import (ARRAY, ARRAY_OR_NONE, AT_LEAST_2D, AXES, AXIS, AXIS_INT,
                 AXIS_INT_OR_NONE, AXIS_OF_SHAPE, BOOL, DOT_OPERAND, EINSUM_SUBSCRIPTS,
                 FLOAT_DTYPE, GRADIENT_OF, INT, INT_OR_INTS, KEEPDIMS, MATMUL_OPERAND,
                 MATRICES, MATRIX, NORM_ORD, NOT_ARRAY, NOT_NONE, NUMBER, PAD_MODE,
                 PAD_WIDTH, PAIR_OF_AXES, REAL, SCALAR, SHAPE_ONLY, SORT_KIND,
                 TENSORDOT_AXES, UPLO, VECTOR_OR_MATRIX, Values)
from .transforms.parameters import _constant as constant
from .registry import (REGISTRY, Rule, adjoint, bool_like_first, broadcast_args, broadcast_float,
                       by_definition, created_array, deferring_checks, first_arg, float_scalar, int_scalar, like_first,
                       nondifferentiable, norm_kind, reduction, refused, same_as_first,
                       shape_ndim, tangent)
from .transforms.analysis import kinds as K



def ndims_are(a, b, ndim_a, ndim_b):
    """(a `when=` test on two operands' kinds) Both arrays, of these ndims."""
    return a.is_array and b.is_array and a.ndim == ndim_a and b.ndim == ndim_b


__all__ = [
    # rules
    "REGISTRY", "Rule", "adjoint", "tangent", "refused", "nondifferentiable", "by_definition",
    "deferring_checks",
    # kinds of results
    "K", "bool_like_first", "broadcast_args", "broadcast_float", "created_array", "first_arg",
    "float_scalar", "int_scalar", "like_first", "norm_kind", "reduction", "same_as_first",
    "shape_ndim",
    # parameters' values
    "Values", "constant", "ARRAY", "ARRAY_OR_NONE", "AT_LEAST_2D", "AXES", "AXIS", "AXIS_INT",
    "AXIS_INT_OR_NONE", "AXIS_OF_SHAPE", "BOOL", "DOT_OPERAND", "EINSUM_SUBSCRIPTS",
    "FLOAT_DTYPE", "GRADIENT_OF", "INT", "INT_OR_INTS", "KEEPDIMS", "MATMUL_OPERAND",
    "MATRICES", "MATRIX", "NORM_ORD", "NOT_ARRAY", "NOT_NONE", "NUMBER", "PAD_MODE",
    "PAD_WIDTH", "PAIR_OF_AXES", "REAL", "SCALAR", "SHAPE_ONLY", "SORT_KIND", "TENSORDOT_AXES",
    "UPLO", "VECTOR_OR_MATRIX",
    # when= tests
    "ndims_are",
    # numba forms
    "numba_form", "takes_rule_of", "give_helpers_their_rules", "every_call", "given", "any_of",
    "frobenius", "copied", "one_argument", "one_name", "parts_literal",
]
