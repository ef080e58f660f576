"""The gradient rule registry: one rule per primitive function.

A rule is a template (see `s2sad.transforms.templates`) plus what the
compiler needs to know about the primitive: the kind of its result, whether
its cotangents must be summed back over broadcast axes, and which arguments
carry gradients. Rules are looked up by the Python object a call resolves
to, so `np.sin`, `math.sin` and a user's `from numpy import sin` agree.
"""
import contextlib
import inspect

from . import libraries

from .transforms.parameters import describe_values, rule_signature, unread_parameters
from .transforms.analysis import kinds as K
from .transforms.templates import template_of
from .transforms.errors import S2sadTypeError


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
        self.tangent_variants = []
        # What the rule implements (transforms/parameters.py): None for rules without a
        # template (user rules, no-gradient rules), whose calls are not bound.
        self._signature = None
        self._declared_for = None  # (fn, values): s2sad's own rule, its signature read at first use
        self.values = {}
        self.refusal = None  # why a gradient that exists is not implemented (`refused`)

    def declare(self, fn, values):
        """Take the template's parameters as what this rule implements of
        `fn`, and check the template against `fn` (see transforms/parameters.py).
        s2sad's own rules read their signatures at first use (inspect.signature
        of 180 numpy functions was a sixth of loading the compiler); the tests
        check them all (run_deferred_checks)."""
        self.values = dict(values)
        if _deferring:
            self._declared_for = (fn, dict(values))
        else:
            self._signature = rule_signature(fn, self.template, values, 2)
        check_template(lambda: self._check_reads(*self._as_declared()))

    def _as_declared(self):
        """The signature and values as `declare` took them (a variant may
        later add parameters its own template reads)."""
        if self._declared_for is not None:
            fn, values = self._declared_for
            return rule_signature(fn, self.template, values, 2), values
        return self.signature, self.values

    @property
    def signature(self):
        if self._signature is None and self._declared_for is not None:
            fn, values = self._declared_for
            self._signature = rule_signature(fn, self.template, values, 2)
        return self._signature

    @signature.setter
    def signature(self, value):
        self._signature = value

    @property
    def declared(self):
        """Whether the rule has a signature (without reading it)."""
        return self._signature is not None or self._declared_for is not None

    def _check_reads(self, signature, values):
        unread = unread_parameters(template_of(self.template).loads, signature, values)
        if unread:
            raise S2sadTypeError(f"gradient rule {self.template.__qualname__} of {self.name} "
                            f"never reads {', '.join(unread)}: a rule must use every "
                            f"parameter it declares, or not declare it (calls with it are "
                            f"then refused)")

    def add_variant(self, fn, when, template, values):
        """A variant takes the rule's first parameters (it applies only when
        the call gives no others: its predicate takes no more), or all of them
        and more (math.log's `base`): those become optional parameters of the
        rule."""
        mine = list(inspect.signature(template).parameters)[2:]
        theirs = list(self.signature.parameters)
        n = min(len(mine), len(theirs))
        if mine[:n] != theirs[:n]:
            raise S2sadTypeError(f"template {template.__qualname__} takes {mine}, but its rule "
                            f"{self.template.__qualname__} takes {theirs}")
        if len(mine) > len(theirs):
            extended = rule_signature(fn, template, values, 2)
            params = list(self.signature.parameters.values())
            for p in list(extended.parameters.values())[len(theirs):]:
                params.append(p.replace(default=None) if p.default is p.empty else p)
            self.signature = self.signature.replace(parameters=params)
            self.values.update(values)
        self.variants.append((when, template))

    @property
    def required(self):
        """The parameters written positionally in a bound call."""
        return [p.name for p in self.signature.parameters.values() if p.default is p.empty]

    @property
    def diff_params(self):
        return [p for i, p in enumerate(self.required) if self.diff_mask(len(self.required))[i]]

    def parameters_text(self):
        return describe_values(self.signature, self.values, self.diff_params)

    def template_for(self, arg_kinds, kw_kinds=None):
        """The most specific template for these argument kinds (positional,
        and keyword by name), so that e.g. a 2-D matrix product reads
        `g @ y.T` rather than a generic helper."""
        return _chosen(self.variants, self.template, arg_kinds, kw_kinds)

    def tangent_for(self, arg_kinds, kw_kinds=None):
        return _chosen(self.tangent_variants, self.tangent, arg_kinds, kw_kinds)

    def kind(self, arg_kinds, kw_kinds):
        # an argument of unknown kind has no rank or dtype to read: a kind
        # rule reading them gives an unknown result, never one made from the
        # placeholder's (np.expand_dims of it is not a 1-d array)
        arg_kinds = [_opaque(k) for k in arg_kinds]
        kw_kinds = {n: _opaque(k) for n, k in (kw_kinds or {}).items()}
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


