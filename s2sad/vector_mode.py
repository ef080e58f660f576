"""Many jvps or vjps of one derivative in one call into compiled code.

A Jacobian, a Hessian or a compressed sparse Jacobian needs the same
derivative at the same point along many seeds (tangents or cotangents).
Instead of one Python-level call per seed, a batch driver is generated
(a gast tree): it loops over the seeds, calls the generated jvp or vjp
with each, and writes the part of the result asked for into a
preallocated output block, so the whole batch is one call. Where the
derivative runs compiled, the driver is compiled with numba in a module of
its own that calls the derivative's numba dispatcher; where it runs as
Python, the driver is added to the derivative's module and runs as Python.

This is a batch of calls, not a Tapenade-style vector mode: the primal
part of the derivative is computed again for every seed."""
import ast
import threading

import gast
import numpy as np

from . import backend, cache, guards
from .checkpointing import MemoryBudgetExceeded
from .transforms import syntax as S
from .transforms.ast_convert import to_ast

# Called as hook(derivative, seeds) before a batch of `seeds` passes of
# `derivative` runs (tests count passes).
BATCH_HOOKS = []

_drivers = {}  # (module name, function, shape of the call) -> backend.Entry
_lock = threading.Lock()


def batch(derivative, values, seeds, picks, outs, ordinary):
    """For each k, the derivative (a jvp or vjp) at `values` along seed k,
    the part of its result at the index path `picks[j]` of the generated
    function's (value, derivative) pair written into `outs[j][k]` (e.g.
    (1,) the jvp, (1, 0) its first element). `seeds` is a list of arrays
    whose first axis runs over the seeds: one array gives the seed
    `seeds[0][k]`, several the tuple of their k-th elements (the seed of
    a tuple output). Fills `outs`; returns the value part of the last
    pass's result (None when not known: an ordinary vjp returns none).

    `ordinary(seed)` is the same as one ordinary call, returning (value,
    derivative): what runs instead of the driver for what the driver does
    not take (container or sequence arguments, keyword-only parameters,
    has_aux, code holding Python objects, a call stopped by the memory
    budget), and once before the first batch of a specialisation (it
    checks the arguments, runs the self-checks and compiles the code)."""
    count = seeds[0].shape[0]
    for hook in list(BATCH_HOOKS):
        hook(derivative, count)
    if count == 0:
        return None
    entry = _prepared(derivative, values, seeds, picks, outs, ordinary) \
        if plain(values) else None
    if entry is not None and all(out.flags.c_contiguous for out in outs):
        scalars = tuple(out.ndim == 1 for out in outs)  # one number per seed
        blocks = [out if scalar else out.reshape(count, -1)  # (views: c-contiguous)
                  for out, scalar in zip(outs, scalars)]
        driver = _driver(entry, values, len(seeds), picks, scalars)
        try:
            return driver(*values, *seeds, *blocks)
        except MemoryBudgetExceeded:
            pass  # (raised before a tape was recorded: the ordinary calls switch variants)
    for k in range(count):  # one call per seed
        result = ordinary(_seed(seeds, k))
        _store(result, picks, outs, k)
    return result[0]


def plain(values):
    """Whether the driver takes these arguments as they are: numbers and
    arrays."""
    return all(isinstance(v, (np.ndarray, float, int, bool, np.number)) for v in values)


def _seed(seeds, k):
    return seeds[0][k] if len(seeds) == 1 else tuple(s[k] for s in seeds)


def _store(result, picks, outs, k):
    """Write the parts `picks` of one (value, derivative) into row k of `outs`."""
    for pick, out in zip(picks, outs):
        part = result
        for i in pick:
            part = part[i]
        out[k] = part


def _prepared(derivative, values, seeds, picks, outs, ordinary):
    """The derivative's compiled entry for these arguments, after its first
    ordinary call; None when the driver cannot call it."""
    if derivative.has_aux or derivative.mode not in ("jvp", "vjp") or not derivative.single \
            or derivative._positional != len(values):
        return None
    entry = derivative.specialisation_for(values)
    if getattr(entry, "objects", None) is not None:
        return None
    if not getattr(entry, "batch_ready", False):
        _store(ordinary(_seed(seeds, 0)), picks, outs, 0)
        entry = derivative.specialisation_for(values)  # (a budget switch makes another)
        entry.batch_ready = True
    written = getattr(entry.generated, "written_arguments", ())
    guards.check_written_aliases(derivative._where, derivative._names, values, written)
    return entry


def _driver(entry, values, n_seeds, picks, scalars):
    """The batch driver of `entry` (backend.Entry) for these arguments,
    built once per shape: compiled where the derivative ran compiled (and,
    with jit="auto", the arguments are not big: numpy runs those)."""
    compiled = hasattr(entry._call, "py_func") and not (
        entry.jit == "auto" and _elements(values) >= backend.AUTO_NUMPY_FROM)
    key = (entry.module.name, entry.fname, len(values), n_seeds, tuple(picks), scalars,
           compiled, id(entry._call) if compiled else None)
    with _lock:
        found = _drivers.get(key)
        if found is None:
            found = _drivers[key] = _build(entry, len(values), n_seeds, picks, scalars, compiled)
        return found


