"""`d = {}` followed, in the same block, by `d["y"] = ...` (or a nested
function's `d[k] = v`, inlined): the key is created with the dict, where
nothing can tell the difference, before anything reads a literal's keys:

    d = {}                    d = {"y": 0.0}
    d["y"] = x * 2     ->     d["y"] = x * 2

Done when each new key is assigned by a statement of that block before
which (and in whose value) nothing names the dict but at keys it has, and
the dict is otherwise used only at constant keys and as a helper's
argument. Anything else is left to dicts.py, which refuses a dict with a
new key."""
import gast

from .dict_keys import local_dict_keys, only_at_keys, used_at_keys
from ...syntax import const, own_blocks, parents_of, walk


def run(tree, ctx):
    """`d = {}` followed, in the same block, by `d["y"] = ...` (as a nested
    function's `d[k] = v`, inlined, writes it): the key is created with the
    dict, as for a helper adding it, when each new key is assigned by a
    statement of that block before which (and in whose value) nothing names
    the dict but at keys it has, and the dict is otherwise used only at
    constant keys and as a helper's argument. Anything else is left to
    dicts.py, which refuses a dict with a new key. (Run when the function is
    parsed, before anything reads a literal's keys: dict comprehensions,
    aux_output.py, added_keys.py.)"""
    parsed, readable = ctx.parsed, ctx.readable
    dicts = local_dict_keys(tree, parsed.resolve)
    if not dicts:
        return None
    parents = None
    for block in own_blocks(tree.body):
        for i, s in enumerate(block):
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], gast.Name) and s.targets[0].id in dicts
                    and isinstance(s.value, gast.Dict)):
                continue
            var, keys = s.targets[0].id, dicts[s.targets[0].id]
            added = []
            for n in walk(tree):
                if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) \
                        and isinstance(n.value, gast.Name) and n.value.id == var \
                        and isinstance(n.slice, gast.Constant) \
                        and isinstance(n.slice.value, str) \
                        and n.slice.value not in keys + added:
                    added.append(n.slice.value)
            if not added:
                continue
            parents = parents or parents_of(tree)
            if not used_at_keys(tree, var, parents, parsed, readable) \
                    or not _assigned_first(block[i + 1:], var, added, keys):
                continue
            for key in added:
                s.value.keys.append(const(key))
                s.value.values.append(const(0.0))
    return tree


def _assigned_first(stmts, var, added, keys):
    """Whether each key in `added` is assigned by one of `stmts` (`var[key] =
    ...`) before which, and in whose value, nothing names `var` but at the
    keys it has by then, and nothing returns."""
    pending, keys = list(added), list(keys)
    for s in stmts:
        target = s.targets[0] if isinstance(s, gast.Assign) and len(s.targets) == 1 else None
        written = target.slice.value if isinstance(target, gast.Subscript) \
            and isinstance(target.value, gast.Name) and target.value.id == var \
            and isinstance(target.slice, gast.Constant) else None
        reads = s.value if written is not None else s
        if not only_at_keys(reads, var, keys) or any(
                isinstance(n, gast.Return) for n in walk(s)):
            return False
        if written is not None and written not in keys:
            keys.append(written)
            if written in pending:
                pending.remove(written)
        if not pending:
            return True
    return False
