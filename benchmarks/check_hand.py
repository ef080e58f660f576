"""Check every hand-written gradient against central finite differences.

    python benchmarks/check_hand.py [--only W1,W3] [--peers]

For each workload: numba-compile primal and hand_grad, compare hand_grad
(numba and plain Python) with finite differences of the numba primal on the
small inputs, and run the numba hand_grad once on the full inputs. With
--peers, also compare each installed peer gradient with hand_grad.
Exits non-zero when a check fails.
"""
import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
__import__("__init__").bootstrap()  # import benchmarks as a package
sys.path.pop(0)

import numba  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._common import as_tuple, fd_err, finite_diff, rel_err  # noqa: E402
from benchmarks.workloads import WORKLOADS, load  # noqa: E402

FD_TOL = 1e-5
AD_TOL = 1e-8
PEERS = ("jax_grad_fn", "jax_loop_grad_fn", "torch_grad", "autograd_grad_fn")


def peer_callable(mod, name):
    obj = getattr(mod, name)
    return (lambda *a: obj(a)) if name == "torch_grad" else obj()


def check(name, peers):
    mod = load(name)
    nw = len(mod.WRT)
    ok = True
    t0 = time.perf_counter()
    jp = numba.njit(mod.primal)
    jh = numba.njit(mod.hand_grad)
    small = mod.make_inputs("small")
    g = as_tuple(jh(*small), nw)
    t_compile = time.perf_counter() - t0
    gpy = as_tuple(mod.hand_grad(*small), nw)
    p_py, p_nb = mod.primal(*small), jp(*small)
    fd, masks = finite_diff(jp, small, mod.WRT)
    e_fd = fd_err(g, fd, masks)
    e_py = rel_err(gpy, g)
    e_p = abs(p_py - p_nb) / max(1.0, abs(p_nb))
    ok &= e_fd < FD_TOL and e_py < AD_TOL and e_p < AD_TOL
    print("%-6s compile %.2fs  hand vs FD %.1e  python vs numba hand %.1e  primal py/nb %.1e"
          % (name, t_compile, e_fd, e_py, e_p))
    full = mod.make_inputs("full")
    t0 = time.perf_counter()
    gf = as_tuple(jh(*full), nw)
    tf = time.perf_counter() - t0
    finite = all(np.all(np.isfinite(x)) for x in gf)
    ok &= finite
    print("       full inputs: hand_grad %.4fs, primal %.6g, gradients finite: %s"
          % (tf, jp(*full), finite))
    if peers:
        for pname in PEERS:
            if not hasattr(mod, pname):
                continue
            try:
                f = peer_callable(mod, pname)
                for label, args, ref in (("small", small, g), ("full", full, gf)):
                    a = args
                    if pname.startswith("jax"):
                        import jax.numpy as jnp
                        a = tuple(jnp.asarray(x) if isinstance(x, np.ndarray) else x for x in args)
                    e = rel_err(as_tuple(f(*a), nw), ref)
                    ok &= e < 1e-6
                    print("       %-17s %-5s vs hand %.1e" % (pname, label, e))
            except ImportError as exc:
                print("       %-17s not installed (%s)" % (pname, exc))
            except Exception:
                ok = False
                print("       %-17s FAILED\n%s" % (pname, traceback.format_exc()))
    print("       %s" % ("ok" if ok else "FAILED"))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--peers", action="store_true", help="also check peer gradients")
    opts = ap.parse_args()
    names = [n.strip() for n in opts.only.split(",") if n.strip()] or list(WORKLOADS)
    results = {n: check(n, opts.peers) for n in names}
    bad = [n for n, r in results.items() if not r]
    print("%d passed, %d failed" % (len(results) - len(bad), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
