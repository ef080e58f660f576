"""An attribute of the function itself used as a variable (a counter kept on
the function object, as ADBench's GMM does) is a local variable of the
call, which its nested functions change as `nonlocal`:

    def constructL(d, icf):                def constructL(d, icf):
        constructL.Lparamidx = d               constructL_Lparamidx = d
        def make_L_col(i):          ->         def make_L_col(i):
            ...icf[constructL.Lparamidx]...        nonlocal constructL_Lparamidx
            constructL.Lparamidx += n              ...icf[constructL_Lparamidx]...
            ...                                    constructL_Lparamidx += n

Within a call this is what Python runs: the function sets the attribute
before anything reads it, so every read sees a value of this call. (What
the attribute holds after the call, which only code outside the function
could read, is not written back: the derivative keeps no state between
calls.)

Rewritten only when the first top-level statement that names the attribute
assigns it without reading it, and the function's own name is not bound in
it; a read before that assignment would see an earlier call's value, and is
refused with its line."""
import gast

from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import walk


def run(tree, ctx):
    if ctx.namespace.get(tree.name) is not ctx.fn:
        return None
    uses = [n for n in walk(tree) if isinstance(n, gast.Attribute)
            and isinstance(n.value, gast.Name) and n.value.id == tree.name]
    if not uses:
        return None
    if any(isinstance(n, gast.Name) and n.id == tree.name and not isinstance(n.ctx, gast.Load)
           for n in walk(tree)):
        return None  # the name is a local: not the function
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    names = {}
    for attr in sorted({n.attr for n in uses}):
        _check_set_first(tree, attr, ctx.location)
        names[attr] = fresh_name(f"{tree.name}_{attr}", taken)
    for parent in walk(tree):
        for field, value in gast.iter_fields(parent):
            items = value if isinstance(value, list) else [value]
            for k, child in enumerate(items):
                if isinstance(child, gast.Attribute) and isinstance(child.value, gast.Name) \
                        and child.value.id == tree.name and child.attr in names:
                    new = gast.copy_location(gast.Name(id=names[child.attr], ctx=child.ctx,
                                                       annotation=None, type_comment=None),
                                             child)
                    if isinstance(value, list):
                        value[k] = new
                    else:
                        setattr(parent, field, new)
    for d in walk(tree):
        if isinstance(d, gast.FunctionDef) and d is not tree:
            changed = sorted({n.id for n in walk(d) if isinstance(n, gast.Name)
                              and isinstance(n.ctx, gast.Store) and n.id in names.values()})
            if changed:
                d.body.insert(0, gast.copy_location(gast.Nonlocal(names=changed), d.body[0]))
    return tree


def _check_set_first(tree, attr, location):
    """The first top-level statement naming `tree.name`.`attr` assigns it
    without reading it."""
    def names_it(node):
        return any(isinstance(n, gast.Attribute) and n.attr == attr
                   and isinstance(n.value, gast.Name) and n.value.id == tree.name
                   for n in walk(node))
    for s in tree.body:
        if not names_it(s):
            continue
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Attribute) and names_it(s.targets[0]) \
                and not names_it(s.value):
            return
        raise UnsupportedSyntaxError(
            f"the attribute {tree.name}.{attr} of the function read before the function "
            f"assigns it (its value would be an earlier call's)", location, s,
            f"Assign {tree.name}.{attr} = ... first, at the top level of the function, or "
            f"use a local variable")
