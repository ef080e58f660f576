"""A program's derivative against its twins, after check.check has built
it (Python, and compiled for some programs):

* plain: the same derivative with every optimisation pass off
  (`optimise=False`); the plain adjoint is the specification, so the
  optimised gradient must equal it to rounding (rtol 1e-9). When they
  differ, the report names the first optimisation (in
  `s2sad.OPTIMISATIONS`' order) whose removal alone makes them agree,
  switched off through `S2SAD_OPTIMISE=-name`. Before s2sad has
  `optimise=` (no `s2sad.OPTIMISATIONS`), the check is skipped and counted;
* parallel: for programs drawn with `parallel`, `parallel=True` (as Python,
  and compiled for compiled programs) against the serial gradient.

A wrong gradient against finite differences is explained the same way:
`explain` says whether the plain derivative is right and which pass is the
first to make the optimised one wrong."""
import contextlib
import os

import numpy as np

from .leaves import copy_value, flat

RTOL = 1e-9


def available():
    """Whether s2sad builds the plain derivative (`optimise=False`)."""
    import s2sad
    return hasattr(s2sad, "OPTIMISATIONS")


@contextlib.contextmanager
def passes_off(names):
    """The derivatives built inside have the passes `names` switched off."""
    old = os.environ.get("S2SAD_OPTIMISE")
    os.environ["S2SAD_OPTIMISE"] = ",".join("-" + n for n in names)
    try:
        yield
    finally:
        if old is None:
            del os.environ["S2SAD_OPTIMISE"]
        else:
            os.environ["S2SAD_OPTIMISE"] = old


def gradients(L, args, jit=False, **options):
    """The gradients (one per wrt position) of a fresh derivative."""
    import warnings

    import s2sad
    derivative = s2sad.grad(L.f, wrt=L.prog.wrt, jit=jit, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return derivative(*[copy_value(a) for a in args])


def _scale(grads):
    return max([1.0] + [float(np.max(np.abs(flat(g)), initial=0.0)) for g in grads])


def same(got, want, rtol=RTOL):
    """Whether two gradient tuples agree to rounding."""
    scale = _scale(want)
    for a, b in zip(got, want):
        a, b = np.asarray(flat(a), dtype=float), np.asarray(flat(b), dtype=float)
        if a.shape != b.shape or not np.all(np.abs(a - b) <= 1e-12 * scale + rtol * np.abs(b)):
            return False
    return True


def _numbers(prog, got, want, labels):
    for p, a, b in zip(prog.wrt, got, want):
        if not same((a,), (b,)):
            return (f"d/d{prog.arg_names[p]}: {labels[0]} {np.round(flat(a), 8).tolist()}, "
                    f"{labels[1]} {np.round(flat(b), 8).tolist()}")
    return ""


def first_culprit(L, args, want, jit=False):
    """The first optimisation whose removal alone gives the gradient
    `want` (the plain one), or, if none does alone, the shortest prefix of
    the list whose removal does (named by its last pass, with a "+")."""
    import s2sad
    names = list(getattr(s2sad, "OPTIMISATIONS", ()))
    for name in names:
        with passes_off([name]):
            try:
                if same(gradients(L, args, jit), want):
                    return name
            except Exception:  # noqa: BLE001 - a pass that others rely on
                continue
    for k in range(2, len(names) + 1):
        with passes_off(names[:k]):
            try:
                if same(gradients(L, args, jit), want):
                    return "+" + names[k - 1]
            except Exception:  # noqa: BLE001
                continue
    return "none"


def check_plain(L, args, grads, res):
    """The optimised Python gradient `grads` against the plain one; None
    or a failure dict. Sets res["plain"]: "same", or "unavailable"."""
    if not available():
        res["plain"] = "unavailable"
        return None
    try:
        plain = gradients(L, args, optimise=False)
    except Exception as exc:  # noqa: BLE001
        return dict(status="fail", category="plain error",
                    message=f"{type(exc).__name__}: {exc}"[:2000])
    res["plain"] = "same"
    if same(grads, plain):
        return None
    culprit = first_culprit(L, args, plain)
    return dict(status="fail", category="optimised differs from plain", culprit=culprit,
                message=f"first optimisation whose removal agrees: {culprit}; "
                        + _numbers(L.prog, grads, plain, ("optimised", "plain")))


def explain(L, args, fds):
    """For a gradient that finite differences contradict: whether the plain
    derivative agrees with them, and the first optimisation to blame."""
    if not available():
        return {}
    try:
        plain = gradients(L, args, optimise=False)
    except Exception as exc:  # noqa: BLE001
        return dict(culprit="plain raises", plain=f"{type(exc).__name__}")
    right = all(np.allclose(flat(g), flat(fds[p]), rtol=1e-5, atol=1e-6 * _scale(plain))
                for p, g in zip(L.prog.wrt, plain))
    if not right:
        return dict(culprit="plain is wrong too", plain="wrong")
    return dict(culprit=first_culprit(L, args, plain), plain="right")


def check_parallel(L, args, grads, jit):
    """parallel=True (as Python; compiled too when `jit`) against the serial
    gradients `grads` (a dict jit -> gradients); None or a failure dict."""
    for mode in ([False, True] if jit else [False]):
        label = "jit" if mode else "python"
        if mode not in grads:
            continue
        try:
            got = gradients(L, args, jit=mode, parallel=True)
        except Exception as exc:  # noqa: BLE001
            return dict(status="fail", category=f"parallel error ({label})",
                        message=f"{type(exc).__name__}: {exc}"[:2000])
        if not same(got, grads[mode], rtol=1e-9):
            return dict(status="fail", category=f"parallel differs ({label})",
                        message=_numbers(L.prog, got, grads[mode], ("parallel", "serial")))
    return None
