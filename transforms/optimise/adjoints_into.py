"""A helper's vjp that adds into its caller's adjoint instead of returning
a new one (the optimisation `adjoints_into`):

    def vjp_f(A, k, dres):                 def vjp_f_into(A, k, dres, dA):
        dA = np.zeros_like(A)                  dA[k] += dres * 2.0
        dA[k] += dres * 2.0
        return dA

    dA += vjp_f(A, k, g)          ->       vjp_f_into(A, k, g, dA)

A helper called n times (in a loop, or down a recursion: det by Laplace
expansion) otherwise allocates, zeroes and adds a whole array per call
where a hand-written gradient adds a few elements into the caller's.

The precondition, proved on the finished vjp: its one array gradient
starts as `np.zeros_like(param)` at the top of its body and is otherwise
only added into (`dA += e`, `dA[i] += e`, where `e` does not read it),
passed to its own `_into` variant in its place (a recursive call; another
helper's variant makes it refuse, conservatively), read for its shape, and
returned. Then adding the returned array to the caller's adjoint and
adding each contribution straight into it give the same numbers. The
caller's side: `dX += vjp_f(..., X, ...)` with `dX` the adjoint of the
array `X` passed at that place (so of X's shape), on an array, outside a
parallel loop, the call's other arguments not naming `dX`.

That no argument of the call shares dX's memory (the variant writes into
dX while reading them) is not proved here: the caller's `+=` proves it.
optimise/accumulate.py's out_of_place (not an optional optimisation)
turns every `dX += e` whose `e` may read memory dX owns into
`dX = dX + e` (Ownership.may_add_in_place), and runs on every
derivative, optimised or not, so a `dX += vjp_f(...)` left
for this pass reads nothing aliasing dX. (The later pass making `+=`,
augmented_updates, makes it for scalars, which this pass never takes.)"""
import gast

from ..emit.unparse import expr_source
from ..syntax import call, clone, name, walk


def into_variant(fdef, vjp, into, adjoint_of, kinds):
    """(the `_into` variant of the helper vjp `fdef` named `into`, the
    position of the parameter whose adjoint it adds into) or None when
    the precondition does not hold. `vjp` is fdef's own name (its recursive
    calls become calls of the variant); `adjoint_of(param)` names a
    parameter's adjoint."""
    params = [a.id for a in fdef.args.args]
    returns = [n for n in walk(fdef) if isinstance(n, gast.Return)]
    if not returns or not all(isinstance(r.value, gast.Name) for r in returns):
        return None
    d = returns[0].value.id
    if any(r.value.id != d for r in returns) or d in params:
        return None
    param = next((p for p in params if adjoint_of(p) == d), None)
    kind = kinds.get(param)
    if param is None or kind is None or not kind.is_array:
        return None
    init = [s for s in fdef.body if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id == d]
    if len(init) != 1 or expr_source(init[0].value) != f"np.zeros_like({param})" \
            or param in _stored(fdef):
        return None
    position = params.index(param)
    variant = clone(fdef)
    variant.name = into
    variant.body = [s for s in variant.body if not _is_init(s, d)]
    variants = {vjp: (into, position)}  # (a recursive call adds into d too)
    calls_into(variant.body, variants, lambda v: d if v == param else None,
               {param: kind}, set())
    if not _only_added_into(variant, d, into, position):
        return None
    for r in walk(variant):
        if isinstance(r, gast.Return):
            r.value = None
    variant.args.args.append(name(d, gast.Param()))
    return variant, position


def calls_into(stmts, variants, adjoint_of, kinds, in_parallel):
    """Rewrite `dX += vjp_f(..., X, ...)` in `stmts` into `vjp_f_into(...,
    dX)` where `variants` has vjp_f's variant (vjp name -> (into name,
    position)) and `dX` is `adjoint_of(X)`, X an array. Returns how many."""
    count = 0
    for k, s in enumerate(stmts):
        if isinstance(s, gast.For):
            inner = in_parallel or _is_prange(s.iter)
            count += calls_into(s.body, variants, adjoint_of, kinds, inner)
            count += calls_into(s.orelse, variants, adjoint_of, kinds, inner)
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                count += calls_into(getattr(s, field), variants, adjoint_of, kinds, in_parallel)
        if in_parallel or not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
                               and isinstance(s.target, gast.Name)
                               and isinstance(s.value, gast.Call)
                               and isinstance(s.value.func, gast.Name)
                               and s.value.func.id in variants):
            continue
        into, position = variants[s.value.func.id]
        args = s.value.args
        passed = args[position] if position < len(args) else None
        dx = s.target.id
        if not isinstance(passed, gast.Name) or adjoint_of(passed.id) != dx \
                or not getattr(kinds.get(passed.id), "is_array", False) \
                or any(isinstance(n, gast.Name) and n.id == dx for a in args for n in walk(a)):
            continue
        new = gast.Expr(value=call(name(into), *[clone(a) for a in args], name(dx)))
        new.__dict__.update({a: b for a, b in s.__dict__.items() if a.startswith("s2sad_")})
        stmts[k] = gast.copy_location(new, s)
        count += 1
    return count


def _only_added_into(fdef, d, into, position):
    """Whether every use of `d` in `fdef` (its zeroing removed) adds into
    it, reads its shape, passes it to an `into` call at its place, or
    returns it."""
    allowed = set()
    for n in walk(fdef):
        if isinstance(n, gast.AugAssign) and isinstance(n.op, gast.Add):
            base = n.target
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name) and base.id == d:
                if any(isinstance(m, gast.Name) and m.id == d for m in walk(n.value)):
                    return False  # (dA += dA[::-1]: reads what it adds into)
                allowed.add(id(base))
        elif isinstance(n, gast.Attribute) and n.attr == "shape" \
                and isinstance(n.value, gast.Name):
            allowed.add(id(n.value))
        elif isinstance(n, gast.Expr) and isinstance(n.value, gast.Call) \
                and isinstance(n.value.func, gast.Name) and n.value.func.id == into:
            last = n.value.args[-1] if n.value.args else None
            if isinstance(last, gast.Name):
                allowed.add(id(last))
        elif isinstance(n, gast.Return) and isinstance(n.value, gast.Name):
            allowed.add(id(n.value))
    return not any(isinstance(n, gast.Name) and n.id == d and id(n) not in allowed
                   for n in walk(fdef))


def _is_init(s, d):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == d


def _stored(fdef):
    """Names the function assigns or writes into (a parameter written in
    place, or rebound, is not the caller's array any more)."""
    out = set()
    for n in walk(fdef):
        if isinstance(n, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            for t in (n.targets if isinstance(n, gast.Assign) else [n.target]):
                base = t
                while isinstance(base, (gast.Subscript, gast.Attribute)):
                    base = base.value
                for m in walk(base):
                    if isinstance(m, gast.Name):
                        out.add(m.id)
        elif isinstance(n, gast.For):
            out |= {m.id for m in walk(n.target) if isinstance(m, gast.Name)}
    return out


def _is_prange(it):
    return isinstance(it, gast.Call) and "prange" in expr_source(it.func)
