"""Self-checking derivatives: `check=True` (or S2SAD_CHECK=1) makes the first
call of each specialisation verify itself, four ways, and raise
GradientCheckError when a check fails:

* the value: the function itself, run as the user wrote it on copies of
  the arguments, gives the value the derivative computed (every rewriting
  of the front end is checked against the one program s2sad did not
  write; the other checks compare s2sad's code with s2sad's code);
* the plain twin: the same derivative with every optimisation switched off
  (transforms/optimise/pipeline.py) gives the same numbers to rounding; on
  a disagreement, the optimisations are switched off one at a time to name
  the first one whose removal makes them agree;
* a Taylor test along a random direction v (taylor.py): the remainder
  |f(x + h v) - f(x) - h <g, v>| falls as h^2;
* the dot-product test, where forward mode applies: <J v, w> from the jvp
  equals <v, J^T w> from the vjp (two independent code paths).

What a check could not do (a random function, no forward mode, a gradient
the user defined with stop_gradient or a custom gradient) is skipped and
said in the report (`derivative.check_report`), never counted as a pass.
The checks call the derivative several more times, so a function's side
effects (printing, appending to a global list) happen again."""
import copy
import functools
import logging
import os
import time
import warnings

import numpy as np

from . import taylor
from .errors import GradientCheckError, NumbaFallbackWarning

LOG = logging.getLogger("s2sad.check")

# the plain twin: the same arithmetic in another order (rtol 1e-9 in float64)
TWIN_RTOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 2e-4}
DOT_RTOL = {np.dtype(np.float64): 1e-8, np.dtype(np.float32): 1e-3}
# differences below this many ulps of the largest floating-point argument or
# output are rounding, whatever the results' own sizes (_disagreement)
_ROUNDING_ULPS = 64
# a derivative whose one compiled call takes longer than this has its plain
# twin compiled too (as Python it could take minutes)
PYTHON_TWIN_UP_TO = 0.005  # seconds per compiled call
# ... and the function itself is run (as Python) to check the value up to this
PYTHON_VALUE_UP_TO = 0.02  # seconds per compiled call


def wanted(check):
    """Whether derivatives check themselves: `check=` of the API function,
    or (None) the S2SAD_CHECK environment variable."""
    if check is None:
        return os.environ.get("S2SAD_CHECK", "").strip().lower() not in ("", "0", "false",
                                                                        "no", "off")
    return bool(check)


class Report(list):
    """(check, outcome, detail) for each check of one specialisation."""

    def add(self, check, outcome, detail=""):
        self.append((check, outcome, detail))
        LOG.info("%s: %s%s", check, outcome, f" ({detail})" if detail else "")

    def __str__(self):
        return "\n".join(f"{c}: {o}" + (f" ({d})" if d else "") for c, o, d in self)


class Call:
    """One call of a derivative to check: the entry, its (flattened)
    argument values and names, the trailing seed or tangents, what it
    returned, and the positions of the differentiated arguments."""

    def __init__(self, derivative, entry, names, values, extra, result, wrt, variant):
        self.derivative, self.entry = derivative, entry
        self.names, self.values, self.extra = list(names), list(values), list(extra)
        self.value, self.grads = result
        self.mode = derivative.mode
        self.wrt = list(wrt)
        self.variant = variant  # (kinds, flat, dtype, budgeted): makes the twin and the others
        single = derivative.single and variant[1] is None
        if self.mode == "jvp":
            self.grad_list = None
        else:
            self.grad_list = [self.grads] if single else list(self.grads)
        # (the tolerances of the least precise: a float32 argument among float64
        # ones rounds what it touches to float32)
        lowest = variant[2] == "float32" or any(
            isinstance(v, (np.ndarray, np.floating)) and v.dtype == np.float32
            for v in self.values)
        self.dtype = np.dtype(np.float32) if lowest else np.dtype(np.float64)
        self.where = derivative._where

    def run(self, entry, values=None, extra=None):
        """`entry` at `values` (default: the call's), on copies of the arrays."""
        values = self.values if values is None else values
        extra = self.extra if extra is None else extra
        return entry(*[_copy(v) for v in values], *[_copy(v) for v in extra])

    def result_scale(self, k):
        """The size gradient k (or, in forward mode, the tangent) would have
        without cancellation: the weighted outputs' size over the argument's
        (how far a unit of the argument moves them)."""
        out = self.output(self.value)
        if self.mode == "jvp":
            moved = max((taylor.rms(t) / (taylor.rms(self.values[p]) or 1.0)
                         for p, t in zip(self.wrt, self.extra) if isinstance(p, int)),
                        default=1.0)
            return _scale(out) * moved
        weights = taylor.output_weights(self)
        pos = self.wrt[k] if k < len(self.wrt) else None
        x = self.values[pos] if isinstance(pos, int) else 1.0
        return taylor.abs_inner(weights, out) / (taylor.rms(x) or 1.0)

    def describe_arguments(self):
        return ", ".join(f"{n} {_describe(v)}" for n, v in zip(self.names, self.values))

    def output(self, value):
        """The differentiated output in a call's value (has_aux: not the aux)."""
        return value[0] if self.derivative.has_aux else value


