"""What a gradient rule implements: the primitive's signature as far as the
rule knows it, and the values of each optional parameter it handles.

A rule's template names its parameters as the primitive does
(`def sum(g, ans, a, axis=None, keepdims=False)` for `np.sum(a, axis=None,
..., keepdims=...)`). The compiler binds every call to this signature before
anything else looks at it, so a keyword cannot be dropped on the way; a
parameter the template does not declare (`dtype=`, `out=`, `where=`) is
refused, and so is a value outside the parameter's declared `Values`
(`ord=3` for a norm rule written for the 2-norm). Nothing is ignored."""
import inspect

import gast
import numpy as np



class Values:
    """The values of one optional parameter a rule implements.

    `accepts(node, kind[, bound])` sees the argument's AST node (after
    normalisation: a name or a constant), its kind and (if it takes a third
    parameter) the kinds of all the call's arguments by parameter name. `gradient_free`
    marks a parameter the cotangents do not depend on (`dtype=float` of a
    copy): the template need not read it."""

    def __init__(self, text, accepts, gradient_free=False):
        self.text = text
        self.accepts = accepts
        self.gradient_free = gradient_free
        self.shape_only = False  # only its shape is used: no gradient, and none is missed
        self._sees_bound = len(inspect.signature(accepts).parameters) >= 3

    def __repr__(self):
        return self.text

    def allows(self, node, kind, bound):
        if self._sees_bound:
            return bool(self.accepts(node, kind, bound))
        return bool(self.accepts(node, kind))


def _constant(node):
    return node.value if isinstance(node, gast.Constant) else _NOT_CONSTANT


_NOT_CONSTANT = object()


def _is_int(kind):
    return kind.tag == "int"


def _axis(node, kind, tuples=True, none=True):
    if kind.tag == "none":
        return none
    if _is_int(kind):
        return True
    return tuples and kind.tag == "tuple" and all(_is_int(i) for i in kind.items)


AXIS = Values("None, an int or a tuple of ints", _axis)
AXIS_VALUES = ("None, an int or a tuple of ints", "None or an int", "an int")  # (texts: see bind)
AXIS_INT_OR_NONE = Values("None or an int", lambda n, k: _axis(n, k, tuples=False))
AXIS_INT = Values("an int", lambda n, k: _axis(n, k, tuples=False, none=False))
INT = Values("an int", lambda n, k: _is_int(k))
NUMBER = Values("a number", lambda n, k: k.tag in ("int", "float"))
AXES = Values("None or a tuple of ints (a permutation)", lambda n, k: k.tag == "none" or (
    k.tag == "tuple" and all(_is_int(i) for i in k.items)))


def _norm_ord(node, kind, bound):  # noqa: C901
    """np.linalg.norm's orders the rule implements: the 2-norm of all
    elements (None; "fro" of a matrix) and vector p-norms, p >= 1, over an
    int axis or a 1-D array. Matrix norms of other orders (2, 1, "nuc", the
    spectral norm...) need singular values: refused."""
    x, axis = bound.get("x"), bound.get("axis")
    vector = axis is not None and axis.tag == "int" or (
        (axis is None or axis.tag == "none") and x is not None and x.tag == "array"
        and x.ndim == 1)
    c = _constant(node)
    if c is None or (c == "fro" and not vector):
        return True
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        return False
    return vector and 1 <= c < float("inf")


NORM_ORD = Values("None, or a number p >= 1 for a vector norm (over an int axis or of a 1-D "
                  "array)", _norm_ord)
# handled before the rule sees the call (transforms/frontend/calls/bind.py lowers it)
KEEPDIMS = Values("True or False, written as a constant",
                  lambda n, k: _constant(n) is True or _constant(n) is False, gradient_free=True)
BOOL = Values("True or False, written as a constant",
              lambda n, k: _constant(n) is True or _constant(n) is False)
SCALAR = Values("a scalar", lambda n, k: k.is_scalar)
NOT_ARRAY = Values("a number (not an array, as for Python's math)", lambda n, k: not k.is_array)
MATRIX = Values("a 2-d array (stacks of matrices are not implemented)",
                lambda n, k: k.is_array and k.ndim == 2)
