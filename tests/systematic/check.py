"""Run one case against central finite differences; return its results.

Modes: "grad" (s2sad.grad w.r.t. every float argument), "jvp" (forward
mode along a random tangent), "hvp" (w.r.t. each argument, against finite
differences of s2sad's gradient), "hessian" (small arguments only).

Statuses: ok; refused-ok (a refusal where one is allowed); kink (finite
differences show a kink the grid did not expect: not compared); skip; and the
failures: wrong (value, shape, non-finite, or an argument modified), crash
(an exception that is not a refusal), refused (a refusal of a call the rule
declares), should-refuse (a number where an error was due). `fallback` holds
numba's reason when a jit=True derivative ran as Python."""
import importlib.util
import os
import re
import sys
import warnings
from dataclasses import dataclass

import numpy as np

import s2sad

from .cases import rng_for

STEP = 1e-6         # finite-difference step
STEP2 = 1e-5        # step for differences of the gradient (second order)
RTOL = ATOL = 1e-5
KINK = 1e-3         # one-sided differences further apart than this: a kink
REFUSALS = (LookupError, TypeError, s2sad.S2sadError)
FAILURES = ("wrong", "crash", "refused", "should-refuse")


@dataclass
class Result:
    case: str
    rule: str
    mode: str
    jit: bool
    status: str
    detail: str = ""
    fallback: str = ""

    @property
    def failed(self):
        return self.status in FAILURES


# ---- the module of case functions -------------------------------------------------

def write_module(cases, directory, name="systematic_cases"):
    """Write one function per case to `directory/name.py` (s2sad reads
    source) and import it; returns {case id: function}."""
    lines = ["import builtins", "import math", "import operator", "", "import numpy as np",
             "import scipy.linalg", "import scipy.special", ""]
    names = {}
    for i, case in enumerate(cases):
        names[case.id] = f"c{i}"
        lines += [f"# {case.id}", case.source(f"c{i}"), ""]
    path = os.path.join(str(directory), name + ".py")
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return {cid: getattr(module, fname) for cid, fname in names.items()}


# ---- finite differences -----------------------------------------------------------

def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _value(fn, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(fn(*_copies(args)))


def _moved(args, steps):
    """args with args[p] + steps[p] for each p in `steps`."""
    new = _copies(args)
    for p, d in steps.items():
        new[p] = new[p] + d
    return new


def _unit(arg, idx, h):
    if np.ndim(arg) == 0:
        return h
    e = np.zeros(np.shape(arg))
    e[idx] = h
    return e


def partials(fn, args, p, h=STEP):
    """Central, forward and backward differences w.r.t. args[p]."""
    f0 = _value(fn, args)
    shape = np.shape(args[p])
    central, plus, minus = (np.zeros(shape) for _ in range(3))
    for idx in np.ndindex(*shape):
        up = _value(fn, _moved(args, {p: _unit(args[p], idx, h)}))
        down = _value(fn, _moved(args, {p: _unit(args[p], idx, -h)}))
        central[idx] = (up - down) / (2 * h)
        plus[idx], minus[idx] = (up - f0) / h, (f0 - down) / h
    return central, plus, minus, f0


def directional(fn, args, tangents, h=STEP):
    """Central, forward and backward differences along `tangents` ({p: t})."""
    f0 = _value(fn, args)
    up = _value(fn, _moved(args, {p: h * t for p, t in tangents.items()}))
    down = _value(fn, _moved(args, {p: -h * t for p, t in tangents.items()}))
    return (up - down) / (2 * h), (up - f0) / h, (f0 - down) / h, f0


def _is_kink(plus, minus, central):
    return np.abs(np.asarray(plus) - minus) > KINK * (1.0 + np.abs(central))


def mismatch(got, want, scale=0.0, rtol=RTOL, atol=ATOL):
    """None if `got` matches `want`, else what is wrong."""
    if np.shape(got) != np.shape(want):
        return f"shape {np.shape(got)}, expected {np.shape(want)}"
    try:
        got = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return f"not a float array: {type(got).__name__}"
    if not np.all(np.isfinite(got)):
        return f"non-finite: got {np.array2string(got, precision=4)}"
    err = np.abs(got - want)
    tol = atol + rtol * np.abs(want) + 1e-9 * abs(scale)
    if np.all(err <= tol):
        return None
    i = np.unravel_index(np.argmax(err - tol), np.shape(err)) if np.ndim(err) else ()
    return (f"error {float(err[i]):.3g} at {i}: got {float(got[i]):.8g}, expected "
            f"{float(np.asarray(want)[i]):.8g}")


def _outside(got, plus, minus, scale=0.0):
    """None if `got` lies between the one-sided differences."""
    got = np.asarray(got, dtype=float)
    if np.shape(got) != np.shape(plus):
        return f"shape {np.shape(got)}, expected {np.shape(plus)}"
    if not np.all(np.isfinite(got)):
        return f"non-finite: got {np.array2string(got, precision=4)}"
    lo, hi = np.minimum(plus, minus), np.maximum(plus, minus)
    tol = ATOL + RTOL * np.abs(hi) + 1e-9 * abs(scale)
    bad = (got < lo - tol) | (got > hi + tol)
    if not np.any(bad):
        return None
    i = tuple(np.argwhere(bad)[0]) if np.ndim(bad) else ()
    return (f"at {i} got {float(got[i]):.6g}, outside the one-sided differences "
            f"[{float(lo[i]):.6g}, {float(hi[i]):.6g}]")


# ---- calling s2sad ------------------------------------------------------------------

class _Call:
    """Runs an s2sad call, recording its exception and numba fallback."""

    def __init__(self, jit):
        self.jit = jit
        self.fallback = ""

    def __call__(self, thunk, args):
        saved = _copies(args)
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            try:
                out = thunk()
            finally:
                for w in caught:
                    if issubclass(w.category, s2sad.NumbaFallbackWarning) and not self.fallback:
                        self.fallback = _numba_reason(str(w.message))
        for a, s in zip(args, saved):
            if isinstance(a, np.ndarray) and not np.array_equal(a, s, equal_nan=True):
                raise _Modified()
        return out


class _Modified(Exception):
    pass


def _numba_reason(message):
    """numba's reason, from 'numba cannot compile the derivative of f (file:line)
    (<reason>); running it as plain Python...'."""
    text = _first_line(message, 2000)
    m = re.search(r"\.py:\d+\) \((.*)\); running it as plain Python", text)
    reason = m.group(1) if m else text
    reason = re.sub(r"/\S+\.py:\d+", "<file>", reason)
    reason = re.sub(r"\x1b\[[0-9;]*m| at 0x[0-9a-f]+", "", reason)
    return _first_line(reason, 300)


def _first_line(text, n=300):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n] + "..."


