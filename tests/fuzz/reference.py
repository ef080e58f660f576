"""The instrumented twin of a generated program, for finite differences.

Finite differences of the plain function are wrong in two cases, and the
twin handles both:

* a kink (a branch, `abs`, `min`, `np.where`, `%`, ...) between x - h and
  x + h: every branch outcome and every kink's side is traced; a perturbed
  run whose trace differs from the unperturbed run's is flagged, and the
  checker then does not trust finite differences for that program;
* markers, whose values are constants for the derivative: the unperturbed
  run records the value of every `stop_gradient(e)`, of every assignment
  inside `with stop_recording():`, and of every local variable at a
  `reset_recording()`; perturbed runs replay the recorded values. This is
  exactly "a constant for differentiation", as long as the control flow is
  unchanged (which the trace checks).
"""
import ast
import math

import numpy as np

KINKS = {
    "abs", "min", "max", "round", "int", "math.fabs", "math.floor", "math.ceil",
    "np.abs", "np.absolute", "np.fabs", "np.maximum", "np.minimum", "np.clip", "np.max",
    "np.min", "np.amax", "np.amin", "np.where", "np.sign", "np.floor", "np.ceil",
    "np.argmax", "np.argmin", "np.round", "np.linalg.norm",
}
MARKER_SG = {"stop_gradient", "s2sad.stop_gradient"}
MARKER_SR = {"stop_recording", "s2sad.stop_recording"}
MARKER_RESET = {"reset_recording", "s2sad.reset_recording"}


class Recorder:
    """`_R` in a reference module: traces kinks and replays marker values."""

    def __init__(self):
        self.mode = "off"
        self.trace = []
        self.values = []
        self.pos = 0
        self.vpos = 0
        self.diverged = False

    def record(self):
        self.mode, self.trace, self.values, self.diverged = "record", [], [], False

    def replay(self):
        self.mode, self.pos, self.vpos, self.diverged = "replay", 0, 0, False

    def finish(self):
        """After a replayed run: did it follow the recorded path exactly?"""
        if self.mode == "replay" and (self.pos != len(self.trace) or self.vpos != len(self.values)):
            self.diverged = True
        return not self.diverged

    def _sig(self, sig):
        if self.mode == "record":
            self.trace.append(sig)
        elif self.mode == "replay":
            if self.pos >= len(self.trace) or not _same(self.trace[self.pos], sig):
                self.diverged = True
            self.pos += 1

    def br(self, c):
        c = bool(c)
        self._sig(c)
        return c

    def k(self, fn, *args, **kwargs):
        r = fn(*args, **kwargs)
        self._sig(_freeze(_kink_signature(fn, r, args, kwargs)))
        return r

    def mod(self, a, b):
        self._sig(_freeze(np.floor(np.asarray(a) / b)))
        return a % b

    def sg(self, v):
        if self.mode == "record":
            self.values.append(_copy(v))
            return v
        if self.mode == "replay":
            if self.vpos >= len(self.values):
                self.diverged = True
                return v
            rec = self.values[self.vpos]
            self.vpos += 1
            if np.shape(rec) != np.shape(v) if not isinstance(v, tuple) else len(rec) != len(v):
                self.diverged = True
                return v
            return _copy(rec)
        return v


# the parameters of the kinks called with keywords, in their order
_PARAMS = {np.max: ("a", "axis", "out", "keepdims"), np.clip: ("a", "a_min", "a_max"),
           np.linalg.norm: ("x", "ord", "axis", "keepdims")}
_PARAMS.update({np.amax: _PARAMS[np.max], np.min: _PARAMS[np.max], np.amin: _PARAMS[np.max]})


def _kink_signature(fn, r, args, kwargs):
    """What must not change between the unperturbed and a perturbed run:
    the side of every kink (which element is the extremum, the sign of an
    abs, a clipped element...)."""
    b = dict(zip(_PARAMS.get(fn, ()), args))
    b.update(kwargs)
    a = [np.asarray(v) for v in args]
    if fn in (np.max, np.amax, np.min, np.amin):
        # which elements are the extremum, over any axes (a tuple too)
        x = np.asarray(b["a"])
        return np.equal(x, fn(x, axis=b.get("axis"), keepdims=True))
    if fn in (abs, math.fabs, np.abs, np.fabs):
        return np.sign(a[0])
    if fn in (min, max, np.minimum, np.maximum):
        return np.greater(a[0], a[1]) if len(a) == 2 else np.argmax(a[0])
    if fn is np.clip:
        x = np.asarray(b["a"])
        lo, hi = b.get("a_min"), b.get("a_max")   # (None: no bound on that side)
        return (None if lo is None else np.less(x, lo), None if hi is None else np.greater(x, hi))
    if fn is np.where:
        return np.asarray(a[0], dtype=bool)
    if fn is np.linalg.norm:
        # away from a zero norm; a p-norm (p != 2) has a kink where an element is 0
        o = b.get("ord")
        signs = np.sign(b["x"]) if o is not None and o not in (2, "fro") else None
        return (np.greater(r, 1e-3), signs)
    return r


def _copy(v):
    if isinstance(v, tuple):
        return tuple(_copy(e) for e in v)
    if isinstance(v, np.ndarray):
        return v.copy()
    return v


def _freeze(sig):
    if isinstance(sig, tuple):
        return tuple(_freeze(s) for s in sig)
    if isinstance(sig, np.ndarray):
        return (sig.shape, sig.tobytes())
    if isinstance(sig, float) and math.isnan(sig):
        return "nan"
    return sig if not isinstance(sig, np.generic) else sig.item()


