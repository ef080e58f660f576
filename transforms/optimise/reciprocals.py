"""Divisions by one value done once, as a reciprocal.

The adjoint of `c / s` is `-g * c / (s * s)` and that of `s = math.sqrt(t)`
is `g * 0.5 / s`, so a particle energy's pair term (`e += 0.5 / sqrt`)
divides by the same `sqrt` three times, and a division costs several
multiplications. A person computes the reciprocal once and multiplies:

    sqrt = math.sqrt(dx * dx + dy * dy + dz * dz + eps)
    inv_sqrt = 1.0 / sqrt
    e += 0.5 * inv_sqrt
    dsqrt = -de * 0.5 * (inv_sqrt * inv_sqrt)
    dtotal3 = dsqrt * 0.5 * inv_sqrt

which is what this pass does for a float scalar `s` bound by exactly one
plain assignment (`inv_s` is bound right after it, so wherever `s` is read
`inv_s` is its reciprocal), when at least two divisions by `s` or by
`s * s` can use it. The derivative's divisions `x / s` become `x * inv_s`
(which may round differently in the last bit, as a compiler's fast-math
would). The function's own value is computed as written, except `c / s`
for a constant c that is a power of two, whose `c * inv_s` is the same
number (unless `1 / s` over- or underflows: |s| beyond 2**1022 or below
2**-1024). Division by zero gives the same infinities and nans both ways
(IEEE arithmetic, in compiled code and in plain Python, see s2sad.ieee)."""
import math

import gast

from ..syntax import assign, binop, binding_counts, const, name, names_loaded, rewrite, walk


def reuse_reciprocals(body, floats, params, derivative, namer):
    """Rewrite `body` (a function's statements): `floats` is the set of float
    scalar names, `params` the function's parameters, `derivative` the names
    only derivative code touches (adjoints), `namer` gives fresh names."""
    stmts = list(_own_statements(body))
    sites = {}  # divisor -> [(division node, whether derivative code divides)]
    for s, _ in stmts:
        roots = _roots(s)  # (of `s` itself: an `if` holding adjoints may test the primal)
        divisions = [n for r in roots for n in walk(r)
                     if n.__class__ is gast.BinOp and _divisor(n) in floats]
        if not divisions:
            continue
        is_derivative = bool(set().union(*map(names_loaded, roots)) & derivative
                             or _targets(s) & derivative)
        for node in divisions:
            if is_derivative or _power_of_two(node.left):
                sites.setdefault(_divisor(node), []).append(node)
    sites = {v: nodes for v, nodes in sites.items() if len(nodes) >= 2}
    if not sites:
        return  # (one division either way)
    counts = binding_counts(body)
    augmented = {s.target.id for s, _ in stmts
                 if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name)}
    nested = set()  # (a closure reads its own binding: left alone)
    for n in (n for b in body for n in walk(b)):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            nested |= names_loaded(n)
    sites = {v: nodes for v, nodes in sites.items() if counts.get(v) == 1
             and v not in augmented and v not in params and v not in nested}
    rewritten = {}
    for v, nodes in sites.items():
        where = _binding(stmts, v)
        if where is None:
            continue
        block, stmt = where
        inv = namer.fresh("inv_" + v)
        block.insert(block.index(stmt) + 1,
                     assign(inv, binop(const(1.0), gast.Div(), name(v)), src=stmt))
        rewritten.update((id(node), inv) for node in nodes)
    if rewritten:
        for s in body:
            rewrite(s, lambda node: _to_product(node, rewritten[id(node)])
                    if id(node) in rewritten else node)


def _own_statements(stmts):
    """(statement, its block) for every statement outside nested functions."""
    for s in stmts:
        yield s, stmts
        if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse"):
            yield from _own_statements(getattr(s, field, []) or [])


def _binding(stmts, v):
    for s, block in stmts:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id == v:
            return block, s
    return None  # bound by a loop or an unpacking: left as it is


def _targets(s):
    out = set()
    for t in (s.targets if isinstance(s, gast.Assign) else
              [s.target] if isinstance(s, gast.AugAssign) else []):
        out |= {n.id for n in walk(t) if isinstance(n, gast.Name)}
    return out


def _roots(s):
    """The expressions of statement `s` itself (not of its nested blocks:
    they are statements of their own)."""
    if isinstance(s, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
        roots = [s.value] if s.value is not None else []
        if isinstance(s, gast.Assign):
            roots += s.targets
        elif isinstance(s, gast.AugAssign):
            roots.append(s.target)
        return roots
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    return []


def _divisor(node):
    """`s` for `x / s` and `x / (s * s)`, else None."""
    if not isinstance(node.op, gast.Div):
        return None
    d = node.right
    if isinstance(d, gast.Name):
        return d.id
    if isinstance(d, gast.BinOp) and isinstance(d.op, gast.Mult) \
            and isinstance(d.left, gast.Name) and isinstance(d.right, gast.Name) \
            and d.left.id == d.right.id:
        return d.left.id
    return None


def _power_of_two(node):
    """A constant c whose `c * (1 / s)` is exactly `c / s`."""
    if not isinstance(node, gast.Constant) or isinstance(node.value, bool) \
            or not isinstance(node.value, (int, float)) or node.value == 0:
        return False
    c = float(node.value)
    return math.isfinite(c) and abs(math.frexp(c)[0]) == 0.5


def _to_product(node, inv):
    """`x / s` -> `x * inv`, `x / (s * s)` -> `x * (inv * inv)`; `1 / s` ->
    `inv` and `-1 / s` -> `-inv`."""
    factor = name(inv) if isinstance(node.right, gast.Name) \
        else binop(name(inv), gast.Mult(), name(inv))
    left = node.left
    if isinstance(left, gast.Constant) and not isinstance(left.value, bool) \
            and left.value in (1, -1) and isinstance(node.right, gast.Name):
        return factor if left.value == 1 else gast.UnaryOp(op=gast.USub(), operand=factor)
    return binop(left, gast.Mult(), factor)
