"""Check generated programs: s2sad's gradient (jit off, and on for some)
against finite differences of the instrumented twin, jit against Python,
the value against the primal, and the caller's arrays untouched.

Programs are written to real module files (s2sad reads source with
`inspect`), a batch per module. `run_programs` spreads batches over worker
processes and kills a worker whose program runs too long (a derivative that
never terminates is a finding too).
"""
import ast
import atexit
import importlib
import itertools
import multiprocessing
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

from .generator import HEADER, MAIN
from . import refusals, twins, variants
from .outside import outside_language
from .leaves import copy_value, flat, is_tree, leaves, rebuild, same_values, structure_mismatch
from .reference import Recorder, reference_source

H = 1e-6            # finite-difference step
BIG = 1e6           # values or gradients beyond this are not compared with finite differences

_counter = itertools.count()


def rename(source, prefix):
    """Give a program's functions names of their own inside a batch module."""
    return re.sub(r"\b(helper_\d+|fuzzed)\b", lambda m: prefix + m.group(1), source)


class Loaded:
    def __init__(self, prog, f, fr, recorder, mutations):
        self.prog, self.f, self.fr, self.R = prog, f, fr, recorder
        self.mutations = mutations   # (file, function, line) -> names written in place there


def _mutations(path, source):
    """Lines that write an array in place: `a[...] = ...`, `a op= ...`."""
    out = {}
    for fdef in ast.parse(source).body:
        if not isinstance(fdef, ast.FunctionDef):
            continue
        for node in ast.walk(fdef):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AugAssign) else []
            for t in targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    name = t.value.id
                elif isinstance(node, ast.AugAssign) and isinstance(t, ast.Name):
                    name = t.id
                else:
                    continue
                out.setdefault((path, fdef.name, node.lineno), set()).add(name)
    return out


_workdir = []


def _default_workdir():
    """One directory for this process's modules, removed at exit."""
    if not _workdir:
        _workdir.append(tempfile.mkdtemp(prefix="s2sad-fuzz-"))
        atexit.register(shutil.rmtree, _workdir[0], True)
    return _workdir[0]


def load(programs, workdir=None):
    """Write `programs` into a plain and a reference module and import them."""
    workdir = workdir or _default_workdir()
    if workdir not in sys.path:
        sys.path.insert(0, workdir)
    tag = f"fuzzbatch_{os.getpid()}_{next(_counter)}"
    plain, ref = [HEADER], [HEADER]
    for i, p in enumerate(programs):
        src = rename(p.source, f"p{i}_")
        plain.append(src + "\n\n\n" + variants.tree_source(p, src, f"p{i}_"))
        ref.append(reference_source(src))
    for name, parts in ((tag, plain), (tag + "_ref", ref)):
        with open(os.path.join(workdir, name + ".py"), "w") as fh:
            fh.write("\n\n".join(parts))
    path = os.path.join(workdir, tag + ".py")
    mutations = _mutations(path, "\n\n".join(plain))
    importlib.invalidate_caches()
    mod = importlib.import_module(tag)
    refmod = importlib.import_module(tag + "_ref")
    refmod._R = recorder = Recorder()
    loaded = [Loaded(p, getattr(mod, f"p{i}_{MAIN}"), getattr(refmod, f"p{i}_{MAIN}"), recorder,
                     mutations) for i, p in enumerate(programs)]
    for i, L in enumerate(loaded):  # the pytree variant, when the program has one
        L.tree = getattr(mod, f"p{i}_{MAIN}_tree", None)
    return loaded


# ---- values -------------------------------------------------------------------------

def _copy_args(args):
    return [copy_value(a) for a in args]


def total(out):
    if isinstance(out, tuple):
        return sum(float(np.sum(o)) for o in out)
    return float(np.sum(out))


def _flat(out):
    if isinstance(out, tuple):
        return np.concatenate([np.ravel(np.asarray(o, dtype=float)) for o in out])
    return np.ravel(np.asarray(out, dtype=float))


def _finite_small(out):
    v = _flat(out)
    return bool(np.all(np.isfinite(v)) and np.all(np.abs(v) < BIG))


class Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise Timeout("timed out")


def finite_differences(L, args, pos, h=H, order=2):
    """d total(f) / d args[pos] by central differences of the reference,
    replaying the recorded marker values; None if a perturbed run leaves
    the recorded path (a kink within h) or fails. A container argument's
    derivative is a container of its leaves' derivatives."""
    x = args[pos]
    if is_tree(x):
        out = []
        for i, leaf in enumerate(leaves(x)):
            def place(v, i=i):
                parts = leaves(x)
                parts[i] = v
                return rebuild(x, parts)
            g = _finite_differences(L, args, pos, leaf, place, h, order)
            if g is None:
                return None
            out.append(g)
        return rebuild(x, out)
    return _finite_differences(L, args, pos, x, lambda v: v, h, order)


def _finite_differences(L, args, pos, x, place, h, order):
    steps = [(1.0, 1.0), (-1.0, -1.0)] if order == 2 else \
        [(1.0, 8.0), (-1.0, -8.0), (2.0, -1.0), (-2.0, 1.0)]
    denom = 2 * h if order == 2 else 12 * h

    def value(xv):
        new = _copy_args(args)
        new[pos] = place(xv)
        L.R.replay()
        try:
            out = total(L.fr(*new))
        except Exception:
            return None
        finally:
            ok = L.R.finish()
            L.R.mode = "off"
        return out if ok else None

    def deriv(perturb):
        acc = 0.0
        for k, w in steps:
            v = value(perturb(k * h))
            if v is None:
                return None
            acc += w * v
        return acc / denom

    if np.ndim(x) == 0:
        return deriv(lambda d: x + d)
    g = np.zeros(np.shape(x))
    for idx in np.ndindex(*np.shape(x)):
        def perturb(d, idx=idx):
            xv = x.copy()
            xv[idx] += d
            return xv
        gi = deriv(perturb)
        if gi is None:
            return None
        g[idx] = gi
    return g


def _close(a, b, rtol, atol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)))


def _where(exc):
    """Whether an exception came from running generated code or from
    generating it."""
    for fr in traceback.extract_tb(exc.__traceback__):
        if fr.filename.startswith("<s2sad") or "s2sad_" in os.path.basename(fr.filename):
            return "runtime"
    return "compile"


