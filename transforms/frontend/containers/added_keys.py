"""A helper adding a key to a local dict its caller gives it (or the function
itself assigning a new key: assigned_keys.py):

    d = {}                         d = {"y": 0.0}
    fill(d, x)             ->      fill(d, x)          (fill: d["y"] = x * 2)
    s = np.sum(d["y"])             s = np.sum(d["y"])

dicts.py makes a local dict's keys variables where the dict is created, so
the key is created there, holding a placeholder the helper replaces before
anything can read it. Done only when nothing could tell the difference: the
call is a statement of its own, the first after the dict's creation (in the
same block) that names the dict; the caller uses the dict only at constant
keys and as a helper's argument (no len, `in`, loop over it or method,
which see its keys); and the helper writes the new key in a statement of its
own body (not in a branch or loop) before which nothing names the dict but
its other keys, and nothing returns. Anything else is refused at the call,
naming the helper's line (a read of the key before it is written would be a
KeyError in Python, not the placeholder)."""
import gast

from .dict_keys import local_dict_keys, only_at_keys, used_at_keys
from ..effects.helper_effects import resolves, written_positions
from ...errors import UnsupportedSyntaxError
from ...syntax import const, names_loaded, names_stored, own_blocks, parents_of, walk


def run(tree, ctx):
    """Add to the caller's dict literals the keys helpers add (see above),
    or refuse."""
    parsed, readable, parse = ctx.parsed, ctx.readable, ctx.parse
    dicts, parents = None, None
    for call in [n for n in walk(tree) if isinstance(n, gast.Call)]:
        if not resolves(parsed, call.func):
            continue
        fn = readable(parsed.resolve(call.func))
        if fn is None:
            continue
        for pos in written_positions(fn, readable, parse)[0]:
            arg = call.args[pos] if pos < len(call.args) else None
            if not isinstance(arg, gast.Name):
                continue
            if dicts is None:
                dicts, parents = local_dict_keys(tree, parsed.resolve), parents_of(tree)
            if arg.id not in dicts:
                continue
            keys = dicts[arg.id]
            added = [(k, line) for k, line in _keys_written(fn, pos, parse) if k not in keys]
            if not added:
                continue
            literal = _creation_followed_by(tree, arg.id, call)
            safe = literal is not None and used_at_keys(tree, arg.id, parents, parsed, readable) \
                and _written_first(fn, pos, [k for k, _ in added], keys, parse)
            if not safe:
                key, line = added[0]
                raise UnsupportedSyntaxError(
                    f"a call of {fn.__name__} adding the key {key!r} "
                    f"({fn.__code__.co_filename}:{line}) to the dict '{arg.id}', which "
                    f"has no such key here, where s2sad cannot show the key is written before "
                    f"anything reads it", parsed.location, call,
                    f"s2sad makes a local dict's keys variables where the dict is "
                    f"created: create the key there ({arg.id} = {{{key!r}: 0.0}}; "
                    f"{fn.__name__} replaces the value), or have {fn.__name__} return "
                    f"the value")
            for key, _ in added:
                if key not in keys:
                    literal.keys.append(const(key))
                    literal.values.append(const(0.0))
                    keys.append(key)
    return tree


def _keys_written(fn, pos, parse):
    """(constant key, line in its file) of each `p[key] = ...` writing into
    `fn`'s parameter at `pos`, in the order written."""
    tree, location, param = _helper(fn, pos, parse)
    if tree is None:
        return []
    found = []
    for node in walk(tree):
        for t in node.targets if isinstance(node, gast.Assign) else []:
            for sub in walk(t):
                if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store) \
                        and isinstance(sub.value, gast.Name) and sub.value.id == param \
                        and isinstance(sub.slice, gast.Constant) \
                        and sub.slice.value not in [k for k, _ in found]:
                    found.append((sub.slice.value, location.line_of(node)))
    return found


def _helper(fn, pos, parse):
    try:
        parsed = parse(fn, read_only=True)
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return None, None, None
    params = [a.id for a in parsed.tree.args.args]
    if pos >= len(params):
        return None, None, None
    return parsed.tree, parsed.location, params[pos]


def _creation_followed_by(tree, var, call):
    """The dict literal `var` is bound to, when the statement `call` (a call
    of its own) is the first after that binding, in the same block, to name
    `var`; else None."""
    for block in own_blocks(tree.body):
        for i, s in enumerate(block):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) and s.targets[0].id == var:
                if not isinstance(s.value, gast.Dict):
                    return None  # (dict(a=...): left to the refusal)
                later = next((t for t in block[i + 1:]
                              if var in names_loaded(t) or var in names_stored(t)), None)
                if isinstance(later, gast.Expr) and later.value is call:
                    return s.value
                return None
    return None


def _written_first(fn, pos, added, keys, parse):
    """Whether the helper writes each key in `added` in a statement of its
    own body before which (and in whose value) nothing names its parameter
    but at the dict's existing `keys`, and nothing returns."""
    tree, _, param = _helper(fn, pos, parse)
    if tree is None:
        return False
    pending = list(added)
    for s in tree.body:
        target = s.targets[0] if isinstance(s, gast.Assign) and len(s.targets) == 1 else None
        written = target.slice.value if isinstance(target, gast.Subscript) \
            and isinstance(target.value, gast.Name) and target.value.id == param \
            and isinstance(target.slice, gast.Constant) else None
        reads = s.value if written is not None else s
        if not only_at_keys(reads, param, keys) or any(
                isinstance(n, gast.Return) for n in walk(s)):
            return False
        if written in pending:
            pending.remove(written)
            keys = keys + [written]  # (read after it is written: it exists)
        if not pending:
            return True
    return False


