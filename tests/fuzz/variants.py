"""Variants of a checked program (issue #19 items 3 and 4), each compared
with the program's own gradient once that has passed its finite-difference
check:

* pytree: the differentiated float arguments that `fuzzed` never writes
  are packed into one container argument (a dict, a nested dict, a tuple,
  a list or a NamedTuple), and every read of them becomes a read of the
  container (`x` -> `p["x"]`, `p.x`, `p[0]`, `p["in"]["x"]`). The
  container's gradient must have its structure and equal the flat
  gradients.
* float32: the float arguments as float32. The gradients must be float32
  and agree with the float64 ones to float32 accuracy.

Kept apart from the generator and the checker, which call `tree_source`
(when loading programs) and `check_variants` (after a program passed)."""
import ast
import collections

import numpy as np

from .model import MAIN, Tree

FORMS = ("dict", "nested", "tuple", "list", "namedtuple")
Packed = collections.namedtuple("Packed", "x a y c A k w")  # the fuzzers' float arguments


def tree_plan(prog):
    """(form, packed argument names) for a program, or None when no
    argument can be packed: a float argument in wrt that `fuzzed` never
    binds or writes, in a function without nested functions."""
    if any(isinstance(s, Tree) for s in prog.arg_shapes):
        return None  # (a container argument is one already)
    tree = ast.parse(prog.source)
    main = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == MAIN][0]
    if any(isinstance(n, (ast.Lambda, ast.FunctionDef)) for n in ast.walk(main) if n is not main):
        return None
    stored = {n.id for n in ast.walk(main) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    for n in ast.walk(main):
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store):
            base = n.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                stored.add(base.id)
    names = [prog.arg_names[w] for w in prog.wrt if prog.arg_names[w] not in stored]
    if not names:
        return None
    form = FORMS[prog.value_seed % len(FORMS)]
    shapes = dict(zip(prog.arg_names, prog.arg_shapes))
    if form in ("tuple", "list") and all(shapes[n] == () for n in names):
        form = "dict"  # a list or tuple of plain numbers is an array (README, API)
    return form, names


def _read(form, names, name):
    k = names.index(name)
    if form == "dict":
        return f"p[{name!r}]"
    if form == "nested":
        return f"p['first'][{name!r}]" if k == 0 else f"p['rest'][{name!r}]"
    if form == "namedtuple":
        return f"p.{name}"
    return f"p[{k}]"