def verify(derivative, entry, names, values, extra, result, wrt, variant, primal=None):
    """Check one specialisation at its first call; returns the Report or
    raises GradientCheckError. The checks' own arithmetic (and the calls they
    repeat) warn nothing: the user's call already did, and a warnings filter
    set to "error" must not turn a check's inf - inf into a failure, nor
    numba's refusal of the plain twin (run as Python then: the same values)
    into the user's warning."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", NumbaFallbackWarning)
        return _verify(derivative, entry, names, values, extra, result, wrt, variant, primal)


def _verify(derivative, entry, names, values, extra, result, wrt, variant, primal=None):
    call = Call(derivative, entry, names, values, extra, result, wrt, variant)
    report = Report()
    started = time.perf_counter()
    again = call.run(entry)  # (also: how long a call takes, without compiling)
    call.seconds = time.perf_counter() - started
    if not _same(call.value, again[0], 0.0) or not _same(call.grads, again[1], 0.0):
        report.add("all", "skipped", "the function is random or keeps state: two calls at "
                   "the same point gave different results")
        return report
    _check_value(call, report, primal)
    _check_twin(call, report)
    surrogate = _surrogate_reason(derivative, call)
    if surrogate:
        report.add("taylor", "skipped", surrogate)
    else:
        taylor.check(call, report, _float64_slope(primal, call))
    _check_dot(call, report, surrogate)
    return report


# ---- the value --------------------------------------------------------------
def _check_value(call, report, primal):
    """The derivative's value against `primal()`, the user's function run on
    copies of the call's arguments (None: not known)."""
    if primal is None:
        report.add("value", "skipped", "the function itself cannot be called here")
        return
    compiled = hasattr(getattr(call.entry, "_call", None), "py_func")
    if compiled and call.seconds > PYTHON_VALUE_UP_TO and not _is_compiled(call.derivative.fn):
        report.add("value", "skipped", "the function as Python would take long here")
        return
    try:
        want = primal()
    except Exception as exc:  # noqa: BLE001 - numba's arithmetic is not Python's everywhere
        report.add("value", "skipped", f"the function itself raises here ({type(exc).__name__})")
        return
    got = call.output(call.value)
    want = call.output(want)
    noise = _ROUNDING_ULPS * np.finfo(call.dtype).eps * max(
        [_float_scale(v) for v in call.values] + [_float_scale(got)], default=0.0)
    found = _first_difference(got, want, TWIN_RTOL[call.dtype], noise)
    if found is None:
        report.add("value", "passed")
        return
    where, x, y = found
    if "shape" in where or not (isinstance(x, float) and isinstance(y, float)):
        report.add("value", "skipped", "the function's output and the derivative's value "
                   "have different forms")
        return
    own = _own_rounding(primal, want) if call.dtype == np.float32 else None
    if own is not None and _first_difference(got, want, TWIN_RTOL[call.dtype],
                                             max(noise, _FLOAT32_SLACK * own)) is None:
        report.add("value", "skipped", f"the function's own float32 value is {own:.3g} from its "
                   f"float64 value: the derivative's differs from it by rounding")
        return
    raise GradientCheckError(
        f"{call.where}, called with {call.describe_arguments()}: the derivative computes the "
        f"value {x!r}{where} but the function itself gives {y!r}: s2sad changed what the "
        f"program computes, so its derivative cannot be trusted either. This is a bug in "
        f"s2sad: please report it with the function.", check="value")