def _error_result(case, mode, jit, exc, call):
    if isinstance(exc, _Modified):
        return Result(case.id, case.rule, mode, jit, "wrong", "modified its argument",
                      call.fallback)
    text = f"{type(exc).__name__}: {_first_line(exc)}"
    if isinstance(exc, s2sad.GradientCheckError):  # the derivative's own check (S2SAD_CHECK)
        return Result(case.id, case.rule, mode, jit, "wrong", f"self-check: {exc}"[:600],
                      call.fallback)
    # an error of the generated code as it runs is a crash, whatever its type
    refusal = isinstance(exc, REFUSALS) and "raised by the derivative of" not in str(exc)
    if case.kind == "refuse":
        ok = refusal or case.numpy_raises  # numpy's own error may surface as numpy raises it
        status = "refused-ok" if ok else "crash"
    elif case.kind == "either" and refusal:
        status = "refused-ok"
    else:
        status = "refused" if refusal else "crash"
    return Result(case.id, case.rule, mode, jit, status, text, call.fallback)


def _tangent(rng, arg):
    return rng.normal(size=np.shape(arg)) if np.ndim(arg) else float(rng.normal())


# ---- the modes ----------------------------------------------------------------------

def check_grad(case, fn, jit, call):
    wrt = case.wrt
    got = call(lambda: s2sad.grad(fn, wrt=wrt, jit=jit)(*case.args), case.args)
    if case.kind == "refuse":
        return "should-refuse", f"returned {_short(got)}"
    if not isinstance(got, tuple) or len(got) != len(wrt):
        return "wrong", f"returned {type(got).__name__}, expected a tuple of {len(wrt)}"
    problems, kinks = [], []
    for p, g in zip(wrt, got):
        central, plus, minus, f0 = partials(fn, case.args, p)
        name = case.params[p]
        if not np.all(np.isfinite(central)):
            kinks.append(name + " (finite differences undefined)")
            continue
        if case.kind == "tie":
            bad = _outside(g, plus, minus, f0)
        elif np.any(_is_kink(plus, minus, central)):
            kinks.append(name)
            continue
        else:
            bad = mismatch(g, central, f0)
        if bad:
            problems.append(f"d/d{name}: {bad}")
    if case.kind == "tie" and case.shift and not problems:
        along = {p: np.ones_like(case.args[p]) if np.ndim(case.args[p]) else 1.0 for p in wrt}
        want, *_ = directional(fn, case.args, along)
        total = sum(float(np.sum(g)) for g in got)
        bad = mismatch(total, want)
        if bad:
            problems.append(f"moving every argument together: {bad}")
    if problems:
        return "wrong", "; ".join(problems)
    if kinks:
        return "kink", f"kink in {', '.join(kinks)}"
    return "ok", ""