def tree_source(prog, renamed_source, prefix):
    """A function `<prefix>fuzzed_tree(p, <the other arguments>)` reading the
    packed arguments from the container `p`, or "" (see tree_plan)."""
    plan = tree_plan(prog)
    if plan is None:
        return ""
    form, names = plan
    tree = ast.parse(renamed_source)
    main = [f for f in tree.body if isinstance(f, ast.FunctionDef)
            and f.name == prefix + MAIN][0]

    class Reads(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in names and isinstance(node.ctx, ast.Load):
                return ast.copy_location(ast.parse(_read(form, names, node.id),
                                                   mode="eval").body, node)
            return node

    main = Reads().visit(main)
    main.name = prefix + MAIN + "_tree"
    main.args.args = [ast.arg("p")] + [a for a in main.args.args if a.arg not in names]
    return ast.unparse(ast.fix_missing_locations(main))


def pack(prog, args):
    """(the container, the other arguments) for the tree variant."""
    form, names = tree_plan(prog)
    values = {n: v for n, v in zip(prog.arg_names, args)}
    others = [v for n, v in zip(prog.arg_names, args) if n not in names]
    leaves = [values[n] for n in names]
    if form == "dict":
        p = dict(zip(names, leaves))
    elif form == "nested":
        p = {"first": {names[0]: leaves[0]}, "rest": dict(zip(names[1:], leaves[1:]))}
    elif form == "namedtuple":
        full = {f: 0.0 for f in Packed._fields}
        full.update(zip(names, leaves))
        p = Packed(**full)
    else:
        p = tuple(leaves) if form == "tuple" else list(leaves)
    return p, others


def _leaf(form, p, names, name):
    if form == "dict":
        return p[name]
    if form == "nested":
        return p["first"][name] if name == names[0] else p["rest"][name]
    if form == "namedtuple":
        return getattr(p, name)
    return p[names.index(name)]


def check_variants(L, args, grads, close):
    """None, or a failure dict for the first variant that disagrees with
    the program's gradients `grads` (one per wrt position)."""
    failure = _check_tree(L, args, grads, close)
    return failure or _check_float32(L, args, grads, close)


def _check_tree(L, args, grads, close):
    import s2sad
    prog = L.prog
    if L.tree is None:
        return None
    form, names = tree_plan(prog)
    p, others = pack(prog, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
    try:
        g = s2sad.grad(L.tree, wrt=0, jit=False)(p, *others)
    except Exception as exc:
        return dict(status="fail", category=f"pytree ({form}) error",
                    message=f"{type(exc).__name__}: {exc}"[:2000])
    if type(g) is not type(p):
        return dict(status="fail", category=f"pytree ({form}) structure",
                    message=f"gradient {type(g).__name__} for {type(p).__name__}")
    flat = dict(zip([prog.arg_names[w] for w in prog.wrt], grads))
    for n in names:
        got = _leaf(form, g, names, n)
        if np.shape(got) != np.shape(flat[n]) or not close(got, flat[n], 1e-9, 1e-12):
            return dict(status="fail", category=f"pytree ({form}) gradient",
                        message=f"d/d{n}: container {got!r}, flat {flat[n]!r}")
    return None


def _conditioned(L, args, grads, close, scale):
    """Whether the float64 gradient stays within the float32 comparison's
    tolerance when the float arguments move by a few float32 roundings
    (relative 1e-6): where it does not (np.cos(u * u) of a large u), float32
    cannot compute it, and a float32 gradient far from it is no sign of a
    wrong derivative."""
    import s2sad
    rng = np.random.default_rng(0)
    moved = [a * (1.0 + 1e-6 * rng.choice([-1.0, 1.0], size=a.shape))
             if isinstance(a, np.ndarray) and a.dtype.kind == "f" else
             a * (1.0 + 1e-6) if isinstance(a, float) else a for a in args]
    try:
        with np.errstate(all="ignore"):
            g = s2sad.grad(L.f, wrt=L.prog.wrt, jit=False)(*moved)
    except Exception:  # noqa: BLE001 - raising near the point: as ill-conditioned
        return False
    return all(close(np.asarray(u, float), want, 1e-2, 1e-3 * scale)
               for u, want in zip(g, grads))


def _size(x):
    """The largest finite magnitude in a result (0 for what is not numbers)."""
    try:
        v = np.abs(np.ravel(np.asarray(x, float)))
    except (TypeError, ValueError):
        return 0.0
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else 0.0


def _check_float32(L, args, grads, close):
    import s2sad
    prog = L.prog
    if any(isinstance(s, Tree) for s in prog.arg_shapes):
        return None  # (float32 leaves of containers: not yet)
    args32 = [a.astype(np.float32) if isinstance(a, np.ndarray) else
              np.float32(a) if isinstance(a, float) else a for a in args]
    try:
        with np.errstate(all="ignore"):
            g = s2sad.grad(L.f, wrt=prog.wrt, jit=False)(*args32)
    except Exception as exc:
        return dict(status="fail", category="float32 error",
                    message=f"{type(exc).__name__}: {exc}"[:2000])
    # float32 rounds the intermediates, whose size the outputs show as well as
    # the gradients do (a gradient that cancels to 0 in float64 is noise of
    # that size in float32)
    with np.errstate(all="ignore"):
        outputs = L.f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    scale = max([1.0] + [_size(x) for x in list(grads) + list(
        outputs if isinstance(outputs, tuple) else [outputs])])
    for w, got, want in zip(prog.wrt, g, grads):
        if np.asarray(got).dtype != np.float32:
            return dict(status="fail", category="float32 dtype",
                        message=f"d/d{prog.arg_names[w]} is {np.asarray(got).dtype}")
        if not np.all(np.isfinite(got)):
            return None  # float32 overflows where float64 does not: not comparable
        if not close(np.asarray(got, float), want, 1e-2, 1e-3 * scale) and \
                _conditioned(L, args, grads, close, scale):
            return dict(status="fail", category="float32 gradient",
                        message=f"d/d{prog.arg_names[w]}: float32 {np.round(got, 5).tolist()}, "
                                f"float64 {np.round(want, 5).tolist()}")
    return None