NOT_NONE = Values("a number or an array (not None)", lambda n, k: k.tag != "none")
# a parameter whose shape alone is used (np.full_like's a): no gradient, by nature
SHAPE_ONLY = Values("an array (its shape)", lambda n, k: True)
SHAPE_ONLY.shape_only = True
MATRICES = Values("a 2-d array or a stack of square matrices", lambda n, k: k.is_array and k.ndim >= 2)


MATMUL_OPERAND = Values("an array: a vector (1-d), a matrix or a stack of matrices whose "
                        "leading axes broadcast", lambda n, k: k.is_array)
VECTOR_OR_MATRIX = Values("a 1-d or 2-d array (stacks are not implemented)",
                          lambda n, k: k.is_array and k.ndim in (1, 2))
DOT_OPERAND = Values("a scalar or an array (N-d: a's last axis with b's second-to-last)",
                     lambda n, k: k.is_scalar or k.is_array)
UPLO = Values("'L' or 'U' (a constant)", lambda n, k: _constant(n) in ("L", "U", "l", "u"))


def one_of(*values):
    """Constants from a fixed set (`ord=None`, `ord=2`, `ord="fro"`)."""
    def accepts(node, kind):
        c = _constant(node)
        return c is not _NOT_CONSTANT and any(
            c == v and type(c) is type(v) or (c is v) or _same_number(c, v) for v in values)
    return Values("one of " + ", ".join(repr(v) for v in values) + " (a constant)", accepts)


def _same_number(a, b):
    numbers = (int, float)
    return (isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool)
            and not isinstance(b, bool) and a == b)


def _float_dtype(node, kind):
    """None, float, np.float64 or np.double, or the string of one of them."""
    c = _constant(node)
    if c is None or c in ("float", "float64", "f8", "d", "double"):
        return True
    last = node.attr if isinstance(node, gast.Attribute) else getattr(node, "id", None)
    return last in ("float", "float64", "double")


FLOAT_DTYPE = Values("None or float64 (cast to another dtype outside the differentiated "
                     "function)", _float_dtype, gradient_free=True)


# ---- the rule's signature ------------------------------------------------------

class RuleSignatureError(TypeError):
    """A template does not match the primitive it is registered for."""


def rule_signature(fn, template, values, gradient_params):
    """The inspect.Signature of `fn` as `template` implements it: the
    template's parameters after `g, ans`, each of the kind (positional-only,
    keyword or keyword-only) `fn` gives it. Checks, at registration, that the
    template names the parameters as `fn` does, that every optional one has
    its `Values`, and that the template reads every parameter that matters."""
    tparams = list(inspect.signature(template).parameters.values())[gradient_params:]
    try:
        real = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature: positional only
        real = None
    where = f"gradient rule {template.__qualname__} of {getattr(fn, '__name__', fn)}"
    params = []
    ordered = list(real.values()) if real is not None else []
    for i, p in enumerate(tparams):
        kind = inspect.Parameter.POSITIONAL_ONLY
        theirs = real.get(p.name) if real is not None else None
        if real is None or isinstance(fn, np.ufunc) or (
                i < len(ordered) and ordered[i].kind == ordered[i].POSITIONAL_ONLY):
            pass  # by position: names do not matter
        elif theirs is not None and theirs.kind in (theirs.POSITIONAL_OR_KEYWORD,
                                                    theirs.KEYWORD_ONLY):
            kind = theirs.kind
            if i >= len(ordered) or ordered[i].name != p.name:
                # np.sum's keepdims is its fifth parameter, the template's third:
                # np.sum(x, 0, True) means dtype=True to numpy, so by keyword only
                kind = inspect.Parameter.KEYWORD_ONLY
        elif any(q.kind == q.VAR_POSITIONAL for q in ordered[:i + 1]):
            pass  # f(*args): what the template takes positionally
        else:
            raise RuleSignatureError(f"{where}: '{p.name}' is not a parameter of "
                                     f"{getattr(fn, '__name__', fn)}{inspect.signature(fn)}")
        if p.default is not p.empty and p.name not in values:
            raise RuleSignatureError(f"{where}: optional parameter '{p.name}' needs the "
                                     f"values it implements (values={{'{p.name}': ...}})")
        params.append(inspect.Parameter(p.name, kind, default=p.default))
    for name in values:
        if name not in {p.name for p in tparams}:
            raise RuleSignatureError(f"{where}: values given for '{name}', which the "
                                     f"template does not take")
    return inspect.Signature(params)


