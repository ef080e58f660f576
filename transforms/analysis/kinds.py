"""What kind of value each variable holds: a float, an int, a bool, an array
of some ndim and dtype, or a tuple. The derivative is generated for the kinds
of the arguments it is called with (as numba specialises on types), which is
what lets it initialise `dx = 0.0` rather than `np.zeros_like(x)`, preallocate
typed tapes and skip broadcasting reductions between scalars."""
from dataclasses import dataclass, field, replace

import inspect

import gast
import numpy as np

from . import objects
from ..syntax import walk


@dataclass(frozen=True)
class Kind:
    tag: str            # float int bool complex array tuple none str dtype object unknown
    ndim: int = 0
    dtype: str = "f"    # arrays: f (float), i (int), b (bool), c (complex)
    items: tuple = ()
    # an int literal written in the call being typed (`np.split(x, 2)`):
    # kind functions may read it; it never reaches a variable, and kinds
    # compare without it
    value: object = field(default=None, compare=False, repr=False)
    # a string argument's text (`mode="edge"`): strings are constants of the
    # specialisation, so the derivative is generated per text (none_tests.py
    # writes it into the function); of a dtype (`int`, `np.float32`), its
    # numpy kind code (f, i, b, c)
    text: object = None
    # "list" or "tuple": an array the function was given as a Python list or
    # tuple of numbers (or a tuple that is a list literal in the source):
    # sequence_args.py answers isinstance(x, list) by it and refuses what a
    # list does differently from an array (x + y concatenates)
    sequence: object = None

    @property
    def is_array(self):
        return self.tag == "array"

    @property
    def is_scalar(self):
        return self.tag in ("float", "int", "bool", "complex")

    @property
    def known(self):
        return self.tag != "unknown"

    @property
    def differentiable(self):
        """Can carry a gradient: float scalars and float arrays (or unknown)."""
        if self.tag in ("tuple", "list"):
            return any(k.differentiable for k in self.items)
        return self.tag in ("float", "unknown", "complex") or (self.is_array and self.dtype in "fc")

    @property
    def scalar_dtype(self):
        return {"float": "f", "int": "i", "bool": "b", "complex": "c"}.get(self.tag, self.dtype)

    def __str__(self):
        if self.sequence is not None:
            return f"{self.sequence} {replace(self, sequence=None)}"
        if self.is_array:
            return f"array{self.ndim}d[{self.dtype}]"
        if self.tag == "tuple":
            return "(" + ", ".join(map(str, self.items)) + ")"
        if self.tag == "str" and self.text is not None:
            return f"str {self.text!r}"
        if self.tag == "dtype":
            return f"dtype[{self.text}]"
        if self.tag == "object":
            return f"object[{self.text}]"
        return self.tag


FLOAT, INT, BOOL, COMPLEX = Kind("float"), Kind("int"), Kind("bool"), Kind("complex")
NONE, UNKNOWN = Kind("none"), Kind("unknown")
# a string (a mode or option a helper is given): a constant, never differentiated
STR = Kind("str")
# The kind of a recursive call while its function is still being typed:
# it joins away (the other return paths give the kind).
BOTTOM = Kind("bottom")


def array(ndim, dtype="f"):
    return Kind("array", ndim=ndim, dtype=dtype) if ndim > 0 else scalar(dtype)


def scalar(dtype):
    return {"f": FLOAT, "i": INT, "b": BOOL, "c": COMPLEX}[dtype]


def dtype_of(obj):
    """The kind of a dtype a function names (`int`, `np.int64`, `"float32"`,
    `x.dtype`): Kind("dtype") holding numpy's kind code of it, or None for
    anything else (unsigned integers are integers)."""
    if isinstance(obj, Kind):
        if obj.tag == "dtype":
            return obj
        obj = obj.text if obj.tag == "str" else None
    # (`is`: an array compared with `in` has no truth value)
    if not (any(obj is t for t in (int, float, bool, complex))
            or isinstance(obj, (str, np.dtype))
            or (isinstance(obj, type) and issubclass(obj, np.generic))):
        return None
    try:
        code = np.dtype(obj).kind
    except TypeError:
        return None
    code = {"u": "i"}.get(code, code)
    return Kind("dtype", text=code) if code in "fibc" else None


