"""The bytes a derivative's forward loops really record, next to the default
budget's estimate of them (its check_memory lines).

For each top-level loop with a check line, two copies of the generated
derivative are compiled with numba: one stopping right before the loop
(returning the check line's estimate instead of checking it) and one
stopping right after it. numba allocates through CPython's allocator, so
tracemalloc sees its arrays and lists (benchmarks/_memory.py calibrates
this); the measured tape is the peak traced memory of the second call minus
that of the first: what the loop allocated and still held when it ended."""
import ast
import inspect
import itertools
import linecache
import re
import tracemalloc

import numpy as np

import s2sad
from s2sad import backend
from s2sad.transforms.analysis import kinds as K

_COUNT = itertools.count()
_TAPE = re.compile(r"_(tape|stack)\d*$")


def _peak(fn, args):
    fn(*args)  # (compiles)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        c0, _ = tracemalloc.get_traced_memory()
        out = fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak - c0


def _is_check(s):
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
        and isinstance(s.value.func, ast.Name) and s.value.func.id == "check_memory"


def measure(fn, args, wrt=0, mode="grad"):
    """[(loop line, estimated bytes, measured bytes)] of `fn`'s derivative
    (grad, or vjp: the seed is the last of `args`) under the default budget."""
    deriv = (s2sad.grad if mode == "grad" else s2sad.vjp)(fn, wrt=wrt, jit=True)
    values = list(args[:-1] if mode == "vjp" else args)
    kinds = tuple(K.of_value(v) for v in values)
    gen = deriv._generate(kinds)
    module = ast.parse(gen.source)
    fdef = next(f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == gen.entry)
    body = fdef.body
    out = []
    for k, s in enumerate(body):
        if not _is_check(s):
            continue
        line = s.value.args[2].value
        loop = _loop_of(fn, line, body, k)
        estimate = ast.Assign(targets=[ast.Name(id="tape_estimate", ctx=ast.Store())],
                              value=s.value.args[0])
        before = [b for b in body[:k] if not _is_check(b)]
        between = [b for b in body[k + 1:loop] if not _is_check(b)]
        # the first copy runs what comes before the loop but the allocations
        # of the loop's tapes (names ending in _tape or _stack)
        tapes = {n.id for n in ast.walk(body[loop]) if isinstance(n, ast.Name)
                 and _TAPE.search(n.id)}
        untaped = before + [b for b in between if not set(_bound([b])) & tapes]
        # (an empty list appended to only in the loop has no type without it)
        untaped = [b for b in untaped if not (isinstance(b, ast.Assign) and isinstance(
            b.value, ast.List) and not b.value.elts)]
        # both return what they bind, or numba drops the allocations nothing
        # reads (the tapes, as nothing reads them back)
        kept = [ast.Name(id=v, ctx=ast.Load()) for v in _bound(untaped)]
        stops = (untaped + [estimate, _return(ast.Name(id="tape_estimate", ctx=ast.Load()),
                                              kept)],
                 before + between + [body[loop], _return(ast.Constant(value=0), [
                     ast.Name(id=v, ctx=ast.Load()) for v in _bound(before + between)])])
        peaks = []
        for stop in stops:
            fdef.body = stop
            source = ast.unparse(ast.fix_missing_locations(module))
            name = f"s2sad_tape_probe_{next(_COUNT)}"
            compiled = backend.CompiledModule(name, source, gen.functions, gen.namespace,
                                              False, gen.checks_own_indices)
            peaks.append(_peak(getattr(compiled.jitted(in_memory=True), gen.entry), args))
        fdef.body = body
        out.append((line, int(peaks[0][0][0]), peaks[1][1] - peaks[0][1]))
    return out


def _loop_of(fn, line, body, k):
    """The position in `body` of the forward loop of `fn`'s line `line`: the
    first loop after position `k` with the line's header."""
    text = linecache.getline(inspect.getsourcefile(fn), line).strip()
    header = ast.parse(text + " pass").body[0]
    loops = [j for j in range(k + 1, len(body)) if isinstance(body[j], ast.For)]
    return next(j for j in loops if ast.unparse(body[j].target) == ast.unparse(header.target)
                and ast.unparse(body[j].iter) == ast.unparse(header.iter))


def _bound(stmts):
    out = []
    for s in stmts:
        if isinstance(s, ast.Assign):
            for t in s.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and n.id not in out:
                        out.append(n.id)
    return out


def _return(first, kept):
    return ast.Return(value=ast.Tuple(elts=[first] + kept, ctx=ast.Load()))


def seeded(fn, *args):
    """`args` and a seed of ones shaped like fn's output (for a vjp)."""
    return args + (np.ones_like(np.asarray(fn(*args), dtype=float)),)