def check_jvp(case, fn, jit, call):
    rng = rng_for(case.id + "/tangent")
    wrt = case.wrt
    tangents = {p: _tangent(rng, case.args[p]) for p in wrt}
    if len(wrt) == 1:
        d, t = s2sad.jvp(fn, wrt=wrt[0], jit=jit), tangents[wrt[0]]
    else:
        d, t = s2sad.jvp(fn, wrt=wrt, jit=jit), tuple(tangents[p] for p in wrt)
    got = call(lambda: d(*case.args, t), case.args)
    if case.kind == "refuse":
        return "should-refuse", f"returned {_short(got)}"
    if not isinstance(got, tuple) or len(got) != 2:
        return "wrong", f"returned {type(got).__name__}, expected (value, jvp)"
    value, jv = got
    central, plus, minus, f0 = directional(fn, case.args, tangents)
    bad = mismatch(value, f0, rtol=1e-9, atol=1e-12)
    if bad:
        return "wrong", f"value: {bad}"
    if not np.isfinite(central):
        return "skip", "finite differences undefined along the tangent"
    if case.kind == "tie":
        # several kinks along a random tangent: the one-sided differences
        # need not bound it; forward mode must agree with reverse mode
        grads = s2sad.grad(fn, wrt=wrt, jit=False)(*case.args)
        along_grad = sum(float(np.sum(g * tangents[p])) for p, g in zip(wrt, grads))
        bad = mismatch(jv, along_grad)
        bad = bad and f"disagrees with the gradient along the tangent: {bad}"
        if not bad and case.shift:
            along = {p: np.ones_like(case.args[p]) if np.ndim(case.args[p]) else 1.0
                     for p in wrt}
            ones = tuple(along[p] for p in wrt) if len(wrt) > 1 else along[wrt[0]]
            got1 = call(lambda: d(*case.args, ones), case.args)
            bad = mismatch(got1[1], directional(fn, case.args, along)[0])
            bad = bad and f"moving every argument together: {bad}"
    elif _is_kink(plus, minus, central):
        return "kink", "kink along the tangent"
    else:
        bad = mismatch(jv, central, f0)
    return ("wrong", f"jvp: {bad}") if bad else ("ok", "")


def _gradient_differences(fn, args, p, v):
    """Central differences of s2sad's (Python) gradient w.r.t. args[p], along v."""
    g = s2sad.grad(fn, wrt=p, jit=False)
    with np.errstate(all="ignore"):
        up = g(*_moved(args, {p: STEP2 * v}))
        down = g(*_moved(args, {p: -STEP2 * v}))
    return (np.asarray(up) - np.asarray(down)) / (2 * STEP2)


def check_hvp(case, fn, jit, call):
    rng = rng_for(case.id + "/hvp")
    problems = []
    for p in case.wrt:
        v = _tangent(rng, case.args[p])
        got = call(lambda: s2sad.hvp(fn, wrt=p, jit=jit)(*case.args, v), case.args)
        want = _gradient_differences(fn, case.args, p, v)
        bad = mismatch(got, want, float(np.max(np.abs(want), initial=1.0)) * 1e3)
        if bad:
            problems.append(f"d/d{case.params[p]}: {bad}")
    return ("wrong", "; ".join(problems)) if problems else ("ok", "")


def check_hessian(case, fn, jit, call):
    p = case.wrt[0]
    x = case.args[p]
    got = call(lambda: s2sad.hessian(fn, wrt=p, jit=jit)(*case.args), case.args)
    shape = np.shape(x)
    n = int(np.prod(shape)) if shape else 1
    cols = [_gradient_differences(fn, case.args, p, np.eye(n)[k].reshape(shape) if shape
                                  else 1.0) for k in range(n)]
    want = np.stack([np.ravel(c) for c in cols], axis=1).reshape(shape + shape)
    bad = mismatch(got, want, float(np.max(np.abs(want), initial=1.0)) * 1e3)
    if not bad:
        flat = np.reshape(got, (n, n))
        bad = mismatch(flat, flat.T) and "not symmetric"
    return ("wrong", f"d2/d{case.params[p]}2: {bad}") if bad else ("ok", "")


MODES = {"grad": check_grad, "jvp": check_jvp, "hvp": check_hvp, "hessian": check_hessian}


def applicable(case, mode):
    if not case.wrt:
        return False
    if mode in ("hvp", "hessian"):
        if not case.second_order:
            return False
        if mode == "hessian":
            return np.size(case.args[case.wrt[0]]) <= 4
    return True


def run_case(case, fn, jit=False, modes=("grad", "jvp", "hvp")):
    """Every applicable mode of `case` (a refusal: grad and jvp): a list of
    Results. A failing gradient skips the second-order modes (their
    reference is built from it)."""
    results = []
    grad_ok = True
    for mode in modes:
        if case.kind == "refuse" and mode not in ("grad", "jvp"):
            continue
        if not applicable(case, mode):
            continue
        if mode in ("hvp", "hessian") and not grad_ok:
            results.append(Result(case.id, case.rule, mode, jit, "skip",
                                  f"gradient {results[0].status if results else 'missing'}"))
            continue
        call = _Call(jit)
        try:
            status, detail = MODES[mode](case, fn, jit, call)
        except Exception as exc:  # noqa: BLE001 - classified and reported
            results.append(_error_result(case, mode, jit, exc, call))
        else:
            results.append(Result(case.id, case.rule, mode, jit, status, detail, call.fallback))
        if mode == "grad":
            grad_ok = results[-1].status == "ok"
    return results


def _short(value):
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."