def _describe(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text.strip()


# ---- one program ------------------------------------------------------------------

def check(L, jit=None):
    """A result dict: status ok / fail / skip / invalid, with a category and
    a message for failures."""
    import s2sad
    from s2sad.errors import NumbaFallbackWarning
    from s2sad.transforms.errors import UnsupportedSyntaxError

    prog = L.prog
    jit = prog.jit if jit is None else jit
    res = dict(status="ok", category="", message="", fd="ok", jit=jit)
    args = prog.args()

    # the primal, and the reference's unperturbed run (which records)
    try:
        v0 = L.f(*_copy_args(args))
    except Timeout:
        raise
    except Exception as exc:
        return dict(res, status="invalid", category="primal raised", message=_describe(exc))
    if not _finite_small(v0):
        return dict(res, status="skip", category="primal out of range")
    bad = outside_language(L, args)
    if bad:
        return dict(res, status="invalid", category="outside the language", message=bad[0])
    L.R.record()
    try:
        vr = L.fr(*_copy_args(args))
    except Exception as exc:
        return dict(res, status="invalid", category="reference raised", message=_describe(exc))
    finally:
        L.R.mode = "off"
    if not _close(_flat(vr), _flat(v0), 1e-12, 1e-12):
        return dict(res, status="invalid", category="reference differs from primal")

    if refusals.EXPECTED in prog.features:  # a call s2sad must refuse, naming its line
        return refusals.check_refused(L, args, jit, res)

    # finite differences
    fds = {}
    for p in prog.wrt:
        g = finite_differences(L, args, p)
        if g is None:
            res["fd"] = "kink"
            break
        if not _finite_small(flat(g)):
            res["fd"] = "out of range"
            break
        fds[p] = g

    # s2sad
    grads = {}
    for mode in ([False, True] if jit else [False]):
        label = "jit" if mode else "python"
        a = _copy_args(args)
        derivative = s2sad.value_and_grad(L.f, wrt=prog.wrt, jit=mode)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", NumbaFallbackWarning)
                value, gs = derivative(*a)
        except Timeout:
            raise
        except NumbaFallbackWarning as exc:
            # numba lacks some numpy forms the programs use (np.max over an
            # axis): the generated code then runs as Python, whose values
            # are still checked; the run counts these
            res["fallback"] = _describe(exc)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NumbaFallbackWarning)
                value, gs = derivative(*_copy_args(args))
        except (LookupError, UnsupportedSyntaxError) as exc:
            if "s2sad-fuzz" not in str(exc) and "fuzzbatch" not in str(exc):
                raise
            # a clear refusal naming the program's line: allowed, counted
            return dict(res, status="refused", category=type(exc).__name__,
                        message=_describe(exc))
        except Exception as exc:
            where = _where(exc)
            return dict(res, status="fail", category=f"{where} error ({label})",
                        message=_describe(exc), traceback=traceback.format_exc(limit=-6))
        for before, after in zip(args, a):
            if not isinstance(before, (float, int)) and not same_values(before, after):
                return dict(res, status="fail", category=f"argument modified ({label})")
        if not (isinstance(gs, tuple) and len(gs) == len(prog.wrt)):
            return dict(res, status="fail", category=f"gradient structure ({label})",
                        message=repr(gs))
        scale = max([1.0] + [float(np.max(np.abs(_flat(v0))))])
        if not _close(_flat(value), _flat(v0), 1e-9, 1e-12 * scale):
            return dict(res, status="fail", category=f"wrong value ({label})",
                        message=f"value {value!r}, primal {v0!r}")
        for p, g in zip(prog.wrt, gs):
            bad = structure_mismatch(g, args[p])
            if bad:
                return dict(res, status="fail", category=f"gradient shape ({label})",
                            message=f"d/d{prog.arg_names[p]}: {bad}")
        grads[mode] = gs
        if res["fd"] != "ok":
            continue
        gscale = max([1.0] + [float(np.max(np.abs(flat(fds[p])), initial=0.0)) for p in prog.wrt])
        for p, g in zip(prog.wrt, gs):
            g = flat(g)
            if _close(g, flat(fds[p]), 1e-5, 1e-6 * gscale):
                continue
            # before reporting: other steps, and whether finite differences
            # are stable at all here (steep higher derivatives spoil them)
            g7 = finite_differences(L, args, p, h=1e-7)
            g4 = finite_differences(L, args, p, h=1e-4, order=4)
            if g7 is None or g4 is None or _close(g, flat(g7), 1e-5, 1e-6 * gscale) \
                    or _close(g, flat(g4), 1e-5, 1e-6 * gscale):
                continue
            if not _close(flat(g7), flat(fds[p]), 1e-5, 1e-6 * gscale):
                res["fd"] = "unstable"
                continue
            why = twins.explain(L, args, fds)   # the plain derivative, and which pass
            return dict(res, status="fail", category=f"wrong gradient ({label})", **why,
                        message=f"d/d{prog.arg_names[p]}: s2sad {np.round(g, 8).tolist()}, "
                                f"finite differences {np.round(flat(fds[p]), 8).tolist()}"
                                + (f"; plain derivative {why['plain']}, first optimisation "
                                   f"to blame: {why['culprit']}" if why else ""))
        # (Python derivatives too: a kind or shape decided for one size must hold for others)
        res.setdefault("resized", [])
        bad = other_sizes(L, args, derivative, res["resized"], tries=4 if mode else 2)
        if bad:
            return dict(res, status="fail", category=f"index checks ({label})", message=bad)
    if False in grads:   # optimised against plain (every optimisation off), parallel
        bad = twins.check_plain(L, args, grads[False], res) or \
            (twins.check_parallel(L, args, grads, jit) if prog.parallel else None)
        if bad:
            return dict(res, **bad)
    if res["fd"] == "ok" and False in grads:  # pytree and float32 variants
        bad = variants.check_variants(L, args, grads[False], _close)
        if bad:
            return dict(res, **bad)
    if jit and False in grads and True in grads:
        gscale = max([1.0] + [float(np.max(np.abs(flat(g)), initial=0.0)) for g in grads[False]])
        for p, gp, gj in zip(prog.wrt, grads[False], grads[True]):
            gp, gj = flat(gp), flat(gj)
            if not _close(gj, gp, 1e-7, 1e-9 * gscale):
                return dict(res, status="fail", category="jit differs from python",
                            message=f"d/d{prog.arg_names[p]}: jit {np.round(gj, 10).tolist()}, "
                                    f"python {np.round(gp, 10).tolist()}")
    return res


