"""A test case: a small function wrapping one primitive call, its arguments
(drawn deterministically from the case id) and what is expected of it.

The function reduces the primitive's output to a scalar with fixed random
weights `w` (an extra, non-differentiated argument), so the gradient of every
output element is checked:

    def c17(x, y, w):
        return np.sum((np.maximum(x, y)) * w)

Kinds:
    value   the derivatives must match finite differences
    tie     a kink (tie of max/min, abs at 0): derivatives must lie between
            the one-sided differences (and match along `shift`, where smooth)
    either  a valid numpy call the rule may refuse; if it answers, it must be right
    refuse  a call the rule does not implement (or numpy rejects): must raise
"""
import builtins
import math
import operator
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np
import scipy
import scipy.linalg  # noqa: F401 (the cases call scipy.linalg.*)
import scipy.special  # noqa: F401

NAMESPACE = {"np": np, "math": math, "operator": operator, "builtins": builtins,
             "scipy": scipy}


@dataclass
class Case:
    id: str
    rule: str                 # the rule under test: "numpy.sum", "operator.add", "subscript"
    lines: tuple              # the function body, the last line a `return`
    params: tuple             # argument names (the weights `w` last, if any)
    args: tuple
    wrt: tuple                # positions differentiated: every float argument but `w`
    kind: str = "value"
    second_order: bool = True
    shift: bool = False       # tie: moving every wrt argument together is smooth
    numpy_raises: str = ""    # refuse: numpy's own error for this call, if any
    note: str = ""
    tags: tuple = field(default_factory=tuple)

    @property
    def expr(self):
        return self.lines[-1].strip()

    def source(self, fname):
        body = "".join(f"    {line}\n" for line in self.lines)
        return f"def {fname}({', '.join(self.params)}):\n{body}"

    def reproducer(self):
        """One line: the function and its argument shapes."""
        shapes = ", ".join(f"{p}={_describe(a)}" for p, a in zip(self.params, self.args))
        return f"{'; '.join(line.strip() for line in self.lines)}   with {shapes}"


def _describe(a):
    if isinstance(a, np.ndarray):
        if a.size <= 4:
            return "np.array(" + np.array2string(a, precision=3, separator=",").replace(
                "\n", "") + ")"
        return f"<{a.dtype.name} {a.shape}>"
    return repr(a) if not isinstance(a, float) else f"{a:.3g}"


# ---- drawing arguments --------------------------------------------------------

def rng_for(text):
    return np.random.default_rng(zlib.crc32(text.encode()))


def uni(lo, hi):
    """Uniform in [lo, hi]."""
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def signed(lo, hi):
    """Magnitude uniform in [lo, hi], random sign: keeps away from 0."""
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def spread(lo, hi, gap=0.08):
    """Distinct values at least `gap` apart (max/min without ties)."""
    def draw(rng, shape):
        n = int(np.prod(shape)) if shape else 1
        grid = np.linspace(lo, hi, max(n, 2))[:n]
        jitter = rng.uniform(0.0, min(gap, (hi - lo) / max(n, 2)) * 0.3, n)
        return rng.permutation(grid + jitter).reshape(shape)
    return draw


def matrix(n, batch=(), sign=1.0):
    """Well conditioned: diagonally dominant."""
    def draw(rng, shape):
        a = rng.uniform(-0.5, 0.5, batch + (n, n)) + 2.0 * np.eye(n)
        if sign < 0:
            a[..., 0, :] *= -1.0
        return a
    return draw


def const(value):
    return lambda rng, shape: value


def _draw(rng, spec):
    shape, how = spec
    value = how(rng, shape)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.ndim == 0:
        return float(value)
    if shape == () and isinstance(value, (np.floating, float)):
        return float(value)
    return value


# ---- making a case --------------------------------------------------------------

def evaluate(lines, params, args):
    """Run the body with plain numpy: the output, or the exception."""
    src = f"def _f({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)
    ns = dict(NAMESPACE)
    exec(compile(src, "<case>", "exec"), ns)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ns["_f"](*copies)


def _is_float(a):
    return (isinstance(a, float) and not isinstance(a, bool)) or (
        isinstance(a, np.ndarray) and a.dtype.kind == "f")


def make(rule, name, expr, inputs, *, prelude=(), kind="value", wrt=None, valid=None,
         second_order=True, shift=False, note="", tags=()):
    """A case `rule:name` calling `expr` on `inputs` ({name: (shape, how)}).

    `valid(*args)` rejects draws (too close to a kink): drawn again, up to
    200 times. The weights are drawn for the output's shape."""
    cid = f"{rule}:{name}"
    rng = rng_for(cid)
    params = tuple(inputs)
    for _ in range(200):
        args = tuple(_draw(rng, spec) for spec in inputs.values())
        if valid is None or valid(*args):
            break
    else:
        raise ValueError(f"{cid}: no valid arguments drawn")
    if wrt is None:
        wrt = tuple(i for i, a in enumerate(args) if _is_float(a))
    if kind == "refuse":
        lines = tuple(prelude) + (f"return np.sum({expr})",)
        try:
            evaluate(lines, params, args)
            raises = ""
        except Exception as exc:  # noqa: BLE001 - numpy rejects the call: recorded
            raises = f"{type(exc).__name__}: {exc}"
        return Case(cid, rule, lines, params, args, wrt, kind, False, numpy_raises=raises,
                    note=note, tags=tags)
    out = evaluate(tuple(prelude) + (f"return {expr}",), params, args)
    if not np.all(np.isfinite(out)) or np.asarray(out).dtype.kind not in "fi":
        raise ValueError(f"{cid}: output {out!r} is not finite floats")
    wrng = rng_for(cid + "/w")
    if np.ndim(out) == 0:
        w = float(wrng.normal())
        last = f"return w * ({expr})"
    else:
        w = wrng.normal(size=np.shape(out))
        last = f"return np.sum(({expr}) * w)"
    return Case(cid, rule, tuple(prelude) + (last,), params + ("w",), args + (w,), tuple(wrt),
                kind, second_order and kind in ("value", "either"), shift, note=note, tags=tags)


SHAPES = {0: (), 1: (3,), 2: (2, 3), 3: (2, 3, 4)}


def rank_name(shape):
    return "s" if shape == () else "x".join(map(str, shape))