def _same(a, b):
    return a == b


# ---- the source rewrite ----------------------------------------------------------

def _fname(node):
    try:
        return ast.unparse(node.func)
    except Exception:  # pragma: no cover
        return ""


def _names_bound(stmt):
    """Names a statement surely binds (not subscripts): a simple statement's
    targets; an if's, those every branch binds (`if how == "a": s = ...
    else: s = ...`: s is read after it, and a reset_recording there freezes
    it too)."""
    if isinstance(stmt, ast.If):
        if not stmt.orelse:
            return []
        both = set(_block_bound(stmt.body)) & set(_block_bound(stmt.orelse))
        return [n for n in _block_bound(stmt.body) if n in both]
    out = []
    targets = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.append(n.id)
    return out


def _block_bound(stmts):
    return [n for st in stmts for n in _names_bound(st)]


def _call(func, args):
    return ast.Call(func=ast.parse(func, mode="eval").body, args=args, keywords=[])


# array methods with kinks: x.max(axis=0) is traced as np.max(x, axis=0)
KINK_METHODS = {"max": "np.max", "min": "np.min", "clip": "np.clip"}


class _Exprs(ast.NodeTransformer):
    """Kinks and stop_gradient inside expressions."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = _fname(node)
        if f in MARKER_SG:
            return _call("_R.sg", node.args)
        if f in KINKS:
            return ast.Call(func=ast.parse("_R.k", mode="eval").body,
                            args=[node.func] + node.args, keywords=node.keywords)
        if isinstance(node.func, ast.Attribute) and node.func.attr in KINK_METHODS \
                and not f.startswith(("np.", "math.", "s2sad.")):
            return ast.Call(func=ast.parse("_R.k", mode="eval").body,
                            args=[ast.parse(KINK_METHODS[node.func.attr], mode="eval").body,
                                  node.func.value] + node.args, keywords=node.keywords)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        node.test = _call("_R.br", [node.test])
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod):
            return _call("_R.mod", [node.left, node.right])
        return node


def _as_assign(stmt):
    """`t op= e` as `t = t op e`."""
    if isinstance(stmt, ast.AugAssign):
        load = ast.parse(ast.unparse(stmt.target), mode="eval").body
        return ast.Assign(targets=[stmt.target],
                          value=ast.BinOp(left=load, op=stmt.op, right=stmt.value), lineno=0)
    return stmt


# calls writing a whole array they are given: (name, which argument)
HIDDEN_WRITES = {"np.copyto": 0, "update_add": 0, "update_fill": 0, "update_scale": 0,
                 "update_through": 0, "update_rows": 0}


def _hidden_write_target(stmt):
    """The array a statement writes whole through a call (`np.copyto(b, e)`,
    `b.fill(s)`, `np.multiply(e, c, out=b)`, a helper doing `p += e`), or None."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    call, f = stmt.value, _fname(stmt.value)
    target = None
    if f in HIDDEN_WRITES and call.args:
        target = call.args[HIDDEN_WRITES[f]]
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "fill":
        target = call.func.value
    else:
        target = next((k.value for k in call.keywords if k.arg == "out"), None)
    return target.id if isinstance(target, ast.Name) else None


def _frozen_block(stmts):
    """Inside `with stop_recording()`: every value assigned is recorded, and
    every array written whole by a call (its new value, a constant)."""
    out = []
    for s in stmts:
        s = _as_assign(s)
        written = _hidden_write_target(s)
        if written:
            out += [s] + ast.parse(f"{written}[...] = _R.sg({written})").body
            continue
        if isinstance(s, ast.Assign):
            s.value = _call("_R.sg", [s.value])
        for field in ("body", "orelse"):
            if hasattr(s, field) and getattr(s, field):
                setattr(s, field, _frozen_block(getattr(s, field)))
        out.append(s)
    return out


def _rewrite_block(stmts, defined, args, in_recording=False):
    """Rewrite statements; `defined`: local names defined at this point (the
    generator only uses a name in the block that bound it, and nested ones)."""
    out = []
    defined = list(defined)
    for s in stmts:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _fname(s.value) in MARKER_RESET:
            names = [n for n in dict.fromkeys(defined) if n not in args]
            if names:
                tup = ", ".join(names)
                out.extend(ast.parse(f"({tup},) = _R.sg(({tup},))").body)
            else:
                out.append(ast.Pass())
            continue
        if isinstance(s, ast.With) and len(s.items) == 1 and isinstance(s.items[0].context_expr, ast.Call) \
                and _fname(s.items[0].context_expr) in MARKER_SR:
            body = _rewrite_block(s.body, defined, args, True)
            for b in s.body:
                defined.extend(_names_bound(b))
            out.extend(_frozen_block(body) if not in_recording else body)
            continue
        if isinstance(s, (ast.If, ast.While)):
            s.test = _call("_R.br", [s.test])
        inner = list(defined)
        if isinstance(s, ast.For):
            inner += [n.id for n in ast.walk(s.target) if isinstance(n, ast.Name)]
        for field in ("body", "orelse"):
            if hasattr(s, field) and getattr(s, field):
                setattr(s, field, _rewrite_block(getattr(s, field), inner, args, in_recording))
        defined.extend(_names_bound(s))
        out.append(s)
    return out


def reference_source(source):
    """The instrumented twin of a module's source (same function names)."""
    tree = ast.parse(source)
    for fdef in tree.body:
        if isinstance(fdef, ast.FunctionDef):
            args = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs}
            fdef.body = _rewrite_block(fdef.body, [], args)
    tree = _Exprs().visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"