# How much further than the function's own float32 value from its float64
# value the derivative's float32 value may be: it rounds the same operations
# in another order (fused, hoisted), which in an ill-conditioned program can
# cost a few times the function's own error. A change of what the program
# computes shows in float64, whose check is tight.
_FLOAT32_SLACK = 8.0


def _own_rounding(primal, want):
    """The largest difference between the function's float32 output `want`
    and its output on the same arguments in float64 (None: not known)."""
    if not (isinstance(primal, functools.partial) and len(primal.args) == 3
            and getattr(primal.func, "__name__", "") == "_run_primal"):
        return None  # (api._run_primal(fn, args, kwargs))
    fn, args, kwargs = primal.args
    try:
        wide = fn(*_float64(copy.deepcopy(args)), **_float64(copy.deepcopy(kwargs)))
    except Exception:  # noqa: BLE001 - no reference then: the check stands
        return None
    return _largest_difference(want, wide)


def _float64_slope(primal, call):
    """For a float32 call whose arguments are the user's own (no container
    flattened): (weights, moves) -> the derivative of <weights, f> along the
    moves, f the user's function run in float64 (central differences,
    extrapolated), or None."""
    if call.dtype != np.float32 or not (
            isinstance(primal, functools.partial) and len(primal.args) == 3
            and getattr(primal.func, "__name__", "") == "_run_primal"):
        return None
    fn, args, kwargs = primal.args
    if len(args) != len(call.values):
        return None

    def phi(weights, moves, h):
        values = _float64(copy.deepcopy(list(args)))
        for p, v in moves.items():
            values[p] = values[p] + h * np.asarray(v, dtype=np.float64) \
                if isinstance(values[p], np.ndarray) else float(values[p]) + h * float(v)
        try:
            out = fn(*values, **_float64(copy.deepcopy(kwargs)))
        except Exception:  # noqa: BLE001 - no reference then: the check stands
            return None
        return taylor._inner(weights, call.output(out))

    def slope(weights, moves):
        size = max([taylor.rms(call.values[p]) for p in moves] + [1.0])
        slopes = []
        for h in (1e-5 * size, 5e-6 * size):
            ahead, behind = phi(weights, moves, h), phi(weights, moves, -h)
            if ahead is None or behind is None or not np.isfinite(ahead - behind):
                return None
            slopes.append((ahead - behind) / (2 * h))
        return (4 * slopes[1] - slopes[0]) / 3

    return slope


def _float64(v):
    if isinstance(v, np.ndarray) and v.dtype == np.float32:
        return v.astype(np.float64)
    if isinstance(v, np.float32):
        return np.float64(v)
    if isinstance(v, (tuple, list)):
        return type(v)(_float64(u) for u in v) if not hasattr(v, "_fields") else \
            type(v)(*(_float64(u) for u in v))
    if isinstance(v, dict):
        return {k: _float64(u) for k, u in v.items()}
    return v


def _largest_difference(a, b):
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        parts = [_largest_difference(u, v) for u, v in zip(a, b)]
        return None if None in parts else max(parts, default=0.0)
    try:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return None
    if x.shape != y.shape:
        return None
    d = np.abs(x - y)
    d = d[np.isfinite(d)]
    return float(d.max()) if d.size else 0.0


def _is_compiled(fn):
    """Whether `fn` runs compiled itself (a numba dispatcher)."""
    return hasattr(fn, "py_func")


