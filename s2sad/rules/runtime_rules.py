"""The runtime helpers generated code calls, as primitives: so generated
derivatives can be differentiated again. Most are linear (their own tangent
map; their reverse rules, the transposes: transposes.py); the others have
rules here or definitions (s2sad/definitions/derivative_pieces.py)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
from .. import runtime as rt
from ..extend import (K, REGISTRY, by_definition, first_arg, nondifferentiable, refused, Rule)


def _linear(fn, kind, positions=(0,)):
    REGISTRY.register(fn, Rule(None, kind, linear=positions, name=fn.__name__))


def _adjoint_of(fn):
    """Give a registered runtime helper its adjoint template."""
    def decorate(template):
        REGISTRY.lookup(fn).template = template
        return template
    return decorate


def _arg(k):
    return lambda args, kws: args[k] if args[k].tag != "tuple" else K.UNKNOWN


_linear(rt.unbroadcast, _arg(1))
_linear(rt.broadcast_like, lambda args, kws: K.float_result(args[1]))
_linear(rt.unreduce, lambda args, kws: K.float_result(args[1]))
_linear(rt.extremum_grad, _arg(2))
_linear(rt.extremum_tangent, _arg(0))
_linear(rt.reshape_like, _arg(1))
_linear(rt.untranspose, first_arg)
_linear(rt.slice_axis, first_arg)
_linear(rt.sum_axis, lambda args, kws: K.UNKNOWN)
_linear(rt.index_axis, lambda args, kws: K.array(args[0].ndim - 1, args[0].dtype))
_linear(rt.concatenate_parts, lambda args, kws: args[1])
_linear(rt.stack_parts, lambda args, kws: K.tuple_of(
    [K.array(args[0].ndim - 1, args[0].dtype)] * len(args[1].items)))
_linear(rt.scatter_sum, lambda args, kws: K.array(args[2].ndim, "f") if args[2].is_array
        else K.UNKNOWN)
_linear(rt.scatter_sum_axis, lambda args, kws: K.array(args[2].ndim, "f"))
_linear(rt.matmul_grad_left, _arg(1), positions=(0, 2))
_linear(rt.matmul_grad_right, _arg(2), positions=(0, 1))
_linear(rt.keep_axes, lambda args, kws: K.array(args[1].ndim, "f") if args[1].is_array
        else args[0])
_linear(rt.reverse_cumsum, _arg(1))
_linear(rt.stack_element, first_arg)  # (its value: any kind, a tuple included)
_linear(rt.value_copy, first_arg)
nondifferentiable(rt.zeros_like, rt.ones_like, kind=first_arg)
REGISTRY.register(rt.prod_others, Rule(None, _arg(0), diff_argnums=(0,), name="prod_others"))
refused(rt.prod_others_tangent, kind=_arg(0),  # (its definition takes None and int axes)
        reason="third derivatives of np.prod over a tuple of axes are not implemented")
# rt.digamma's rule (polygamma) is scipy.special.digamma's: special.py
nondifferentiable(rt.reduced_count, rt.range_item, kind=lambda args, kws: K.INT)
nondifferentiable(rt.empty_stack, kind=lambda args, kws: K.array(
    args[1].ndim + 1, args[1].scalar_dtype) if args[1].is_array or args[1].is_scalar
    else K.UNKNOWN)


def _stacked_list(args, kws):
    """The kind of np.stack of a list whose elements have one known kind."""
    item = args[0].items[0] if args[0].tag == "list" else K.UNKNOWN
    if item.is_array or item.is_scalar:
        return K.array(item.ndim + 1, item.scalar_dtype)
    return K.UNKNOWN


# (linear: its tangent is the stack of the tangents; the reverse sweep adds
# the rows of its cotangent into the list of adjoints: user_stacks.py)
_linear(rt.stack_list, _stacked_list)
nondifferentiable(rt.zeros_list, kind=first_arg)


@_adjoint_of(rt.prod_others)
def prod_others_vjp(h, ans, x, axis=None):
    # the Hessian of np.prod is symmetric: its product with h is a tangent
    return prod_others_tangent(x, h, axis), None


def _prod_others_tangent(t, ans, x, axis=None):
    return prod_others_tangent(x, t, axis)


REGISTRY.lookup(rt.prod_others).tangent = _prod_others_tangent


# ---- the helpers of s2sad.runtime.shapes: linear in the cotangent (or tangent) ----
# (a permutation's helpers depend on ans and a only through the permutation,
# which is locally constant)
_linear(rt.diag_embed, _arg(1))
_linear(rt.diagonal_embed, _arg(1))
_linear(rt.unrepeat, _arg(1))
_linear(rt.undiff, _arg(1))
_linear(rt.unpermute, _arg(2))
_linear(rt.permute_like, _arg(1))
_linear(rt.unpad, _arg(1))
_linear(rt.unpad_of, _arg(1))
_linear(rt.untile, _arg(1))
_linear(rt.unrollaxis, first_arg)
_linear(rt.ungradient, _arg(1))
_linear(rt.cross_grad_left, _arg(1), positions=(0, 2))
_linear(rt.cross_grad_right, _arg(2), positions=(0, 1))
_linear(rt.unkron_left, _arg(1), positions=(0, 2))
_linear(rt.unkron_right, _arg(2), positions=(0, 1))
_linear(rt.append_head, _arg(1))
_linear(rt.append_tail, _arg(2))
_linear(rt.unstack_nd, lambda args, kws: args[1])
_linear(rt.stack_nd, lambda args, kws: K.array(max([{"h": 1, "v": 2, "d": 3, "c": 2}[
    args[1].text]] + [k.ndim if k.is_array else 0 for k in args[0].items]), "f"))
nondifferentiable(rt.tensordot_subscripts, rt.inner_subscripts, kind=lambda args, kws: K.UNKNOWN)
_linear(rt.einsum_grad_one, _arg(2))
_linear(rt.einsum_grad_left, _arg(2), positions=(0, 3))
_linear(rt.einsum_grad_right, _arg(3), positions=(0, 2))
_linear(rt.einsum_grad_first, _arg(2), positions=(0, 3, 4))
_linear(rt.einsum_grad_second, _arg(3), positions=(0, 2, 4))
_linear(rt.einsum_grad_third, _arg(4), positions=(0, 2, 3))
_linear(rt.einsum_one, lambda args, kws: K.UNKNOWN, positions=(1,))
_linear(rt.einsum_two, lambda args, kws: K.UNKNOWN, positions=(1, 2))
_linear(rt.einsum_three, lambda args, kws: K.UNKNOWN, positions=(1, 2, 3))
_linear(rt.unsplit, _arg(1))
by_definition(rt.slogdet_tangent, kind=lambda args, kws: K.tuple_of([K.FLOAT, K.FLOAT]))