def tuple_of(items):
    return Kind("tuple", items=tuple(items))


def sequence_of(kind, which):
    """`kind` marked as a Python list or tuple (`which`), for an array or
    tuple; unchanged for anything else or when `which` is None."""
    if which is None or not (kind.is_array or kind.tag == "tuple"):
        return kind
    return replace(kind, sequence=which)


def list_of(item):
    """A list used as a stack (the tapes of generated code)."""
    return Kind("list", items=(item,))


def of_value(value):
    """The kind of a run-time argument."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    if isinstance(value, (float, np.floating)):
        return FLOAT
    if isinstance(value, (complex, np.complexfloating)):
        return COMPLEX
    if isinstance(value, np.ndarray):
        code = {"u": "i"}.get(value.dtype.kind, value.dtype.kind)  # unsigned: an integer
        code = code if code in "fibc" else "f"
        return array(value.ndim, code) if value.ndim else scalar(code)
    if isinstance(value, tuple):
        return tuple_of(of_value(v) for v in value)
    if value is None:
        return NONE
    if isinstance(value, str):
        return Kind("str", text=value)
    if objects.is_object(value):  # a random generator, a scipy object (objects.py)
        return object_kind(objects.kind_name(type(value)))
    return UNKNOWN


def object_kind(name):
    """The kind of a Python object of the class `name` (objects.py)."""
    return Kind("object", text=name)


_RANK = "bifc"


def promote(*dtypes):
    return max(dtypes, key=_RANK.index)


def join(a, b):
    """Kind of a variable assigned values of kinds a and b."""
    if a is None or a == BOTTOM:
        return b
    if b == BOTTOM:
        return a
    if a == b:
        return a
    if a.is_scalar and b.is_scalar:
        return scalar(promote(a.scalar_dtype, b.scalar_dtype))
    if a.tag == "str" and b.tag == "str":  # two texts: a string known only at run time
        return STR
    if a.is_array and b.is_array and a.ndim == b.ndim:
        return array(a.ndim, promote(a.dtype, b.dtype))
    if a.tag == "list" and b.tag == "list":
        return list_of(join(a.items[0], b.items[0]))
    if a.tag == "tuple" and b.tag == "tuple" and len(a.items) == len(b.items):
        return tuple_of(join(x, y) for x, y in zip(a.items, b.items))
    return UNKNOWN


def broadcast(*kinds, dtype=None):
    """Kind of an elementwise operation on `kinds`."""
    if BOTTOM in kinds:
        return BOTTOM
    if any(not k.known or k.tag in ("tuple", "none", "str", "object") for k in kinds):
        return UNKNOWN
    nd = max(k.ndim for k in kinds)
    dt = dtype or promote(*(k.scalar_dtype for k in kinds))
    return array(nd, dt)


def float_result(kind):
    """Kind of a float function (sin, exp, ...) applied elementwise."""
    if kind == BOTTOM:
        return BOTTOM
    if not kind.known:
        return UNKNOWN
    return array(kind.ndim, "c" if kind.scalar_dtype == "c" else "f")


def _negative(node, negated):
    """Whether `node` is written as a negative value: `-k`, `-2`, a name
    bound so."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return not (isinstance(node.operand, gast.Constant) and node.operand.value == 0)
    if isinstance(node, gast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value < 0
    return isinstance(node, gast.Name) and node.id in negated


class KindInference:
    """Flow-insensitive kinds of a normalised function's variables.

    `call_kind(call_node, arg_kinds, kw_kinds)` gives the kind of a call's
    result; the rest of the language is known here."""

    def __init__(self, call_kind, namespace=None):
        self.call_kind = call_kind
        self.namespace = namespace or {}

    def run(self, tree, arg_kinds):
        # names some binding gives a negated value (`neg = -k`): an int to such
        # a power is a float in Python (2 ** -1 is 0.5), and so is its tape
        self.negated = set()
        self.env = dict(zip([a.id for a in tree.args.args], arg_kinds))
        self.env.update(self.module_values(tree))
        for _ in range(4):  # loops: a few passes reach the fixpoint
            before = dict(self.env)
            self.block(tree.body)
            if self.env == before:
                break
        return self.env

    def block(self, stmts):
        for s in stmts:
            if isinstance(s, gast.Assign):
                if isinstance(s.targets[0], gast.Name) and _negative(s.value, set()):
                    self.negated.add(s.targets[0].id)
                self.assign(s.targets[0], self.expr(s.value))
            elif isinstance(s, gast.For):
                self.bind(s.target.id, INT)
                self.block(s.body)
            elif isinstance(s, (gast.If, gast.While)):
                self.block(s.body)
                self.block(s.orelse)
            elif isinstance(s, gast.Try):  # (a block kept as Python: python_blocks.py)
                for part in [s.body] + [h.body for h in s.handlers] + [s.orelse, s.finalbody]:
                    self.block(part)
            elif isinstance(s, gast.Return):
                self.env["<return>"] = self.expr(s.value)
            elif isinstance(s, gast.Expr) and _is_append(s.value):
                self.bind(s.value.func.value.id, list_of(self.expr(s.value.args[0])))

    def bind(self, var, kind):
        self.env[var] = join(self.env.get(var), _without_literals(kind))

    def assign(self, target, kind):
        if isinstance(target, gast.Name):
            self.bind(target.id, kind)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if kind.tag == "tuple" and len(kind.items) == len(target.elts):
                items = kind.items
            elif kind.is_array:  # unpacking iterates over the first axis
                items = [array(kind.ndim - 1, kind.dtype)] * len(target.elts)
            elif kind == BOTTOM:  # (a recursive call's result, not known yet this round)
                items = [BOTTOM] * len(target.elts)
            else:
                items = [UNKNOWN] * len(target.elts)
            for t, k in zip(target.elts, items):
                self.assign(t, k)

    def expr(self, node):
        if isinstance(node, gast.Constant):
            if type(node.value) is int:
                return Kind("int", value=node.value)
            return of_value(node.value)
        if isinstance(node, gast.Name):
            return self.env.get(node.id, UNKNOWN)
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                and node.value.id not in self.env:  # np.int64: a dtype of the module
            named = dtype_of(getattr(self.namespace.get(node.value.id), node.attr, None))
            if named is not None:
                return named
        if isinstance(node, gast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            if "str" in (left.tag, right.tag):  # "sq" + "uare", "%s" % n
                return STR
            if isinstance(node.op, gast.MatMult):
                return matmul(left, right)
            if left.tag == "tuple" and right.tag == "tuple" and isinstance(node.op, gast.Add):
                return tuple_of(left.items + right.items)  # x.shape + (1,): concatenated
            if left.tag == "tuple" or right.tag == "tuple":
                return UNKNOWN
            k = broadcast(left, right)
            if isinstance(node.op, gast.Div) and k.known and k.scalar_dtype in "ib":
                return array(k.ndim, "f")
            if isinstance(node.op, gast.Pow) and k.known and k.scalar_dtype == "b":
                return array(k.ndim, "i")
            if isinstance(node.op, gast.Pow) and k.tag == "int" \
                    and _negative(node.right, getattr(self, "negated", ())):
                return FLOAT  # Python's int ** -k (compiled code refuses it: python_power)
            return k
        if isinstance(node, gast.UnaryOp):
            operand = self.expr(node.operand)
            if isinstance(node.op, gast.Not):
                return BOOL
            return operand
        if isinstance(node, gast.Compare):
            kinds = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
            if any(k.tag in ("str", "none") for k in kinds):  # mode == "double", w is None
                return BOOL
            return broadcast(*kinds, dtype="b") if all(k.known for k in kinds) else BOOL
        if isinstance(node, gast.BoolOp):
            return BOOL
        if isinstance(node, gast.Subscript):
            return self.subscript(self.expr(node.value), node.slice)
        if isinstance(node, gast.Attribute):
            return self.attribute(self.expr(node.value), node.attr)
        if isinstance(node, gast.List) and not node.elts:
            return list_of(BOTTOM)
        if isinstance(node, (gast.Tuple, gast.List)):
            items = tuple_of(self.expr(e) for e in node.elts)
            # a list literal passed as an argument is a tuple here (normalize.py)
            return sequence_of(items, "list" if getattr(node, "s2sad_list", False) else None)
        if isinstance(node, gast.Call) and _is_method_of(node, "pop") and \
                self.env.get(node.func.value.id, UNKNOWN).tag == "list":
            return self.env[node.func.value.id].items[0]
        if isinstance(node, gast.Call):
            args = [self.expr(a) for a in node.args]
            kws = {k.arg: self.expr(k.value) for k in node.keywords}
            if isinstance(node.func, gast.Attribute):  # a method of an object (a draw)
                base = self.expr(node.func.value)
                if base.tag == "object":
                    return _method_kind(base, node.func.attr, args, kws)
                if base.is_array and node.func.attr == "copy" and not args and not kws:
                    return base  # (a.copy() kept as written: a helper's writing copy)
            return self.call_kind(node, args, kws)
        if isinstance(node, gast.IfExp):
            return join(self.expr(node.body), self.expr(node.orelse))
        return UNKNOWN

    def module_values(self, tree):
        """Kinds of the names the function reads from its module (`W`,
        `offset`, `PAIR = (0, 2)`) and never assigns: the kind of the number,
        array or tuple of them there. The generated module is given the same
        objects (generate.py), so the kinds stay true for it."""
        params = {a.id for a in tree.args.args}
        names, stored = set(), set()
        for n in walk(tree):
            if n.__class__ is gast.Name:
                names.add(n.id)
                if n.ctx.__class__ is not gast.Load:
                    stored.add(n.id)
        kinds = {}
        for n in names - stored - params:
            value = self.namespace.get(n, None)
            if _plain_value(value) or objects.is_object(value):
                kinds[n] = of_value(value)
            elif dtype_of(value) is not None and not isinstance(value, str):  # int, np.float32
                kinds[n] = dtype_of(value)
        return kinds

    def subscript(self, base, index):
        if base == BOTTOM:  # (a recursive call's result, not known yet this round)
            return BOTTOM
        if base.tag == "tuple":
            if isinstance(index, gast.Constant) and isinstance(index.value, int):
                return base.items[index.value] if -len(base.items) <= index.value < len(base.items) else UNKNOWN
            items = set(base.items)
            return items.pop() if len(items) == 1 else UNKNOWN
        if base.tag == "list":  # a list grown by appends: an element, or a new list
            if isinstance(index, gast.Slice):
                return base
            return base.items[0] if self.expr(index).tag in ("int", "bool") else UNKNOWN
        if not base.is_array:
            return UNKNOWN
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        nd = base.ndim
        fancy = 0
        for p in parts:
            if isinstance(p, gast.Slice) or (isinstance(p, gast.Constant)
                                             and p.value is Ellipsis):
                continue  # (x[...] and x[..., 0]: the ellipsis keeps the axes it stands for)
            if isinstance(p, gast.Constant) and p.value is None:
                nd += 1
                continue
            k = _sequence_index_kind(p) if isinstance(p, gast.List) else self.expr(p)
            if not k.known:  # (an index array of unknown rank keeps an axis or more: no guess)
                return UNKNOWN
            if k.tag == "tuple" and k.items and all(i.is_array for i in k.items):
                nd -= len(k.items)  # x[np.triu_indices(n)]: one index array per axis
                fancy = max([fancy] + [i.ndim for i in k.items])
                continue
            nd -= 1
            if k.is_array:
                if k.dtype == "b":
                    fancy = max(fancy, 1)
                    nd -= k.ndim - 1
                else:
                    fancy = max(fancy, k.ndim)
        out = array(nd + fancy, base.dtype)
        if all(isinstance(p, gast.Slice) for p in parts):  # a slice of a list is a list
            out = sequence_of(out, base.sequence)
        return out

    def attribute(self, base, attr):
        if attr == "T":
            return base
        if attr == "shape":
            return tuple_of([INT] * base.ndim) if base.is_array else UNKNOWN
        if attr in ("size", "ndim"):
            return INT
        if attr in ("real", "imag"):
            return array(base.ndim, "f") if base.is_array else FLOAT
        if attr == "dtype" and (base.is_array or base.is_scalar):
            return Kind("dtype", text=base.scalar_dtype)
        return UNKNOWN


def _method_kind(base, method, args, kws):
    """The kind of `obj.method(...)` for `obj` of kind `base` (an object:
    objects.py), given its arguments' kinds: a random generator's draws."""
    cls = objects.generator_class(base.text)
    fn = getattr(cls, method, None) if cls is not None else None
    if fn is None:
        return UNKNOWN
    dtype = "i" if method in objects.INTEGER_DRAWS else "f"
    if method in ("rand", "randn"):  # the dimensions as arguments
        return array(len(args), "f")
    if method in ("shuffle", "seed"):
        return NONE
    try:
        params = [p for p in inspect.signature(fn).parameters if p != "self"]
    except (TypeError, ValueError):
        return UNKNOWN
    bound = dict(zip(params, args))
    bound.update({k: v for k, v in kws.items() if k in params})
    if method == "permutation":
        x = bound.get("x", UNKNOWN)
        return array(1, "i") if x.tag == "int" else (x if x.is_array else UNKNOWN)
    if method == "choice":
        a = bound.get("a", UNKNOWN)
        dtype = "i" if a.tag == "int" else (a.dtype if a.is_array else None)
        if dtype is None:
            return UNKNOWN
    if "size" not in params:
        return UNKNOWN
    dtype = dtype_of(bound["dtype"]).text if "dtype" in bound and \
        dtype_of(bound["dtype"]) is not None else dtype
    size = bound.get("size", NONE)
    if size.tag == "int":
        return array(1, dtype)
    if size.tag == "tuple" and all(i.tag == "int" for i in size.items):
        return array(len(size.items), dtype)
    if size.tag != "none":
        return UNKNOWN
    if method == "choice":
        return scalar(dtype)
    others = [k for p, k in bound.items() if p not in ("size", "dtype", "out")]
    if any(not k.known or k.tag in ("tuple", "str", "object") for k in others):
        return UNKNOWN
    return array(max([k.ndim for k in others] + [0]), dtype)


def _plain_value(value):
    """A number, an array, or a tuple of them (not a module, function, list...)."""
    if isinstance(value, tuple):
        return all(_plain_value(v) for v in value)
    return isinstance(value, (np.ndarray, int, float, complex, np.number, np.bool_))


def _without_literals(kind):
    """A variable's kind holds no literal: it may be reassigned."""
    if kind is None or (kind.value is None and not kind.items):
        return kind
    return replace(kind, value=None, items=tuple(_without_literals(k) for k in kind.items))


def _sequence_index_kind(node):
    """x[[0, 0, 2]] or x[[[0, 1], [1, 2]]]: a list in an index is an index
    array (of booleans, a mask, when its elements are)."""
    depth, inner = 0, node
    while isinstance(inner, (gast.List, gast.Tuple)) and inner.elts:
        depth += 1
        inner = inner.elts[0]
    boolean = isinstance(inner, gast.Constant) and isinstance(inner.value, bool)
    return array(max(depth, 1), "b" if boolean else "i")


def matmul(a, b):
    if not (a.is_array and b.is_array):
        return UNKNOWN
    nd = {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}.get((a.ndim, b.ndim))
    if nd is None and a.ndim >= 2 and b.ndim >= 2:
        nd = max(a.ndim, b.ndim)  # stacks of matrices
    elif nd is None:
        nd = max(a.ndim, b.ndim) - 1  # a vector beside a stack: its added axis dropped
    return UNKNOWN if nd is None else array(nd, promote(a.dtype, b.dtype))


def _is_method_of(call, attr):
    return (isinstance(call.func, gast.Attribute) and call.func.attr == attr
            and isinstance(call.func.value, gast.Name))


def _is_append(node):
    return isinstance(node, gast.Call) and _is_method_of(node, "append") and len(node.args) == 1


def of_atom(atom, env, call_kind=None):
    """The kind of an operand (name, constant or subscript) given the
    variables' kinds (and, for calls inside it, `call_kind`)."""
    if isinstance(atom, gast.Constant):
        return of_value(atom.value)
    if isinstance(atom, gast.Name):
        return env.get(atom.id, UNKNOWN)
    inference = KindInference(call_kind or (lambda *a: UNKNOWN))
    inference.env = env
    return inference.expr(atom)
