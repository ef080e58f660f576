"""A Python list holding values that depend on a differentiated argument
is a stack (reverse_mode.py and user_stacks.py give it a stack of
adjoints): built by `s.append(v)`, read by `s.pop()` from its end,
`len(s)`, and, for a list of elements of one kind, `v = s[i]` at any int
index and `z = stack_list(s)` (np.stack of it: list_reads.py makes every
read of a list such a statement), whose adjoints the list of adjoints
holds element by element. Any other use (`s.extend`, `s.reverse()`,
`s.insert`, `s[i] = v`, a slice `s[a:b]`, `r = s`, `h(s)`, `s.pop(0)`)
would take a value's adjoint from the wrong place or lose it, so it is
refused with its line, never differentiated as if it were not there."""
import gast

from . import kinds as K
from ..errors import UnsupportedSyntaxError
from ..syntax import walk, walk_stmts


def refuse_stack_misuse(tree, varied, kinds, location):
    """Refuse any use of a list in `varied` (names of values that depend on
    a differentiated argument) other than a stack's."""
    stacks = {v for v in varied if getattr(kinds.get(v), "tag", None) == "list"}
    if not stacks:
        return
    for s in walk_stmts(tree.body):
        allowed = set()  # ids of the Name nodes used as a stack's
        if isinstance(s, gast.Expr) and _method_of(s.value, stacks, "append") \
                and len(s.value.args) == 1 and not s.value.keywords:
            allowed.add(id(s.value.func.value))
        elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id in stacks \
                and isinstance(s.value, gast.List):
            allowed.add(id(s.targets[0]))  # s = [] (or a literal)
        elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and read_of(s.value, stacks):
            # v = s[i], z = stack_list(s): read element by element
            lst = s.value.value if isinstance(s.value, gast.Subscript) else s.value.args[0]
            _refuse_mixed_elements(tree, lst.id, kinds, location, s)
            allowed.add(id(lst))
        for part in _own_parts(s):
            for n in walk(part):
                if _method_of(n, stacks, "pop") and not n.args and not n.keywords:
                    allowed.add(id(n.func.value))
                elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) \
                        and n.func.id == "len" and len(n.args) == 1:
                    allowed.add(id(n.args[0]))
        misused = [n for part in _own_parts(s) for n in walk(part)
                   if isinstance(n, gast.Name) and n.id in stacks and id(n) not in allowed]
        if misused:
            # (the list read, rather than a name bound to it: `a = np.array(out)`)
            n = next((m for m in misused if isinstance(m.ctx, gast.Load)), misused[0])
            raise UnsupportedSyntaxError(
                f"a list of values that need a gradient ('{n.id}') used other than as a stack",
                location, s, f"Use it as a stack only ({n.id}.append(v), {n.id}.pop(), "
                f"len({n.id})), or build an array (a list comprehension, or np.empty and "
                f"assignments)")


def read_of(value, stacks):
    """Whether `value` is `s[i]` (an int index, not a slice) or
    `stack_list(s)` of a list in `stacks`."""
    if isinstance(value, gast.Subscript):
        return isinstance(value.value, gast.Name) and value.value.id in stacks \
            and not isinstance(value.slice, (gast.Slice, gast.Tuple))
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
        and value.func.id == "stack_list" and len(value.args) == 1 and not value.keywords \
        and isinstance(value.args[0], gast.Name) and value.args[0].id in stacks


def _refuse_mixed_elements(tree, lst, kinds, location, read):
    """A list read by index holds elements of one kind (arrays of one ndim,
    or numbers), which its list of adjoints mirrors: refuse the append that
    gives it another (or one whose kind is not known)."""
    if kinds[lst].items[0].known:
        return
    appends = [(s, K.of_atom(s.value.args[0], kinds)) for s in walk_stmts(tree.body)
               if isinstance(s, gast.Expr) and _method_of(s.value, {lst}, "append")
               and len(s.value.args) == 1]
    known = [(s, kind) for s, kind in appends if kind.known]
    hint = (f"Keep the elements of {lst} of one kind (arrays of one ndim, or numbers: "
            f"np.atleast_1d(v), np.reshape), or keep a list per kind")
    for s, kind in known[1:]:
        if K.join(known[0][1], kind) == K.UNKNOWN:
            raise UnsupportedSyntaxError(
                f"an element of another kind ({kind}, after {known[0][1]}) appended to the "
                f"list '{lst}', which is read by index", location, s, hint)
    for s, kind in appends:
        if not kind.known:
            raise UnsupportedSyntaxError(
                f"an element whose kind s2sad cannot infer appended to the list '{lst}', "
                f"which is read by index", location, s, hint)
    raise UnsupportedSyntaxError(
        f"a read of the list '{lst}', whose elements s2sad cannot prove of one kind",
        location, read, f"Append to {lst} arrays of one ndim and dtype (or numbers) only, "
        f"computed in the function")


def _method_of(node, stacks, method):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == method and isinstance(node.func.value, gast.Name) \
        and node.func.value.id in stacks


def _own_parts(s):
    """What a statement evaluates itself (a compound one's header, not its blocks)."""
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.target, s.iter]
    return [s]
