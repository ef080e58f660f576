"""`a = b = value` is `a = value; b = a`, Python's order (the value once,
then the targets from left to right, all bound to the same object); a first
target that is not a name (`x[0] = y = v`) takes the value from a temporary:
`t = v; x[0] = t; y = t`."""
import gast

from ...names import fresh_name
from ...syntax import name, walk


def run(tree, ctx):
    """Rewrite `tree`'s chained assignments in place."""
    taken = None
    changed = False
    for node in walk(tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list) or not any(
                    isinstance(s, gast.Assign) and len(s.targets) > 1 for s in stmts):
                continue
            out = []
            changed = True
            for s in stmts:
                if not (isinstance(s, gast.Assign) and len(s.targets) > 1):
                    out.append(s)
                    continue
                first = s.targets[0]
                if isinstance(first, gast.Name):
                    source_name, targets = first.id, s.targets[1:]
                    out.append(gast.copy_location(
                        gast.Assign(targets=[first], value=s.value, type_comment=None), s))
                else:
                    if taken is None:
                        taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
                    source_name, targets = fresh_name("chained", taken), s.targets
                    out.append(gast.copy_location(gast.Assign(
                        targets=[name(source_name, gast.Store())], value=s.value,
                        type_comment=None), s))
                out += [gast.copy_location(gast.Assign(targets=[t], value=name(source_name),
                                                       type_comment=None), s) for t in targets]
            setattr(node, field, out)
    return tree if changed else None
