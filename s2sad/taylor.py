"""The Taylor test of a derivative (as dolfin-adjoint's taylor_test): along
a random direction v, the remainder

    r(h) = |phi(x + h v) - phi(x) - h <g, v>|

of phi = <w, f> (w: the output weights; ones for a gradient) falls as h^2
when g is the derivative, and only as h when it is not. Unlike a plain
finite difference it needs no step that is "small enough": it looks at how
the remainder falls over several steps, above rounding noise.

Where the remainder does not fall as h^2, the function may be wrong or not
smooth at x. One-sided slopes tell the two apart: at a kink the gradient
of a convention (JAX's, autograd's: ties shared, |x|' = 0 at 0) lies
between the one-sided derivatives; a jump (floor, a branch on x) cannot be
tested and is skipped, and said."""
import numpy as np

from .errors import GradientCheckError

_EPS = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-4}  # relative noise of phi
_H0 = {np.dtype(np.float64): 1e-3, np.dtype(np.float32): 3e-2}
_AGREE = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}
# how close a float32 slope must be to the float64 function's derivative
_AGREE_WIDE = 2e-3
HALVINGS = 5
# the rate a passing remainder shows between two steps (4 for h^2, 2 for h)
PASSING_RATIO = 3.0


def check(call, report, reference=None):
    """Run the Taylor test of `call` (self_check.Call); add the outcome to
    `report` or raise GradientCheckError. `reference(weights, moves)`, for a
    float32 call: the derivative along the moves of the user's function run
    in float64 (None where it cannot be run so)."""
    positions = differentiable_positions(call)
    if not positions:
        report.add("taylor", "skipped", "no float argument to move along")
        return
    rng = np.random.default_rng(0)
    weights = output_weights(call) if call.mode != "jvp" \
        else random_like(call.output(call.value), rng)
    if weights is None:
        report.add("taylor", "skipped", "the output is not a float array")
        return
    if call.mode == "jvp":
        moves = {call.wrt[k]: call.extra[k] for k in positions}
        slope = _inner(weights, call.grads)
    else:
        moves = {call.wrt[k]: direction(call.values[call.wrt[k]], rng) for k in positions}
        slope = sum(_inner(call.grad_list[k], moves[call.wrt[k]]) for k in positions)
    scale = _slope_scale(call, weights, moves)
    outcome = _test(call, weights, moves, slope, scale)
    if outcome[0] == "kinks":
        # several kinks along v (elements at ties, knots, zeros), each of whose
        # conventions may take another side: coordinate by coordinate
        outcome = ("skipped", outcome[1] + " (a jvp's tangent cannot be split)") \
            if call.mode == "jvp" else _by_coordinates(call, weights, positions, rng)
    if outcome[0] == "passed" or outcome[0] == "skipped":
        report.add("taylor", outcome[0], outcome[1])
        return
    wide = reference(weights, moves) if reference is not None else None
    if wide is not None and abs(slope - wide) <= _AGREE_WIDE * (abs(wide) + scale):
        # (float32 steps of a function computing 1 + z with a tiny z see a
        # staircase: the test cannot tell, the float64 function can)
        report.add("taylor", "skipped", f"float32 rounding: <g, v> = {slope:.6g} is the "
                   f"derivative of the function run in float64 ({wide:.6g}); along v the "
                   f"float32 function is too coarse for the test")
        return
    # which argument: the test along each alone
    blamed = [call.names[p] for p in moves
              if _test(call, weights, {p: moves[p]}, _slope_of(call, p, moves[p], weights),
                       scale)[0]
              == "failed"] if call.mode != "jvp" and len(moves) > 1 else \
        [call.names[p] for p in moves]
    raise GradientCheckError(
        f"{call.where}, called with {call.describe_arguments()}: the Taylor test along a "
        f"random direction v fails{' for ' + ', '.join(blamed) if blamed else ''}: "
        f"{outcome[1]} The {'tangent' if call.mode == 'jvp' else 'gradient'} is not the "
        f"derivative of the function there. This is a bug in s2sad: please report it with "
        f"the function.",
        check="taylor", argument=", ".join(blamed))


def _slope_of(call, p, v, weights):
    k = call.wrt.index(p)
    return _inner(call.grad_list[k], v)


def _slope_scale(call, weights, moves):
    """The size of the terms <g, v> adds up, over every argument moved: the
    rounding of the computed gradient is a part of it (float32 gives a
    gradient that is 0 in exact arithmetic as 1e-10, not 0)."""
    if call.mode == "jvp":
        return abs_inner(weights, call.grads)
    return sum(abs_inner(call.grad_list[call.wrt.index(p)], v) for p, v in moves.items())


