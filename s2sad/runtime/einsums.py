"""numba implementations of np.einsum and of its gradient helpers
(contractions.py) for constant subscripts: numba has no np.einsum, so a
derivative calling it ran as plain Python.

Each call compiles to one loop nest over the subscripts' letters, written
when numba types the call (the subscripts must be a constant string; numba
is asked for them as a literal). The forward einsum adds the product of the
operands into the output's element; the cotangent of operand k adds the
product of the output's cotangent and the other operands into operand k's
element. That one loop also covers what einsum_grad does by hand: a letter
operand k repeats (its diagonal) and an axis of size 1 that numpy
broadcast (summed) are just where the additions land.

    np.einsum("ij,jk->ik", a, b)        for i_i, i_k, i_j:  out[i_i, i_k] += a[i_i, i_j] * b[i_j, i_k]
    einsum_grad_left(g, "ij,jk->ik", a, b)
                                        for i_i, i_j, i_k:  out[i_i, i_j] += g[i_i, i_k] * b[i_j, i_k]

(an axis of size 1 is read at index 0: numpy broadcasts it)
"""
import numpy as np
from s2sad.lazy_numba import as_dtype, numba, overload, types

from .contractions import (einsum_grad_first, einsum_grad_left, einsum_grad_one,
                           einsum_grad_right, einsum_grad_second, einsum_grad_third, einsum_one,
                           einsum_three, einsum_two, spell_subscripts)

__all__ = []


def _ndim(t):
    return t.ndim if isinstance(t, types.Array) else 0


def _numeric(t):
    return isinstance(t, (types.Array, types.Number, types.Boolean))


def _element(name, letters, t):
    """`name[i * name_0, j * name_1]`: the element of an operand (an axis of
    size 1 reads index 0, as numpy broadcasts it), or the scalar itself."""
    if not isinstance(t, types.Array):
        return name
    if not letters:
        return f"{name}[()]"
    return f"{name}[" + ", ".join(f"i_{c} * {name}_{a}" for a, c in enumerate(letters)) + "]"


def _loop_nest(params, factors, target, types_of, dtype):
    """The source of `impl(*params)`: `factors` [(name, letters)] multiplied
    over every letter and added into `target` (letters, the name whose shape
    the result takes, or None for a new array of the letters' sizes)."""
    letters, shaped_like = target
    lettered = factors + ([(shaped_like, letters)] if shaped_like else [])
    order = list(dict.fromkeys(letters + "".join(ls for _, ls in factors)))
    lines = [f"def impl({', '.join(params)}):"]
    for name, ls in lettered:  # which axes broadcast (size 1)
        if isinstance(types_of[name], types.Array):
            lines += [f"    {name}_{a} = 0 if {name}.shape[{a}] == 1 else 1" for a in range(len(ls))]
    for c in order:
        sizes = [f"{n}.shape[{a}]" for n, ls in lettered if isinstance(types_of[n], types.Array)
                 for a, d in enumerate(ls) if d == c]
        lines.append(f"    n_{c} = " + (f"max({', '.join(sizes)})" if len(sizes) > 1
                                          else sizes[0]))
        for s in sizes:
            lines += [f"    if {s} != n_{c} and {s} != 1:",
                      "        raise ValueError('einsum: operands could not be broadcast "
                      "together')"]
    if shaped_like:
        lines.append(f"    out = np.zeros({shaped_like}.shape, np.float64)")
        into = _element("out", letters, types_of[shaped_like])
        lines += [f"    out_{a} = 0 if out.shape[{a}] == 1 else 1" for a in range(len(letters))]
    elif letters:
        shape = "(" + "".join(f"n_{c}, " for c in letters) + ")"
        lines.append(f"    out = np.zeros({shape}, np.{dtype})")
        into = "out[" + ", ".join(f"i_{c}" for c in letters) + "]"
    else:
        lines.append(f"    out = np.{dtype}(0)")
        into = "out"
    depth = 1
    for c in order:
        lines.append("    " * depth + f"for i_{c} in range(n_{c}):")
        depth += 1
    product = " * ".join(_element(n, ls, types_of[n]) for n, ls in factors) or "1"
    lines += ["    " * depth + f"{into} += {product}", "    return out"]
    return "\n".join(lines)


def _compiled(source):
    scope = {"np": np}
    exec(source, scope)  # noqa: S102 - source written above from the subscripts' letters
    return scope["impl"]


def _letters_ok(parts, output):
    return all(c.isalpha() for c in "".join(parts) + output)


