"""The form a def taking *args or **kwargs takes for the calls passing a
given number of extra arguments and given extra keywords: those values as
keyword-only parameters from which the tuple and dict are built (used for
nested defs, nested_varargs.py, and module-level helpers,
module_varargs.py)."""
import gast

from ...names import fresh_name
from ...errors import S2sadTypeError


def call_shape(d, c, location, refuse):
    """(number of extra positional arguments, sorted extra keywords) of a
    call `c` of the def `d`; `refuse(d, location, node, why, hint)` raises
    for a call with *xs or **d."""
    a = d.args
    positional = [p.id for p in list(getattr(a, "posonlyargs", None) or []) + list(a.args)]
    named = set(positional) | {p.id for p in a.kwonlyargs}
    if any(isinstance(x, gast.Starred) for x in c.args) or any(
            k.arg is None for k in c.keywords):
        refuse(d, location, c, "called with *xs or **d", "Pass each argument")
    extra = max(0, len(c.args) - len(positional))
    keys = tuple(k.arg for k in c.keywords if k.arg not in named)
    if extra and not a.vararg:
        raise S2sadTypeError(f"{location.describe(c)}: {d.name}() takes {len(positional)} "
                        f"positional arguments but {len(c.args)} were given")
    if keys and not a.kwarg:
        raise S2sadTypeError(f"{location.describe(c)}: {d.name}() got an unexpected keyword "
                        f"argument '{keys[0]}'")
    return extra, tuple(sorted(keys))



def rewrite_varargs(d, shape, calls, taken):
    """Rewrite, in place, the def `d` for calls of `shape` (call_shape):
    its *args and **kwargs become keyword-only parameters from which the
    tuple and dict are built; `calls` pass them by those names."""
    a = d.args
    positional = [p.id for p in list(getattr(a, "posonlyargs", None) or []) + list(a.args)]
    extra, keys = shape
    star = [fresh_name(f"{a.vararg.id}_{k}", taken) for k in range(extra)] if a.vararg else []
    double = {k: fresh_name(f"{a.kwarg.id}_{k}", taken) for k in keys} if a.kwarg else {}
    prologue = []
    if a.vararg:
        prologue.append(_assign(a.vararg.id, gast.Tuple(
            elts=[_name(n) for n in star], ctx=gast.Load()), d))
    if a.kwarg:
        prologue.append(_assign(a.kwarg.id, gast.Dict(
            keys=[gast.Constant(value=k, kind=None) for k in keys],
            values=[_name(double[k]) for k in keys]), d))
    new_params = star + [double[k] for k in keys]
    a.kwonlyargs = list(a.kwonlyargs) + [gast.Name(id=n, ctx=gast.Param(), annotation=None,
                                                   type_comment=None) for n in new_params]
    a.kw_defaults = list(a.kw_defaults) + [None] * len(new_params)
    a.vararg = a.kwarg = None
    d.body = [gast.copy_location(s, d.body[0]) for s in prologue] + d.body
    for c in calls:
        moved = [gast.keyword(arg=n, value=v) for n, v in zip(star, c.args[len(positional):])]
        c.args = c.args[:len(positional)]
        kept = []
        for k in c.keywords:
            if k.arg in double:
                moved.append(gast.keyword(arg=double[k.arg], value=k.value))
            else:
                kept.append(k)
        c.keywords = moved + kept


def _name(n, ctx=None):
    return gast.Name(id=n, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _assign(target, value, src):
    return gast.copy_location(gast.Assign(targets=[_name(target, gast.Store())], value=value,
                                          type_comment=None), src)