def _test(call, weights, moves, slope, scale=0.0):
    """("passed" | "skipped" | "failed", detail). `scale`: the size of the
    terms of the whole <g, v>, whose rounding the slope may carry."""
    phi0 = _phi(call, weights, {})
    if phi0 is None or not np.isfinite(phi0):
        return "skipped", "the output is not finite at x"
    eps = _EPS[call.dtype]
    # phi is a sum: its rounding is relative to the size of its terms (outputs
    # that cancel give a phi of 1e-18 with noise of their own size)
    size = abs_inner(weights, call.output(call.value))
    if not np.isfinite(slope):
        return "failed", f"<g, v> is {slope} where the function is finite."
    h0, first = _H0[call.dtype], None
    for attempt in range(2):  # the second, 1000 times closer: a kink may lie near x
        steps = [h0 * 0.5 ** k for k in range(HALVINGS + 1)]
        ahead = [_phi(call, weights, moves, h) for h in steps]
        if all(a is not None and np.isfinite(a) for a in ahead):
            rests = [abs(a - phi0 - h * slope) for a, h in zip(ahead, steps)]
            # (a remainder below a 1e-9 part of the first-order term agrees to
            # that: rounding, whatever cancellation made phi small)
            noise = [max(eps * (abs(phi0) + abs(a) + size), _AGREE[call.dtype] * abs(h * slope))
                     + _AGREE[call.dtype] * h * scale + 1e-300 for a, h in zip(ahead, steps)]
            if _rate(rests, noise) == "passed":
                return "passed", "h^2" if attempt == 0 else "h^2 closer to x: a kink near it"
            first = first or (steps, ahead, rests)
        h0 *= 1e-3
        if h0 < 1e3 * eps:
            break
    if first is None:
        return "skipped", "the function is not finite near x along v"
    return _one_sided(call, weights, moves, slope, phi0, *first)


def _rate(rests, noise):
    """'passed' when the remainders fall as h^2 (or are all noise)."""
    above = [r > n for r, n in zip(rests, noise)]
    if not any(above):
        return "passed"  # linear in v, or g exact to rounding
    for k in range(len(rests) - 1, 0, -1):  # the last pair of steps above the noise
        if above[k] and above[k - 1]:
            return "passed" if rests[k - 1] >= PASSING_RATIO * rests[k] else "failed"
        if above[k - 1] and not above[k]:
            return "passed"  # fell into the noise: faster than h
    return "failed"


def _one_sided(call, weights, moves, slope, phi0, steps, ahead, rests):
    """A failed rate: a kink at x, a jump, or a wrong gradient."""
    behind = [_phi(call, weights, moves, -h) for h in steps]
    if any(b is None or not np.isfinite(b) for b in behind):
        return "skipped", "the function is not finite on one side of x along v"
    rise = [a - phi0 for a in ahead]
    fall = [phi0 - b for b in behind]
    if _jumps(rise) or _jumps(fall):
        return "skipped", ("the function jumps at x along v (not continuous: a branch on a "
                           "differentiated value, floor, round, ...)")
    right = 2 * rise[-1] / steps[-1] - rise[-2] / steps[-2]  # one-sided slopes, extrapolated
    left = 2 * fall[-1] / steps[-1] - fall[-2] / steps[-2]
    tol = 1e-4 * (abs(right) + abs(left) + abs(slope)) + 10 * _EPS[call.dtype] * abs(phi0) \
        / steps[-1]
    table = ", ".join(f"h={h:.2g}: {r:.3g}" for h, r in zip(steps, rests))
    if abs(right - left) <= tol:  # smooth: the slope must be the derivative
        if _branch_boundary(call, weights, moves, steps[-1], right, left, tol):
            return "skipped", ("x is on a branch boundary (the gradient on either side of it "
                               "matches the function; at x it is the derivative of the branch "
                               "taken, as in JAX)")
        return "failed", (f"the remainder falls as h, not h^2 ({table}): the derivative along v "
                          f"is {right:.10g} by differences, but <g, v> is {slope:.10g}.")
    if min(left, right) - tol <= slope <= max(left, right) + tol:
        return "passed", ("a kink at x: <g, v> lies between the one-sided derivatives "
                          f"{left:.6g} and {right:.6g}")
    return "kinks", (f"x is a kink along v (one-sided derivatives {left:.10g} and "
                     f"{right:.10g}), and <g, v> = {slope:.10g} lies outside them.")


COORDINATES = 12  # at most this many coordinates tried where v crosses several kinks


def _by_coordinates(call, weights, positions, rng):
    """The Taylor test along single coordinates (a sample): at a kink of
    one coordinate the gradient's element must lie between its one-sided
    derivatives; where the function is smooth along it, equal them."""
    coords = [(call.wrt[k], idx) for k in positions
              for idx in np.ndindex(*np.shape(call.values[call.wrt[k]]))]
    if len(coords) > COORDINATES:
        coords = [coords[i] for i in sorted(rng.choice(len(coords), COORDINATES, replace=False))]
    coords = [(p, idx) for p, idx in coords
              if np.isfinite(call.values[p][idx] if idx else call.values[p])]
    for p, idx in coords:
        x = call.values[p]
        k = call.wrt.index(p)
        step = abs(float(x[idx] if idx else x)) or 1.0
        if isinstance(x, np.ndarray):
            e = np.zeros_like(x)
            e[idx] = step
        else:
            e = step
        slope = float(np.asarray(call.grad_list[k])[idx]) * step
        verdict, detail = _test(call, weights, {p: e}, slope)
        if verdict in ("failed", "kinks"):
            where = call.names[p] + (str(list(map(int, idx))) if idx else "")
            return "failed", f"along {where} alone: {detail}"
    return "passed", f"kinks at x: checked along {len(coords)} coordinates one at a time"