def other_sizes(L, args, derivative, seen, tries=4):
    """The derivative (compiled or Python) on arguments of other sizes (an
    array's axis or an int a little larger or smaller), where indices may
    leave their arrays: it must raise where the primal raises IndexError,
    and give the primal's value where it does not (compiled code checks
    indices itself or has numba check them: it never reads or writes
    outside an array; Python code must not carry a kind or size decided for
    the first arguments over to others).
    A message for the first disagreement, or None; `seen` gets "raised" or
    "ran" per call compared."""
    rng = np.random.default_rng(L.prog.value_seed + 1)
    sized = [k for k, a in enumerate(args) if isinstance(a, np.ndarray) or type(a) is int]
    for _ in range(tries if sized else 0):
        k = sized[rng.integers(len(sized))]
        new = _copy_args(args)
        step = int(rng.choice([-2, -1, 1, 2]))
        if isinstance(args[k], np.ndarray):
            axis = int(rng.integers(args[k].ndim))
            shape = list(args[k].shape)
            shape[axis] = max(0, shape[axis] + step)
            new[k] = np.resize(args[k], shape)  # repeats the values to fill
        else:
            new[k] = args[k] + step
        try:
            expected = L.f(*_copy_args(new))
        except IndexError:
            expected = IndexError
        except Exception:  # noqa: BLE001 - a broadcast error, ...: not about indices
            continue
        where = f"argument {k} resized to {np.shape(new[k]) or new[k]}"
        try:
            got = derivative(*_copy_args(new))[0]
        except Exception as exc:  # noqa: BLE001
            if expected is IndexError:
                seen.append("raised")
                continue
            return f"{where}: the primal runs, the derivative raises {_describe(exc)}"
        if expected is IndexError:
            return f"{where}: the primal raises IndexError, the compiled derivative returns"
        if not np.allclose(_flat(got), _flat(expected), rtol=1e-9, atol=1e-12, equal_nan=True):
            return f"{where}: value {got!r}, primal {expected!r}"
        seen.append("ran")
    return None


def check_all(loaded, timeout=60.0, report=None):
    """Check loaded programs in this process (a per-program alarm stops a
    hang in Python code; numba code cannot be interrupted)."""
    out = []
    old = signal.signal(signal.SIGALRM, _alarm) if hasattr(signal, "SIGALRM") else None
    try:
        for i, L in enumerate(loaded):
            if report:
                report(("start", i))
            t = time.time()
            if old is not None:
                signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                r = check(L)
            except Timeout:
                # interrupted inside numba's compiler, this process's numba is
                # no longer sound ("no compiled object yet" later): stop here
                r = dict(status="fail", category="timeout", message=f"no result in {timeout:.0f} s",
                         fd="", jit=L.prog.jit, poisoned=True)
            except Exception:  # a bug of the checker: report it, keep going
                r = dict(status="invalid", category="checker raised",
                         message=traceback.format_exc(limit=-4), fd="", jit=L.prog.jit)
            finally:
                if old is not None:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            r["time"] = time.time() - t
            out.append(r)
            if report:
                report(("result", i, r))
            if r.get("poisoned"):
                break
    finally:
        if old is not None:
            signal.signal(signal.SIGALRM, old)
    return out


# ---- worker processes -------------------------------------------------------------