class _UnknownKind:
    """K.UNKNOWN as a kind rule sees it: its tag and questions answer as
    UNKNOWN's, its rank and dtype raise."""
    tag, items, value, text, sequence = "unknown", (), None, None, None
    known = is_array = is_scalar = False
    differentiable = True

    def __eq__(self, other):
        return other == K.UNKNOWN

    def __hash__(self):
        return hash(K.UNKNOWN)

    def __getattr__(self, name):  # ndim, dtype, scalar_dtype
        raise AttributeError(f"the {name} of an unknown kind")


_UNKNOWN_ARGUMENT = _UnknownKind()


def _opaque(kind):
    return _UNKNOWN_ARGUMENT if isinstance(kind, K.Kind) and kind == K.UNKNOWN else kind


class Registry:
    def __init__(self):
        self._rules = {}
        # the user's own: derivatives generated before one are generated again
        # (guards.snapshot); s2sad/source_cache.py keeps nothing after one
        self.user_registrations = 0

    def register(self, obj, rule):
        if not _deferring:  # a user's: s2sad's own rules for obj first, which it overrides
            libraries.load_for(obj)
            self.user_registrations += 1
        self._rules[_key(obj)] = rule

    def lookup(self, obj):
        try:
            rule = self._rules.get(_key(obj))
        except TypeError:  # unhashable: not a primitive
            return None
        if rule is None and libraries.load_for(obj):  # (scipy's rules load late)
            rule = self._rules.get(_key(obj))
        return rule

    def __contains__(self, obj):
        return self.lookup(obj) is not None


# The checks of a template against its function (it reads every parameter
# it declares; a tangent template is one expression) parse the template's
# source: a sixth of a second for s2sad's own templates, at every process's
# first derivative. While those load (rules/__init__.py) the checks wait in
# this list, and the tests run them (run_deferred_checks); a user's
# registration is checked at once.
_deferred = []      # those checks, kept for the tests
_deferring = False  # while rules/__init__.py loads s2sad's own templates


@contextlib.contextmanager
def deferring_checks():
    global _deferring
    before, _deferring = _deferring, True
    try:
        yield
    finally:
        _deferring = before


libraries.loading = deferring_checks


def check_template(check):
    """Run `check()` now, or (s2sad's own templates) keep it for the tests."""
    if _deferring:
        _deferred.append(check)
    else:
        check()


def run_deferred_checks():
    """Run the checks of s2sad's own templates (tests/test_rules.py)."""
    for check in list(_deferred):
        check()


def _key(obj):
    # bound builtin methods compare by identity of their function
    return obj


REGISTRY = Registry()


def adjoint(*functions, kind=None, elementwise=False, diff_argnums=None, when=None,
            pointwise=False, linear=None, values=None):
    """Register the decorated template as the gradient rule of `functions`.

    The template's parameters after `g, ans` are the function's, named as
    the function names them; `values` gives, for each optional one, the
    values the rule implements (`s2sad.transforms.parameters`). Calls are bound to
    this signature, and anything else is refused.

    With `when` (a predicate on the argument kinds) the template is a
    variant of an already registered rule, used when the predicate holds;
    it takes the same parameters."""
    def decorate(template):
        for fn in functions:
            if when is not None:
                rule = REGISTRY.lookup(fn)
                rule.add_variant(fn, when, template, values or {})
                continue
            rule = Rule(template, kind, elementwise=elementwise, diff_argnums=diff_argnums,
                        pointwise=pointwise, linear=linear,
                        name=getattr(fn, "__name__", str(fn)))
            rule.declare(fn, values or {})
            REGISTRY.register(fn, rule)
        return template
    return decorate


def tangent(*functions, when=None):
    """Register the decorated function as the forward-mode (tangent)
    template of `functions`: parameters are the tangents of the
    differentiable arguments, then `ans` and the arguments (by the names of
    the rule's template). With `when`, a variant (see `adjoint`)."""
    def decorate(template):
        check_template(lambda: _one_expression(template))
        for fn in functions:
            rule = REGISTRY.lookup(fn)
            if rule.declared:
                check_template(lambda rule=rule: _same_parameters(
                    template, rule.template, len(rule.diff_params) + 1, 2))
            if when is not None:
                rule.tangent_variants.append((when, template))
            else:
                rule.tangent = template
        return template
    return decorate


