"""A Python list holding values that depend on a differentiated argument
is a stack (reverse_mode.py and user_stacks.py give it a stack of
adjoints): built by `s.append(v)`, read by `s.pop()` from its end and
`len(s)`, and nothing else. Any other use (`s.extend`, `s.reverse()`,
`s.insert`, `s[i] = v`, `s[i]`, `r = s`, `h(s)`, `s.pop(0)`) would take
a value's adjoint from the wrong place or lose it, so it is refused with
its line, never differentiated as if it were not there."""
import gast

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
