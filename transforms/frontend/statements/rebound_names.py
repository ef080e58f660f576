"""A name bound again, in straight-line code, to a value of another kind
(a parameter made 2-d, a vector reshaped into a matrix):

    def f(x):                        def f(x):
        x = np.atleast_2d(x)   ->        x2 = np.atleast_2d(x)
        return g(x)                      return g(x2)

s2sad gives each variable one kind (numba too); a 1-d array joined with a
2-d one is a kind nobody knows, and then so is everything computed from
it (a helper called with it, the rules applied to it). Each binding after
the first gets a name of its own, read up to the next binding, so each
has its kind. Only names whose kind is unknown are renamed, only when
every binding is a plain `name = value` statement of the function's body
(none in a loop, a branch, an unpacking or a nested function): their
order is then the order they run in; and only when every binding then
has a kind s2sad knows (a name bound to functions keeps its name, which
the error about it quotes)."""
import gast

from ...analysis import kinds as K
from ...names import Namer
from ...syntax import clone, walk


def run(tree, ctx):
    """Rename, in place, the later bindings of the straight-line names of
    `tree` (normalised, with `ctx.kinds`) whose kind is unknown."""
    unknown = {v for v, k in ctx.kinds.items() if isinstance(v, str) and not k.known}
    if not unknown:
        return None
    params = {a.id for a in tree.args.args}
    top = {id(s.targets[0]) for s in tree.body if _binds_name(s)}
    elsewhere = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                 and not isinstance(n.ctx, gast.Load) and id(n) not in top
                 and not (n.id in params and isinstance(n.ctx, gast.Param))}
    for node in walk(tree):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            elsewhere.update(node.names)
        elif isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not tree:
            elsewhere.update(n.id for n in walk(node) if isinstance(n, gast.Name))
    counts = {}
    for s in tree.body:
        if _binds_name(s):
            counts[s.targets[0].id] = counts.get(s.targets[0].id, 0) + 1
    names = [v for v in sorted(unknown) if v not in elsewhere
             and counts.get(v, 0) + (v in params) >= 2]
    names = [v for v in names if _kinds_known_once_renamed(tree, v, ctx)]
    for v in names:
        _rename_later_bindings(tree.body, v, v in params, ctx.namer)
    return tree if names else None


def _kinds_known_once_renamed(tree, v, ctx):
    trial = clone(tree)
    made = _rename_later_bindings(trial.body, v, v in {a.id for a in tree.args.args},
                                  Namer(ctx.namer.taken))  # (names the trial only)
    kinds = K.KindInference(ctx.call_kind, ctx.namespace).run(trial, ctx.arg_kinds)
    return all(kinds.get(n, K.UNKNOWN).known for n in [v] + made)


def _binds_name(s):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name)


def _rename_later_bindings(body, v, is_param, namer):
    """The names given to the bindings of `v` after its first."""
    current, seen, made = v, is_param, []
    for s in body:
        for n in walk(s):
            if isinstance(n, gast.Name) and n.id == v and isinstance(n.ctx, gast.Load):
                n.id = current  # (the value of a binding reads the one before it)
        if _binds_name(s) and s.targets[0].id == v:
            if seen:
                current = namer.fresh(v)
                s.targets[0].id = current
                made.append(current)
            seen = True
    return made
