"""`check_grads`: s2sad's derivatives against central finite differences of
the function, along random directions, as `jax.test_util.check_grads` and
`torch.autograd.gradcheck` do. It is how a user checks a custom gradient
(`custom_gradient`, `custom_vjp`, `register_gradient`)."""
import numpy as np
from .transforms.errors import S2sadTypeError, S2sadValueError

_MODES = ("rev", "fwd")


def check_grads(f, args, order=1, modes=_MODES, wrt=0, rtol=None, atol=None, eps=None,
                seed=0, jit="auto"):
    """Check the derivatives of `f` at `args` up to `order` (1 or 2).

    For each argument in `wrt` (a position, a name, or a tuple of them) and
    each mode: "fwd" compares `s2sad.jvp` along a random tangent `t` with
    the central difference `(f(x + eps t) - f(x - eps t)) / 2 eps`; "rev"
    compares `<vjp(c), t>` for a random output weight `c` with `<c, that
    difference>`. Order 2 also checks the derivative of the gradient (the
    Hessian times `t`, by `s2sad.hvp`, "rev") and of the jvp (forward over
    forward, "fwd") against central differences of the first derivative.

    Tolerances default to the argument's precision (float64: rtol and atol
    1e-5, eps 1e-6; float32: 2e-2, 2e-2, 1e-2). Raises AssertionError
    naming the argument, the order, the mode and the largest error."""
    from .api import jvp, vjp
    if order not in (1, 2):
        raise S2sadValueError(f"check_grads checks order 1 or 2, not {order!r}")
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    unknown = [m for m in modes if m not in _MODES]
    if unknown or not modes:
        raise S2sadValueError(f"modes are 'rev' and 'fwd', not {unknown or modes!r}")
    args = tuple(args)
    positions = _positions(f, args, wrt)
    rng = np.random.default_rng(seed)
    for pos in positions:
        x = args[pos]
        if not (isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")):
            raise S2sadTypeError(f"check_grads: argument {_label(f, pos)} is "
                            f"{type(x).__name__}; it checks float and float-array arguments")
        tol = _tolerances(x, rtol, atol, eps)
        t = _direction(x, rng)

        def along(h, pos=pos, x=x, t=t):
            moved = list(args)
            moved[pos] = x + h * t
            return moved

        numerical = _difference(lambda *a: f(*a), along, tol[2])
        for mode in modes:
            if mode == "fwd":
                _, got = jvp(f, wrt=pos, jit=jit)(*args, t)
                _compare(f, pos, 1, "fwd (jvp)", _flat(got), _flat(numerical), tol)
            else:
                out = f(*args)
                c = _cotangent(out, rng)
                g = vjp(f, wrt=pos, jit=jit)(*args, c)
                got = np.sum(np.asarray(g) * t)
                want = _dot(c, numerical)
                _compare(f, pos, 1, "rev (vjp)", np.array([got]), np.array([want]), tol)
        if order == 2:
            _check_second_order(f, args, pos, t, modes, tol, along, jit)


def _check_second_order(f, args, pos, t, modes, tol, along, jit):
    from .api import grad, jvp
    from .higher import hvp
    for mode in modes:
        if mode == "rev":
            first = grad(f, wrt=pos, jit=jit)  # (of the sum of the outputs)
            got = hvp(f, wrt=pos, jit=jit)(*args, t)
            what = "rev (hvp, the derivative of the gradient)"
        else:
            first = _jvp_along(jvp(f, wrt=pos, jit=jit), t)
            # (the generated jvp takes every parameter: the defaults too)
            _, got = jvp(_generated(jvp(f, wrt=pos, jit=jit), args, t), wrt=pos, jit=jit)(
                *_with_defaults(f, args), t, t)
            got = got[1] if isinstance(got, tuple) else got
            what = "fwd (jvp of the jvp)"
        numerical = _difference(first, along, tol[2])
        _compare(f, pos, 2, what, _flat(got), _flat(numerical), tol)


def _jvp_along(derivative, t):
    def directional(*a):
        return derivative(*a, t)[1]
    return directional


def _generated(derivative, args, t):
    """The generated jvp function itself (a plain Python function that s2sad
    can differentiate again), for arguments like `args`."""
    derivative(*args, t)  # generate and compile it for these kinds
    entry = derivative.specialisation()
    return entry.module.python.__dict__[entry.fname]


def _with_defaults(f, args):
    """`args` followed by the defaults of the parameters they leave out, in
    the order of `f`'s signature."""
    import inspect
    try:
        signature = inspect.signature(f)
        bound = signature.bind(*args)
    except (TypeError, ValueError):
        return args
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
        return args
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def _difference(fn, along, eps):
    """Central difference of fn along the direction: a flat vector."""
    plus, minus = fn(*along(eps)), fn(*along(-eps))
    return (_flat(plus) - _flat(minus)) / (2.0 * eps)


def _compare(f, pos, order, mode, got, want, tol):
    rtol, atol, _ = tol
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape:
        raise AssertionError(f"check_grads: {_name(f)}, argument {_label(f, pos)}, order "
                             f"{order}, mode {mode}: s2sad gives {got.size} values where finite "
                             f"differences give {want.size}")
    err = np.abs(got - want)
    bound = atol + rtol * np.abs(want)
    if not np.all(err <= bound) or not np.all(np.isfinite(got)):
        k = int(np.nanargmax(np.where(np.isfinite(err), err - bound, np.inf)))
        raise AssertionError(
            f"check_grads: {_name(f)}, argument {_label(f, pos)}, order {order}, mode {mode}: "
            f"the derivative differs from central finite differences; largest error "
            f"{err[k]:.3g} (s2sad {got[k]:.6g}, finite differences {want[k]:.6g}; rtol {rtol:g}, "
            f"atol {atol:g})")


def _positions(f, args, wrt):
    import inspect
    names = list(inspect.signature(f).parameters)
    wrt = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    out = []
    for w in wrt:
        if isinstance(w, str):
            if w not in names:
                raise S2sadValueError(f"check_grads: {_name(f)} has no argument '{w}'")
            w = names.index(w)
        if not isinstance(w, int) or not -len(args) <= w < len(args):
            raise S2sadValueError(f"check_grads: wrt {w!r} is not an argument position of "
                             f"{len(args)} arguments")
        out.append(w % len(args))
    return out


def _tolerances(x, rtol, atol, eps):
    single = np.asarray(x).dtype == np.float32
    return (rtol if rtol is not None else (2e-2 if single else 1e-5),
            atol if atol is not None else (2e-2 if single else 1e-5),
            eps if eps is not None else (1e-2 if single else 1e-6))


def _direction(x, rng):
    if isinstance(x, float):
        return float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.0))
    return rng.standard_normal(x.shape).astype(x.dtype)


def _cotangent(out, rng):
    if isinstance(out, tuple):
        return tuple(_cotangent(o, rng) for o in out)
    if np.ndim(out) == 0:
        return float(rng.uniform(0.5, 1.0))
    return rng.standard_normal(np.shape(out))


def _dot(c, flat_difference):
    return float(np.dot(_flat(c), flat_difference))


def _flat(v):
    if isinstance(v, tuple):
        return np.concatenate([_flat(e) for e in v]) if v else np.zeros(0)
    return np.ravel(np.asarray(v, dtype=float))


def _name(f):
    return getattr(f, "__qualname__", repr(f))


def _label(f, pos):
    import inspect
    try:
        names = list(inspect.signature(f).parameters)
        return f"{pos} ('{names[pos]}')"
    except (TypeError, ValueError, IndexError):
        return str(pos)