# ---- the plain twin -----------------------------------------------------
def _check_twin(call, report):
    d = call.derivative
    plain = d._variant(*call.variant, optimisations=frozenset(), jit=_twin_jit(call))
    if plain.generated.source == call.entry.generated.source:
        report.add("plain twin", "passed", "no optimisation changed the code")
        return
    twin = call.run(plain)
    bad = _disagreement(call, (call.value, call.grads), twin, TWIN_RTOL[call.dtype])
    if bad is None:
        report.add("plain twin", "passed")
        return
    culprits = _culprits(call, twin)
    culprit = culprits[0] if culprits else None
    what, got, want, diff = bad
    if culprit:
        others = f" (switching off {', '.join(map(repr, culprits[1:]))} alone does too)" \
            if len(culprits) > 1 else ""
        blame = (f" With the optimisation '{culprit}' switched off they agree{others}. "
                 f"optimise='-{culprit}' (or S2SAD_OPTIMISE=-{culprit}) avoids the bug until "
                 f"it is fixed.")
    else:
        blame = (" No single optimisation switched off makes them agree; optimise=False "
                 "(S2SAD_OPTIMISE=0) gives the plain derivative.")
    raise GradientCheckError(
        f"{call.where}, called with {call.describe_arguments()}: the derivative disagrees with "
        f"its plain twin (the same derivative with every optimisation off): {what} is {got} "
        f"optimised but {want} plain (difference {diff:.3g}).{blame} This is a bug in s2sad: "
        f"please report it with the function.",
        check="plain twin", argument=what, culprit=culprit)


def _twin_jit(call):
    """The twin runs as Python when that is quick, else compiled as the entry is."""
    compiled = getattr(call.entry, "_call", None) is not None \
        and hasattr(call.entry._call, "py_func")
    return compiled and call.seconds > PYTHON_TWIN_UP_TO


def _culprits(call, twin):
    """The optimisations (in pipeline order) whose removal alone makes the
    derivative agree with its plain twin."""
    from .transforms.optimise.pipeline import OPTIMISATIONS
    d = call.derivative
    found = []
    for opt in OPTIMISATIONS:
        if opt not in call.entry.generated.optimisations:
            continue
        variant = d._variant(*call.variant,
                             optimisations=call.entry.generated.optimisations - {opt},
                             jit=_twin_jit(call))
        try:
            result = call.run(variant)
        except Exception:  # noqa: BLE001 - this variant fails otherwise: not the answer
            continue
        if _disagreement(call, result, twin, TWIN_RTOL[call.dtype]) is None:
            found.append(opt)
    return found


def _disagreement(call, got, want, rtol):
    """None, or (what, got, want, difference) for the first output or
    gradient that differs beyond `rtol` (relative to its largest element)."""
    items = [("the value", call.output(got[0]), call.output(want[0]))]
    if call.mode == "jvp":
        items.append(("the tangent", got[1], want[1]))
    else:
        single = call.grad_list is not None and len(call.grad_list) == 1 \
            and not isinstance(got[1], tuple)
        gg = [got[1]] if single else list(got[1])
        ww = [want[1]] if single else list(want[1])
        for k, (a, b) in enumerate(zip(gg, ww)):
            items.append((f"the gradient w.r.t. {_wrt_name(call, k)}", a, b))
    # rounding noise of arithmetic on the arguments themselves: where every
    # term cancels (a neighbour-difference sum over a cycle is exactly zero,
    # and so is its gradient) the two orders of summing differ by a few ulps
    # of the terms, which no result's own size measures
    noise = _ROUNDING_ULPS * np.finfo(call.dtype).eps * max(
        [_float_scale(v) for v in call.values] + [_float_scale(call.output(got[0]))],
        default=0.0)
    for k, (what, a, b) in enumerate(items):
        # (a result that should be zero is rounding noise: measured against
        # the scale it would have had, not its own)
        floor = max(rtol * (_scale(a) if k == 0 else call.result_scale(k - 1)), noise)
        found = _first_difference(a, b, rtol, floor)
        if found is not None:
            where, x, y = found
            return what + where, x, y, abs(x - y) if np.isfinite(x - y) else np.inf
    return None


