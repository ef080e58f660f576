"""What the generated language excludes, found by running a program under
a tracer (a program the generator or the shrinker should not have written):
an array written in place while another name shares its memory (s2sad does
not track writes through a second name, by design), or a variable whose kind
(float, int, array of some ndim) changes."""
import ast
import inspect
import re
import sys

import numpy as np

from .generator import CONTAINER_PARAMS
from .leaves import copy_value

# the view of the view_rewrite form, read only by the statement writing into it
_REWRITTEN_VIEW = re.compile(r"rw\d+")
# helpers (generator.UPDATERS) writing into their parameter through another
# name of it, or its rows' views, which s2sad follows
_WRITING_THROUGH = ("update_through", "update_rows")


def _kind(v):
    if isinstance(v, np.ndarray):
        return f"array{v.ndim}"
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    return type(v).__name__


def outside_language(L, args):
    """Run the primal under a tracer and report what the language excludes
    (a program the generator or the shrinker should not have written):
    an array written in place while another name shares its memory (s2sad
    does not track writes through a second name, by design), or a variable
    whose kind (float, int, array of some ndim) changes."""
    found = []
    files = {k[0] for k in L.mutations}
    kinds = {}
    unrolled = _container_loop_names(L)

    def tracer(frame, event, arg):
        code = frame.f_code
        if code.co_filename not in files:
            return None
        if event == "line" and not found and code.co_name in _WRITING_THROUGH:
            return tracer  # (they write through a second name on purpose; r's kind follows p's)
        if event == "line" and not found:
            loc = frame.f_locals
            for n, v in loc.items():
                if (code.co_name, n) in unrolled:
                    continue
                k = kinds.setdefault((code, n), _kind(v))  # (every lambda is "<lambda>")
                if k != _kind(v):
                    found.append(f"line {frame.f_lineno}: {n} changes from {k} to {_kind(v)}")
            for n in L.mutations.get((code.co_filename, code.co_name, frame.f_lineno), ()):
                a = loc.get(n)
                if not isinstance(a, np.ndarray):
                    continue
                for other, b in loc.items():
                    if _REWRITTEN_VIEW.fullmatch(other) or _REWRITTEN_VIEW.fullmatch(n):
                        continue  # rw7 = b[i]; b[i] = f(rw7), for rw7 in b: rw7 *= ... (statements.py)
                    if other != n and isinstance(b, np.ndarray) and np.may_share_memory(a, b):
                        found.append(f"line {frame.f_lineno}: {n} is written while {other} "
                                     f"shares its memory")
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        L.f(*[copy_value(a) for a in args])
    except Exception:
        pass
    finally:
        sys.settrace(old)
    return found


def _container_loop_names(L):
    """(function, name) of the targets of loops over a container (`for k, v
    in p.items()`, `for v in t`, sorted(p), enumerate(...)): s2sad unrolls
    these loops, so the target may be a float in one round and an array in
    the next."""
    if not hasattr(L, "unrolled"):
        L.unrolled = set()
        path = next(iter(L.mutations))[0] if L.mutations else inspect.getsourcefile(L.f)
        with open(path) as fh:
            tree = ast.parse(fh.read())
        for fdef in tree.body:
            if not isinstance(fdef, ast.FunctionDef):
                continue
            for node in ast.walk(fdef):
                if not isinstance(node, ast.For):
                    continue
                it = node.iter
                while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) \
                        and it.func.id in ("enumerate", "sorted") and it.args:
                    it = it.args[0]
                over_container = (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute)
                                  and it.func.attr in ("items", "values", "keys")) or \
                    (isinstance(it, ast.Name) and it.id in CONTAINER_PARAMS)
                if over_container:
                    L.unrolled |= {(fdef.name, n.id) for n in ast.walk(node.target)
                                   if isinstance(n, ast.Name)}
    return L.unrolled