def _branch_boundary(call, weights, moves, h, right, left, tol):
    """Whether the derivative's own slopes just beside x, on both sides,
    agree with the differences (a derivative that is wrong at x only: the
    branch taken at a boundary point such as `if x == 0`)."""
    for sign, want in ((1.0, right), (-1.0, left)):
        values = list(call.values)
        for p, v in moves.items():
            values[p] = _moved(values[p], sign * h, v)
        try:
            value, grads = call.run(call.entry, values)
        except (ArithmeticError, ValueError):
            return False
        if call.mode == "jvp":
            got = _inner(weights, grads)
        else:
            single = len(call.wrt) == 1 and call.grad_list is not None \
                and not isinstance(grads, tuple)
            grads = [grads] if single else list(grads)
            got = sum(_inner(grads[call.wrt.index(p)], v) for p, v in moves.items())
        if not abs(got - want) <= 10 * tol:
            return False
    return True


def _jumps(change):
    """Whether phi's change does not shrink with the step (a discontinuity)."""
    small, large = abs(change[-1]), abs(change[0])
    return large > 0 and small > 0.6 * large


def _phi(call, weights, moves, h=1.0):
    """<w, output> at the call's arguments moved by h * v."""
    values = list(call.values)
    for p, v in moves.items():
        values[p] = _moved(values[p], h, v)
    try:
        value = call.run(call.entry, values)[0]
    except (ArithmeticError, ValueError):
        return None
    return _inner(weights, call.output(value))


def _moved(x, h, v):
    if isinstance(x, np.ndarray):
        return (x + h * v).astype(x.dtype)
    return type(x)(x + h * v)


# ---- directions and weights --------------------------------------------------
def differentiable_positions(call):
    """The indices into `call.wrt` of float arguments (not a local variable
    named in wrt, not an integer)."""
    out = []
    for k, p in enumerate(call.wrt):
        if isinstance(p, int) and p < len(call.values) and _is_float(call.values[p]):
            out.append(k)
    return out


def direction(x, rng):
    """A random direction shaped like `x`, scaled like its values."""
    if isinstance(x, np.ndarray):  # (an infinite element stays where it is)
        scale = rms(x) or 1.0
        return np.where(np.isfinite(x), rng.standard_normal(x.shape) * scale, 0.0).astype(x.dtype)
    scale = abs(float(x)) if np.isfinite(x) and x else 1.0
    return float(rng.standard_normal()) * scale if np.isfinite(x) else 0.0


def output_weights(call):
    """What the derivative weights the outputs by: the seed of a vjp, ones
    for a gradient (the sum of the outputs, as tf.gradients)."""
    if call.mode == "vjp":
        return call.extra[0]
    return _ones_like(call.output(call.value))


def random_like(value, rng):
    """Random weights shaped like a float output (a tuple: one per item)."""
    if isinstance(value, (tuple, list)):
        items = [random_like(v, rng) for v in value]
        return None if all(i is None for i in items) else \
            tuple(0.0 if i is None else i for i in items)
    if _is_float(value):
        return rng.standard_normal(np.shape(value)) if np.ndim(value) else \
            float(rng.standard_normal())
    return None


def _ones_like(value):
    if isinstance(value, (tuple, list)):
        return tuple(_ones_like(v) for v in value)
    if _is_float(value):
        return np.ones(np.shape(value)) if np.ndim(value) else 1.0
    return 0.0


def _is_float(v):
    if isinstance(v, np.ndarray):
        return v.dtype.kind == "f"
    return isinstance(v, (float, np.floating))


def _inner(a, b):
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        a, b = _items(a), _items(b)  # (a tuple output's seed may be one stacked array)
        if a is None or b is None or len(a) != len(b):
            return 0.0
        return sum(_inner(u, v) for u, v in zip(a, b))
    try:
        return float(np.sum(np.asarray(a, dtype=float) * np.asarray(b, dtype=float)))
    except (TypeError, ValueError):
        return 0.0


def rms(x):
    """The root mean square of a number or array's finite elements (0 for none)."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return 0.0
    a = a[np.isfinite(a)]
    return float(np.sqrt(np.mean(a * a))) if a.size else 0.0


def _items(v):
    """A tuple's items, or an array's along its first axis (None for a number)."""
    if isinstance(v, (tuple, list)):
        return list(v)
    return list(v) if isinstance(v, np.ndarray) and v.ndim else None


def abs_inner(a, b):
    """Sum of |a * b| over matching leaves."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        a, b = _items(a), _items(b)
        if a is None or b is None or len(a) != len(b):
            return 0.0
        return sum(abs_inner(u, v) for u, v in zip(a, b))
    try:
        return float(np.nansum(np.abs(np.asarray(a, dtype=float) * np.asarray(b, dtype=float))))
    except (TypeError, ValueError):
        return 0.0
