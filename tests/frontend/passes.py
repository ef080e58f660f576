"""Run one front-end pass alone, on the tree the passes before it give it
(transforms/frontend/pipeline.py's lists), and show the source before and
after it:

    before, after = lowered(chained_assignments, f)
    assert after == source('''
        def f(x):
            a = x * 2.0
            b = a
            return a + b''')

A pass of SPECIALISE (or HELPER_COPY, `copy=True`) runs for the kinds of
the example arguments given; `facts` set the context's (has_aux=True,
structures=..., loops="marked", ...)."""
import textwrap

import numpy as np

from s2sad.generate import new_program
from s2sad.transforms.analysis import kinds as K
from s2sad.transforms.emit.unparse import stmt_source
from s2sad.transforms.frontend import pipeline
from s2sad.transforms.frontend.context import Context
from s2sad.transforms.frontend.read import read


def source(text):
    """`text` dedented, without its first and last blank lines."""
    return textwrap.dedent(text).strip("\n")


def program(fn=None, has_aux=False, structures=None):
    """A Program configured as s2sad/generate.py configures one."""
    p = new_program()
    p.flat_arguments = {fn: structures} if structures else {}
    if has_aux:
        p.aux_functions.add(fn)
    return p


def _path(entries, target):
    """The entries to run before `target` (a pass's run): the entries before
    it, a group before it whole, and the entries before it in its group."""
    for k, e in enumerate(entries):
        if isinstance(e, pipeline.Group):
            inner = _path(e.passes, target)
            if inner is not None:
                return entries[:k], inner
        elif e.run is target:
            return entries[:k], None
    return None


def _run_until(entries, target, ctx):
    before, inner = _path(entries, target)
    pipeline.run(before, ctx)
    if inner is not None:
        _run_until(_group_of(entries, target).passes, target, ctx)


def _group_of(entries, target):
    for e in entries:
        if isinstance(e, pipeline.Group) and _path(e.passes, target) is not None:
            return e
    return None


def lowered(pass_, fn, *args, copy=False, **facts):
    """(source of `fn`'s tree as `pass_` gets it, source after `pass_`)."""
    target = pass_.run if hasattr(pass_, "run") else pass_
    if _path(pipeline.READ, target) is not None and not copy:
        found = read.parsed(read.source_of(fn))
        parsed = read.ParsedFunction(found.fn, found.tree, found.location, found.namespace,
                                     found.source)
        ctx = Context(parsed, pipeline.parse, **facts)
        _run_until(pipeline.READ, target, ctx)
    else:
        entries = pipeline.HELPER_COPY if copy else pipeline.SPECIALISE
        assert _path(entries, target) is not None, f"{target} is in no list"
        p = program(fn, facts.get("has_aux", False), facts.get("structures"))
        # (as s2sad.api gives them: a list or tuple of numbers is an array
        # that remembers it was one)
        kinds = [K.sequence_of(K.of_value(np.asarray(a) if isinstance(a, (list, tuple)) else a),
                               type(a).__name__ if isinstance(a, (list, tuple)) else None)
                 for a in args]
        if copy:
            ctx = Context(pipeline.parse(fn), pipeline.parse, p, helper_copy=True, **facts)
        else:
            ctx = Context(pipeline.parse(fn), pipeline.parse, p, arg_kinds=kinds,
                          reserved=p.module_names, **facts)
        _run_until(entries, target, ctx)
    before = stmt_source(ctx.tree)
    tree = target(ctx.tree, ctx)
    if tree is not None:
        ctx.tree = tree
    return before, stmt_source(ctx.tree)


def arrays(*shapes, seed=0):
    """Random float arrays of these shapes (a shape of () gives a float)."""
    rng = np.random.default_rng(seed)
    return [float(rng.normal()) if shape == () else rng.normal(size=shape) for shape in shapes]