def _worker(conn, workdir):
    warnings.simplefilter("ignore")  # s2sad's fallback warnings are caught per call
    while True:
        msg = conn.recv()
        if msg is None:
            return
        batch = msg
        try:
            loaded = load(batch, workdir)
        except Exception:
            for i in range(len(batch)):
                conn.send(("result", i, dict(status="invalid", category="module does not load",
                                             message=traceback.format_exc(limit=-3), fd="",
                                             jit=batch[i].jit, time=0.0)))
            conn.send(("done",))
            continue
        results = check_all(loaded, timeout=conn_timeout(), report=conn.send)
        if results and results[-1].get("poisoned"):
            conn.send(("restart",))  # the rest of the batch goes to a fresh process
            return
        conn.send(("done",))


def conn_timeout():
    return float(os.environ.get("S2SAD_FUZZ_TIMEOUT", "60"))


def run_programs(programs, workers=2, batch_size=25, timeout=60.0, progress=None,
                 recycle=400):
    """Check every program in worker processes; returns one result per
    program (in order). A worker stuck on a program for `timeout` seconds
    (numba code ignores signals) is killed and the program is a failure."""
    ctx = multiprocessing.get_context("spawn")
    os.environ["S2SAD_FUZZ_TIMEOUT"] = str(timeout)
    workdir = tempfile.mkdtemp(prefix="s2sad-fuzz-")
    results = [None] * len(programs)
    pending = [list(range(i, min(i + batch_size, len(programs))))
               for i in range(0, len(programs), batch_size)]
    slots = []

    def spawn():
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, workdir), daemon=True)
        proc.start()
        child.close()
        return dict(proc=proc, conn=parent, batch=None, current=None, started=0.0, done=0)

    def give(slot):
        if slot["done"] >= recycle:
            _stop(slot)
            slot.update(spawn())
        if pending:
            slot["batch"] = pending.pop(0)
            slot["current"], slot["started"] = None, time.time()
            slot["conn"].send([programs[i] for i in slot["batch"]])
        else:
            slot["batch"] = None

    for _ in range(max(1, min(workers, len(pending)))):
        slots.append(spawn())
    for s in slots:
        give(s)
    from multiprocessing.connection import wait
    while any(s["batch"] is not None for s in slots):
        busy = [s for s in slots if s["batch"] is not None]
        ready = wait([s["conn"] for s in busy], timeout=1.0)
        for s in busy:
            if s["conn"] in ready:
                try:
                    msg = s["conn"].recv()
                except EOFError:
                    msg = ("died",)
                if msg[0] == "start":
                    s["current"], s["started"] = msg[1], time.time()
                elif msg[0] == "result":
                    gi = s["batch"][msg[1]]
                    results[gi] = msg[2]
                    s["done"] += 1
                    if progress:
                        progress(gi, msg[2])
                elif msg[0] == "done":
                    give(s)
                elif msg[0] == "restart":
                    rest = [i for i in s["batch"] if results[i] is None]
                    if rest:
                        pending.insert(0, rest)
                    s["proc"].join(5)
                    s.update(spawn())
                    give(s)
                elif msg[0] == "died":
                    _crashed(s, results, programs, pending, progress, "worker died")
                    s.update(spawn())
                    give(s)
            elif time.time() - s["started"] > timeout + 30:
                _crashed(s, results, programs, pending, progress, f"no result in {timeout:.0f} s")
                s.update(spawn())
                give(s)
    for s in slots:
        _stop(s)
    shutil.rmtree(workdir, ignore_errors=True)
    return results


def _crashed(slot, results, programs, pending, progress, why):
    """The worker hung or died on its current program: record it, requeue the rest."""
    batch = slot["batch"]
    idx = slot["current"] if slot["current"] is not None else 0
    gi = batch[idx]
    results[gi] = dict(status="fail", category="timeout" if "no result" in why else "crash",
                       message=why, fd="", jit=programs[gi].jit, time=0.0)
    if progress:
        progress(gi, results[gi])
    rest = [i for i in batch[idx + 1:] if results[i] is None]
    if rest:
        pending.insert(0, rest)
    try:
        slot["proc"].kill()
    except Exception:
        pass
    slot["proc"].join(5)


def _stop(slot):
    try:
        slot["conn"].send(None)
    except Exception:
        pass
    slot["proc"].join(5)
    if slot["proc"].is_alive():
        slot["proc"].kill()
        slot["proc"].join(5)
