"""The gradient rule registry: one rule per primitive function.

A rule is a template (see `s2sad.transforms.templates`) plus what the
compiler needs to know about the primitive: the kind of its result, whether
its cotangents must be summed back over broadcast axes, and which arguments
carry gradients. Rules are looked up by the Python object a call resolves
to, so `np.sin`, `math.sin` and a user's `from numpy import sin` agree.
"""
from .transforms import kinds as K


class Rule:
    def __init__(self, template, kind, elementwise=False, nondiff=False, diff_argnums=None,
                 name=None, function=None, pointwise=False, linear=None, tangent=None):
        self.template = template
        # Forward mode. A pointwise rule's cotangents are `g` times partial
        # derivatives, so its tangent is the same template with the
        # argument's tangent for `g`; a primitive linear in the arguments at
        # `linear` is its own tangent map; otherwise `tangent` is a template
        # taking one tangent per differentiable argument, then ans and args.
        self.pointwise = pointwise or elementwise
        self.linear = linear
        self.tangent = tangent
        self.function = function  # a user rule called, not inlined (register_gradient)
        self.kind_fn = kind
        self.elementwise = elementwise
        self.nondiff = nondiff
        self.diff_argnums = diff_argnums
        self.name = name
        self.variants = []  # (predicate on argument kinds, template), tried first

    def template_for(self, arg_kinds):
        """The most specific template for these argument kinds, so that e.g.
        a 2-D matrix product reads `g @ y.T` rather than a generic helper."""
        for when, template in self.variants:
            try:
                if when(*arg_kinds):
                    return template
            except TypeError:  # predicate for another number of arguments
                continue
        return self.template

    def kind(self, arg_kinds, kw_kinds):
        try:
            return self.kind_fn(arg_kinds, kw_kinds)
        except Exception:  # a kind rule must never break compilation
            return K.UNKNOWN

    def diff_mask(self, n_args):
        if self.nondiff:
            return [False] * n_args
        if self.diff_argnums is None:
            return [True] * n_args
        return [i in self.diff_argnums for i in range(n_args)]


class Registry:
    def __init__(self):
        self._rules = {}
        self.version = 0  # derivatives generated before a registration are regenerated

    def register(self, obj, rule):
        self._rules[_key(obj)] = rule
        self.version += 1

    def lookup(self, obj):
        try:
            return self._rules.get(_key(obj))
        except TypeError:  # unhashable: not a primitive
            return None

    def __contains__(self, obj):
        return self.lookup(obj) is not None


def _key(obj):
    # bound builtin methods compare by identity of their function
    return obj


REGISTRY = Registry()


def adjoint(*functions, kind=None, elementwise=False, diff_argnums=None, when=None,
            pointwise=False, linear=None):
    """Register the decorated template as the gradient rule of `functions`.

    With `when` (a predicate on the argument kinds) the template is a
    variant of an already registered rule, used when the predicate holds."""
    def decorate(template):
        for fn in functions:
            if when is not None:
                REGISTRY.lookup(fn).variants.append((when, template))
                continue
            REGISTRY.register(fn, Rule(template, kind, elementwise=elementwise,
                                       diff_argnums=diff_argnums, pointwise=pointwise,
                                       linear=linear, name=getattr(fn, "__name__", str(fn))))
        return template
    return decorate


def tangent(*functions):
    """Register the decorated function as the forward-mode (tangent)
    template of `functions`: parameters are the tangents of the
    differentiable arguments, then `ans` and the arguments."""
    def decorate(template):
        for fn in functions:
            REGISTRY.lookup(fn).tangent = template
        return template
    return decorate


def _no_gradient(g, ans, *args):
    return None


def nondifferentiable(*functions, kind):
    """Register `functions` as having no gradient (their results are
    constants for differentiation)."""
    for fn in functions:
        REGISTRY.register(fn, Rule(_no_gradient, kind, nondiff=True,
                                   name=getattr(fn, "__name__", str(fn))))


# ---- result kinds used by the rule modules ----------------------------------

def same_as_first(args, kws):
    return K.float_result(args[0])


def float_scalar(args, kws):
    return K.FLOAT


def int_scalar(args, kws):
    return K.INT


def bool_like_first(args, kws):
    return K.array(args[0].ndim, "b") if args[0].is_array else K.BOOL


def broadcast_float(args, kws):
    k = K.broadcast(*args)
    return K.float_result(k) if k.known else k


def broadcast_args(args, kws):
    return K.broadcast(*args)


def first_arg(args, kws):
    return args[0]


def reduction(args, kws):
    """sum/mean/max/... with an optional axis (positional or keyword)."""
    x = args[0]
    axis = kws.get("axis", args[1] if len(args) > 1 else K.NONE)
    dtype = "f" if not x.is_array or x.dtype != "i" else "i"
    if axis.tag == "none":
        return K.scalar(dtype)
    if not x.is_array:
        return K.UNKNOWN
    removed = len(axis.items) if axis.tag == "tuple" else 1
    return K.array(x.ndim - removed, x.dtype)


def shape_ndim(shape_kind):
    if shape_kind.tag == "int":
        return 1
    if shape_kind.tag == "tuple":
        return len(shape_kind.items)
    return None


def created_array(args, kws):
    """np.zeros(shape, dtype=...) and friends: float unless an integer or
    bool dtype is asked for."""
    nd = shape_ndim(args[0]) if args else None
    if nd is None:
        return K.UNKNOWN
    return K.array(nd, "f")


def like_first(args, kws):
    return args[0] if args[0].tag != "tuple" else K.UNKNOWN