def _scale(value):
    """The largest finite magnitude in a value (0 for none)."""
    if isinstance(value, (tuple, list)):
        return max((_scale(v) for v in value), default=0.0)
    try:
        x = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return 0.0
    return float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0))


def _float_scale(value):
    """_scale of a value's floating-point numbers alone: an index array or a
    step count is not the size of the terms rounding acts on."""
    if isinstance(value, (tuple, list)):
        return max((_float_scale(v) for v in value), default=0.0)
    if isinstance(value, dict):
        return max((_float_scale(v) for v in value.values()), default=0.0)
    if isinstance(value, (float, np.floating)) or (
            isinstance(value, np.ndarray) and value.dtype.kind in "fc"):
        return _scale(value)
    return 0.0


def _first_difference(a, b, rtol, floor=0.0, where=""):
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        for k, (u, v) in enumerate(zip(a, b)):
            found = _first_difference(u, v, rtol, floor, f"{where}[{k}]")
            if found is not None:
                return found
        return None
    try:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return None if _same(a, b, 0.0) else (where, a, b)
    if x.shape != y.shape:
        return where + f" (shape {x.shape} against {y.shape})", np.nan, np.nan
    scale = max(np.max(np.abs(x[np.isfinite(x)]), initial=0.0),
                np.max(np.abs(y[np.isfinite(y)]), initial=0.0))
    floor = floor if np.isfinite(floor) else 0.0  # (an infinite result sets no scale)
    close = np.isclose(x, y, rtol=rtol, atol=max(rtol * scale, floor) + 1e-300,
                       equal_nan=True)
    if close.all():
        return None
    k = np.unravel_index(np.argmin(close), close.shape) if x.ndim else ()
    label = where + (str([int(i) for i in k]) if x.ndim else "")
    return label, float(x[k]), float(y[k])


def _same(a, b, rtol):
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(u, v, rtol) for u, v in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], rtol) for k in a)
    try:
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            return x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=0.0,
                                                           equal_nan=True))
        return x.shape == y.shape and bool(np.all(x == y))
    except Exception:  # noqa: BLE001 - objects numpy cannot compare: by equality
        try:
            return bool(a == b)
        except Exception:  # noqa: BLE001
            return True