def _forward(subscripts, operands, params, names):
    """The implementation of an einsum of `operands` (numba types), or None."""
    if not all(_numeric(t) for t in operands):
        return None
    parts, output = spell_subscripts(subscripts, [_ndim(t) for t in operands])
    if len(parts) != len(operands) or not _letters_ok(parts, output):
        return None
    dtype = np.result_type(*[as_dtype(t.dtype if isinstance(t, types.Array) else t)
                             for t in operands]).name
    types_of = dict(zip(names, operands))
    return _compiled(_loop_nest(params, list(zip(names, parts)), (output, None), types_of,
                                dtype))


def _cotangent(subscripts, g, operands, k, params, names):
    """The implementation of the cotangent of operand k, or None."""
    if not (_numeric(g) and all(_numeric(t) for t in operands)
            and isinstance(operands[k], types.Array)):
        return None
    parts, output = spell_subscripts(subscripts, [_ndim(t) for t in operands])
    if len(parts) != len(operands) or not _letters_ok(parts, output):
        return None
    types_of = {"g": g, **dict(zip(names, operands))}
    factors = [("g", output)] + [(n, p) for j, (n, p) in enumerate(zip(names, parts)) if j != k]
    return _compiled(_loop_nest(params, factors, (parts[k], names[k]), types_of, "float64"))


def _literal(subscripts):
    return isinstance(subscripts, types.StringLiteral)


@overload(np.einsum)
def _np_einsum(subscripts, *operands):
    if not _literal(subscripts):
        return _literally(["subscripts", "*operands"])
    names = [f"x{k}" for k in range(len(operands))]
    impl = _forward(subscripts.literal_value, operands, ["subscripts"] + names, names)
    if impl is None:
        return None

    def call(subscripts, *operands):
        return apply(operands)
    # (numba takes *operands as a tuple; the loop nest takes them by name)
    apply = _star_applier(impl, len(operands))
    return call


def _star_applier(impl, n):
    jitted = numba.njit(impl)
    scope = {"jitted": jitted}
    args = ", ".join(f"ops[{k}]" for k in range(n))
    exec(f"def apply(ops):\n    return jitted(None, {args})", scope)  # noqa: S102
    return numba.njit(scope["apply"])


def _literally(params):
    """An implementation that asks numba for the subscripts as a literal
    (numba then types the call again with them)."""
    import numba as numba_module  # (the module itself: numba compiles `impl`)
    scope = {"numba": numba_module}
    exec(f"def impl({', '.join(params)}):\n    return numba.literally(subscripts)",  # noqa: S102
         scope)
    return scope["impl"]


def _forward_of(subscripts, operands, names):
    params = ["subscripts"] + names
    if not _literal(subscripts):
        return _literally(params)
    return _forward(subscripts.literal_value, operands, params, names)


def _cotangent_of(g, subscripts, operands, k, names):
    params = ["g", "subscripts"] + names
    if not _literal(subscripts):
        return _literally(params)
    return _cotangent(subscripts.literal_value, g, operands, k, params, names)


@overload(einsum_one)
def _einsum_one(subscripts, a):
    return _forward_of(subscripts, (a,), ["a"])


@overload(einsum_two)
def _einsum_two(subscripts, a, b):
    return _forward_of(subscripts, (a, b), ["a", "b"])


@overload(einsum_three)
def _einsum_three(subscripts, a, b, c):
    return _forward_of(subscripts, (a, b, c), ["a", "b", "c"])


@overload(einsum_grad_one)
def _einsum_grad_one(g, subscripts, a):
    return _cotangent_of(g, subscripts, (a,), 0, ["a"])


@overload(einsum_grad_left)
def _einsum_grad_left(g, subscripts, a, b):
    return _cotangent_of(g, subscripts, (a, b), 0, ["a", "b"])


@overload(einsum_grad_right)
def _einsum_grad_right(g, subscripts, a, b):
    return _cotangent_of(g, subscripts, (a, b), 1, ["a", "b"])


@overload(einsum_grad_first)
def _einsum_grad_first(g, subscripts, a, b, c):
    return _cotangent_of(g, subscripts, (a, b, c), 0, ["a", "b", "c"])


@overload(einsum_grad_second)
def _einsum_grad_second(g, subscripts, a, b, c):
    return _cotangent_of(g, subscripts, (a, b, c), 1, ["a", "b", "c"])


@overload(einsum_grad_third)
def _einsum_grad_third(g, subscripts, a, b, c):
    return _cotangent_of(g, subscripts, (a, b, c), 2, ["a", "b", "c"])
