"""The runtime helpers generated code calls, as primitives: so generated
derivatives can be differentiated again (forward over reverse)."""
from .. import runtime as rt
from ..registry import REGISTRY, Rule, first_arg, nondifferentiable
from ..transforms import kinds as K


def _no_adjoint(g, ans, *args):
    raise NotImplementedError  # never inlined: the compiler checks `template`


def _linear(fn, kind, positions=(0,)):
    REGISTRY.register(fn, Rule(None, kind, linear=positions, name=fn.__name__))


def _arg(k):
    return lambda args, kws: args[k] if args[k].tag != "tuple" else K.UNKNOWN


_linear(rt.unbroadcast, _arg(1))
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
_linear(rt.matmul_grad_left, _arg(1), positions=(0, 2))
_linear(rt.matmul_grad_right, _arg(2), positions=(0, 1))
nondifferentiable(rt.zeros_like, rt.ones_like, kind=first_arg)
nondifferentiable(rt.reduced_count, kind=lambda args, kws: K.INT)