def unread_parameters(template_tree_loads, signature, values):
    """Optional parameters a template never reads although they may change
    the gradient: a rule that ignored `axis` would be wrong without a word.
    (A required one may go unread: `add`'s cotangents do not read `x`.)"""
    return [p.name for p in signature.parameters.values()
            if p.default is not p.empty and p.name not in template_tree_loads
            and not (p.name in values and values[p.name].gradient_free)]


def describe_values(signature, values, diff_params):
    """One line per rule for the README: its parameters and their values."""
    parts = []
    for p in signature.parameters.values():
        if p.default is p.empty:
            parts.append(p.name + (f": {values[p.name].text}" if p.name in values else "")
                         + ("" if p.name in diff_params else " (no gradient)"))
        else:
            parts.append(f"{p.name}: {values[p.name].text}")
    return "; ".join(parts)


# ---- values of the shape, sorting and contraction rules (rules/shapes.py, contractions.py) ----

# np.squeeze's axis: the cotangent is a reshape to the argument's shape whatever it is
AXIS_OF_SHAPE = Values("None, an int or a tuple of ints", _axis, gradient_free=True)
PAIR_OF_AXES = Values("a pair of ints (a tuple)", lambda n, k: k.tag == "tuple" and len(
    k.items) == 2 and all(_is_int(i) for i in k.items))
INT_OR_INTS = Values("an int or a tuple of ints", lambda n, k: _is_int(k) or (
    k.tag == "tuple" and all(_is_int(i) for i in k.items)))


def _pad_width(node, kind):
    return _is_int(kind) or (kind.tag == "tuple" and all(
        _is_int(i) or (i.tag == "tuple" and all(_is_int(j) for j in i.items))
        for i in kind.items))


PAD_WIDTH = Values("an int, a tuple of ints or a tuple of pairs", _pad_width)
ARRAY = Values("an array (at least 1-d)", lambda n, k: k.is_array)
AT_LEAST_2D = Values("an array of at least 2 dimensions", lambda n, k: k.is_array and k.ndim >= 2)
REAL = Values("a real (not complex) number or array",
              lambda n, k: k.known and k.tag not in ("tuple", "none") and k.scalar_dtype != "c")
# np.sort's kind: every algorithm gives the same sorted values
SORT_KIND = Values("None or an algorithm's name (a constant)", lambda n, k: _constant(n) is None or
                   isinstance(_constant(n), str), gradient_free=True)
PAD_MODE = Values("'constant' or 'edge' (a constant)", lambda n, k: _constant(n) in ("constant",
                                                                                     "edge"))


def _einsum_subscripts(node, kind):
    """Explicit or implicit subscripts written as a constant: letters, and
    '...' at most once per operand."""
    c = _constant(node)
    if not isinstance(c, str):
        return False
    inputs, _, output = c.replace(" ", "").partition("->")
    parts = inputs.split(",") + [output]
    return all(p.count("...") <= 1 and p.replace("...", "").isalpha() or p in ("", "...")
               for p in parts) and len(set(output.replace(".", ""))) == len(
                   output.replace(".", ""))


EINSUM_SUBSCRIPTS = Values("a constant string of letters (and '...')", _einsum_subscripts)
TENSORDOT_AXES = Values("an int, or a pair of ints or of tuples of ints",
                        lambda n, k: _is_int(k) or (k.tag == "tuple" and len(k.items) == 2 and all(
                            _is_int(i) or (i.tag == "tuple" and all(_is_int(j) for j in i.items))
                            for i in k.items)))
GRADIENT_OF = Values("a 1-d array, or an array with an int axis (np.gradient's list of results "
                     "is not implemented)", lambda n, k, bound: k.is_array and (
                         k.ndim == 1 or (bound.get("axis") is not None
                                         and bound["axis"].tag == "int")))
ARRAY_OR_NONE = Values("an array", lambda n, k: k.is_array)