# ---- forward against reverse ---------------------------------------------
def _check_dot(call, report, surrogate):
    """<J v, w> from a jvp against <v, J^T w> from the vjp."""
    d = call.derivative
    if surrogate and "custom gradient" in surrogate:
        report.add("forward vs reverse", "skipped", surrogate)
        return
    if d.stop_gradients:
        report.add("forward vs reverse", "skipped", "stop_gradients= applies to reverse mode")
        return
    positions = taylor.differentiable_positions(call)
    if not positions:
        report.add("forward vs reverse", "skipped", "no float argument to move along")
        return
    rng = np.random.default_rng(1)
    if call.mode == "jvp":
        tangents, tangent_out = call.extra, call.grads
        seed = taylor.random_like(call.output(call.value), rng)
        if seed is None:
            report.add("forward vs reverse", "skipped", "the output is not a float array")
            return
        other = _other_mode(call, report, "vjp")
        if other is None:
            return
        grads = _run_other(call, report, other, [seed], "vjp")
        if grads is None:
            return
        grads = grads[1]
        grads = [grads] if len(call.wrt) == 1 and not isinstance(grads, tuple) else list(grads)
        left = _inner(tangent_out, seed)  # <J v, w>
        rights = [_inner(g, t) for g, t in zip(grads, tangents)]
    else:
        if any(k not in positions for k in range(len(call.wrt))):
            report.add("forward vs reverse", "skipped", "a differentiated value is not a float "
                       "argument (a local variable or an integer)")
            return
        other = _other_mode(call, report, "jvp")
        if other is None:
            return
        tangents = [taylor.direction(call.values[call.wrt[k]], rng) for k in range(len(call.wrt))]
        tangent_out = _run_other(call, report, other, tangents, "jvp")
        if tangent_out is None:
            return
        tangent_out = tangent_out[1]
        left = _inner(tangent_out, taylor.output_weights(call))
        rights = [_inner(g, t) for g, t in zip(call.grad_list, tangents)]
    lv, rv = left[0], sum(r[0] for r in rights)
    # (against the sizes of the terms, and of what they would be without
    # cancellation: the weighted outputs, moved by v scaled like x)
    scale = left[1] + sum(r[1] for r in rights) + max(
        call.result_scale(k) * taylor.rms(t) for k, t in enumerate(tangents))
    mine = rv if call.mode != "jvp" else lv  # (the other mode's own checks judge it)
    if not (np.isfinite(lv) and np.isfinite(rv)):
        if np.isfinite(lv) != np.isfinite(rv) and not np.isfinite(mine):
            raise GradientCheckError(
                f"{call.where}, called with {call.describe_arguments()}: forward mode gives "
                f"<J v, w> = {lv!r}, reverse mode <v, J^T w> = {rv!r}. This is a bug in "
                f"s2sad: please report it with the function.", check="forward vs reverse")
        report.add("forward vs reverse", "skipped",
                   "not finite in the other mode here (as a branch np.where does not take)")
        return
    # (and a few ulps of 1: where every term cancels to 0, one mode's rounding
    # leaves 2e-16 the other does not)
    if abs(lv - rv) <= DOT_RTOL[call.dtype] * scale + 4 * np.finfo(call.dtype).eps:
        report.add("forward vs reverse", "passed")
        return
    raise GradientCheckError(
        f"{call.where}, called with {call.describe_arguments()}: forward and reverse mode "
        f"disagree along a random direction v and output weights w: <J v, w> by the jvp is "
        f"{lv!r}, <v, J^T w> by the vjp is {rv!r}. One of the two derivatives is wrong: "
        f"compare each with s2sad.check_grads. This is a bug in s2sad: please report it with "
        f"the function.", check="forward vs reverse")


def _other_mode(call, report, mode):
    try:
        return call.derivative._variant(*call.variant, mode=mode, jit=False)
    except (LookupError, SyntaxError, TypeError, NotImplementedError, ValueError) as exc:
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        report.add("forward vs reverse", "skipped", f"no {mode} of this function ({reason})")
        return None


def _run_other(call, report, other, extra, mode):
    """The other mode's result, or None (said in the report) when it
    raises: it is checked by its own calls, this derivative by its others."""
    try:
        return call.run(other, extra=extra)
    except Exception as exc:  # noqa: BLE001 - reported as the reason for skipping
        report.add("forward vs reverse", "skipped",
                   f"the {mode} of this function fails here ({type(exc).__name__}: "
                   f"{str(exc).splitlines()[0][:160] if str(exc) else ''})")
        return None


def _inner(a, b):
    """(sum of a * b over all elements of matching leaves, sum of |a * b|)."""
    if isinstance(a, (tuple, list)):
        pairs = [_inner(u, v) for u, v in zip(a, b)]
        return sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    prod = np.asarray(a, dtype=float) * np.asarray(b, dtype=float)
    return float(np.sum(prod)), float(np.sum(np.abs(prod)))


# ---- what the checks may not assume ----------------------------------------
def _surrogate_reason(derivative, call):
    """Why the gradient may rightly differ from the function's derivative
    (stop_gradient markers, custom gradients, partial derivatives), or ''."""
    gen = call.entry.generated
    if derivative.stop_gradients:
        return "stop_gradients= makes it a partial derivative"
    reasons = getattr(gen, "surrogates", ())
    if reasons:
        return "the function defines its own gradient (" + ", ".join(sorted(reasons)) + ")"
    return ""


def _wrt_name(call, k):
    pos = call.wrt[k] if k < len(call.wrt) else None
    return call.names[pos] if isinstance(pos, int) and pos < len(call.names) else str(pos)


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v


def _describe(v):
    if isinstance(v, np.ndarray):
        return f"{v.dtype} array of shape {v.shape}"
    return type(v).__name__