def _build(entry, n_values, n_seeds, picks, scalars, compiled):
    """Compiled: a module of the driver alone, calling the derivative's own
    numba dispatcher (nothing of the derivative compiles again). Else the
    derivative's module with the driver added, run as Python."""
    module, gen = entry.module, entry.generated
    taken = set(vars(module.python)) | set(module.functions)  # (the module's every name)
    fname = _fresh("batch_" + entry.fname, taken)
    tree = _driver_tree(fname, entry.fname, n_values, n_seeds, picks, scalars, taken)
    text = ast.unparse(ast.fix_missing_locations(to_ast(gast.Module(body=[tree],
                                                                    type_ignores=[]))))
    if compiled:
        source = f'"""Batch driver of {entry.fname} ({module.name})."""\n\n\n' + text + "\n"
        name = "s2sad_" + cache.module_key(source, module.name + ";" + gen.key_extra)
        batch_module = backend.CompiledModule.get(name, source, [fname],
                                                  {entry.fname: entry._call})
        return backend.Entry(batch_module, fname, True, entry.label, entry.hint)
    source = module.source.rstrip("\n") + "\n\n\n" + text + "\n"
    functions = list(module.functions) + [fname]
    name = "s2sad_" + cache.module_key(source, gen.key_extra + ";python")
    batch_module = backend.CompiledModule(name, source, functions, module.namespace,
                                          module.boundscheck, module.checks_own_indices)
    return backend.Entry(batch_module, fname, False, entry.label, entry.hint)


def _elements(values):
    """The number of elements in the array arguments together (as
    backend.Entry counts them for jit="auto")."""
    return sum(v.size for v in values if isinstance(v, np.ndarray))


def _fresh(base, taken):
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def _driver_tree(fname, callee, n_values, n_seeds, picks, scalars, taken):
    """def fname(v0.., s0.., o0..):
           result = callee(v0.., s0[0] or (s0[0], s1[0], ..))
           <copy result[pick_j...] into row 0 of o_j>
           for k in range(1, s0.shape[0]):
               result = callee(v0.., s0[k] or (s0[k], s1[k], ..))
               <copy result[pick_j...] into row k of o_j>
           return result[0]
    (the first pass outside the loop: `result` is bound at the return).
    A block of one number per seed (`scalars[j]`) is written as `o_j[k] =
    part`; the others are (seeds, size) and a part is copied element by
    element (numba's array assignment compiles its broadcasting, seconds)."""
    values = [_fresh(f"value{i}", taken) for i in range(n_values)]
    seeds = [_fresh(f"seeds{i}", taken) for i in range(n_seeds)]
    outs = [_fresh(f"out{i}", taken) for i in range(len(picks))]
    k, result = _fresh("k", taken), _fresh("result", taken)
    row, i, v = _fresh("row", taken), _fresh("i", taken), _fresh("v", taken)

    def one_pass(index):
        given = [S.subscript(s, index()) for s in seeds]
        seed = given[0] if n_seeds == 1 else gast.Tuple(elts=given, ctx=gast.Load())
        body = [S.assign(result, S.call(S.name(callee), *[S.name(v) for v in values], seed))]
        for out, pick, scalar in zip(outs, picks, scalars):
            part = S.name(result)
            for p in pick:
                part = S.subscript(part, S.const(p))
            if scalar:
                body.append(S.assign(S.subscript(out, index(), gast.Store()), part))
            else:
                body += _copy(part, S.subscript(out, index()), row, i, v)
        return body

    count = S.subscript(S.attr(S.name(seeds[0]), "shape"), S.const(0))
    loop = gast.For(target=S.store(k), iter=S.call(S.name("range"), S.const(1), count),
                    body=one_pass(lambda: S.name(k)), orelse=[], type_comment=None)
    params = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
              for n in values + seeds + outs]
    args = gast.arguments(args=params, posonlyargs=[], vararg=None, kwonlyargs=[],
                          kw_defaults=[], kwarg=None, defaults=[])
    body = one_pass(lambda: S.const(0)) + [
        loop, gast.Return(value=S.subscript(S.name(result), S.const(0)))]
    return gast.FunctionDef(name=fname, args=args, body=body, decorator_list=[], returns=None,
                            type_comment=None, type_params=[])


def _copy(part, target, row, i, v):
    """row = target; i = 0
       for v in part.flat: row[i] = v; i += 1
       if i != row.shape[0]: raise ValueError(...)"""
    size = S.subscript(S.attr(S.name(row), "shape"), S.const(0))
    loop = gast.For(target=S.store(v), iter=S.attr(part, "flat"), orelse=[], type_comment=None,
                    body=[S.assign(S.subscript(row, S.name(i), gast.Store()), S.name(v)),
                          gast.AugAssign(target=S.store(i), op=gast.Add(), value=S.const(1))])
    wrong = gast.Compare(left=S.name(i), ops=[gast.NotEq()], comparators=[size])
    message = "a pass of the batch gave a result of another size than its block"
    check = gast.If(test=wrong, orelse=[], body=[gast.Raise(
        exc=S.call(S.name("ValueError"), S.const(message)), cause=None)])
    return [S.assign(row, target), S.assign(i, S.const(0)), loop, check]