def _one_expression(template):
    """A tangent template returns one expression: a tuple of them is taken
    apart wrongly where the tangent is unpacked (a helper returning the tuple
    is right), so it is refused where it is registered."""
    import ast
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(template)))
    except (OSError, TypeError):
        return
    if any(isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple) for r in ast.walk(tree)):
        raise S2sadTypeError(f"tangent template {template.__qualname__} returns a tuple of "
                        f"expressions: return one (a helper's call that makes the tuple)")


def _chosen(variants, default, arg_kinds, kw_kinds):
    for when, template in variants:
        try:
            if when(*arg_kinds, **(kw_kinds or {})):
                return template
        except TypeError:  # a predicate for other arguments (or keywords)
            continue
    return default


def _same_parameters(template, reference, skip, skip_reference):
    """A variant or tangent template takes the rule's parameters, by name."""
    mine = list(inspect.signature(template).parameters)[skip:]
    theirs = list(inspect.signature(reference).parameters)[skip_reference:]
    if mine != theirs:
        raise S2sadTypeError(f"template {template.__qualname__} takes {mine}, but its rule "
                        f"{reference.__qualname__} takes {theirs}")


def _no_gradient(g, ans, *args):
    return None


def refused(*functions, kind, reason):
    """Register `functions` as having a gradient s2sad does not implement: a
    call is fine while nothing it is given needs a gradient, and raises
    LookupError with `reason` otherwise (never a silent zero)."""
    for fn in functions:
        rule = Rule(_no_gradient, kind, name=getattr(fn, "__name__", str(fn)))
        rule.refusal = reason
        REGISTRY.register(fn, rule)


def by_definition(*functions, kind):
    """Register `functions` (runtime helpers generated derivatives call) as
    differentiated through their definitions (s2sad/definitions), which the
    call binder puts in their place where a derivative of a derivative reads
    them: the rule gives their results' kind, and refuses a call no
    definition takes."""
    for fn in functions:
        name = getattr(fn, "__name__", str(fn))
        rule = Rule(_no_gradient, kind, name=name)
        rule.refusal = f"{name} is differentiated through its definition, which does not take " \
                       f"this call"
        REGISTRY.register(fn, rule)


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
    """sum/mean/max/... with an optional axis (a keyword, once bound)."""
    x = args[0]
    axis = kws.get("axis", K.NONE)
    dtype = "f" if not x.is_array or x.dtype != "i" else "i"
    if axis.tag == "none":
        return K.scalar(dtype)
    if not x.is_array:
        return K.UNKNOWN
    removed = len(axis.items) if axis.tag == "tuple" else 1
    return K.array(x.ndim - removed, x.dtype)


def norm_kind(args, kws):
    """np.linalg.norm: a vector norm over an int axis, a matrix norm over a
    pair of axes, the norm of all elements without one."""
    axis = kws.get("axis", K.NONE)
    if axis.tag == "none" or not args[0].is_array:
        return K.FLOAT
    removed = len(axis.items) if axis.tag == "tuple" else 1
    return K.array(args[0].ndim - removed, "f")


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
    """np.array(x) and friends: x's kind; a (nested) tuple of numbers or of
    arrays of one ndim (the literal np.array([3, 3, 1]), np.asarray([x > 0,
    x < 1])) is an array of its depth plus theirs, of numpy's dtype: bool
    when every element is a bool (a mask, never differentiated), int when
    every one is an int or bool, else float."""
    if args[0].tag != "tuple":
        return args[0]
    depth, item = 0, args[0]
    while item.tag == "tuple" and item.items:
        depth, item = depth + 1, item.items[0]
    leaves = list(_leaves(args[0]))
    if not depth or not all(k.is_scalar or k.is_array for k in leaves) \
            or len({k.ndim for k in leaves}) != 1:
        return K.UNKNOWN
    dtypes = {k.scalar_dtype for k in leaves}
    dtype = "b" if dtypes == {"b"} else "i" if dtypes <= {"i", "b"} else K.promote(*dtypes)
    return K.array(depth + item.ndim, dtype)


def _leaves(kind):
    if kind.tag == "tuple":
        for k in kind.items:
            yield from _leaves(k)
    else:
        yield kind
