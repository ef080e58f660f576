"""Python objects in compiled code: a random generator, a scipy object.

numba's compiled code holds numbers and arrays, not Python objects, so a
derivative compiled with numba holds an object as a number, its handle:
`keep(obj)` puts it in a table and gives its handle, `held(h)` gives the
object back (and an object itself unchanged, as plain Python passes it).
The statements that use an object run in numba's object mode
(`with numba.objmode(...)`, transforms/emit/objmode.py), which calls these.

The handles a call makes live until the call returns: s2sad runs each
derivative inside `object_scope()`, which gives the object arguments their
handles (for compiled code) and drops every handle made in the call. (An
exported derivative called without it keeps its objects in the table: call
it inside `object_scope()` too.)"""
import itertools
import threading

import numpy as np

__all__ = ["keep", "held", "object_scope"]

_TABLE = {}
_NEXT = itertools.count(1)
_LOCAL = threading.local()


def keep(obj):
    """The handle of `obj`, held until the call making it returns."""
    handle = next(_NEXT)
    _TABLE[handle] = obj
    made = getattr(_LOCAL, "made", None)
    if made is not None:
        made.append(handle)
    return handle


def held(handle):
    """The object of a handle (an object itself: unchanged)."""
    if isinstance(handle, (int, np.integer)) and not isinstance(handle, bool):
        return _TABLE[int(handle)]
    return handle


class object_scope:
    """`with object_scope(args, objects) as args:` runs a call whose handles
    are dropped when it returns; `args` with the positions `objects` given
    handles (the arguments for compiled code)."""

    def __init__(self, args=(), objects=()):
        self.args, self.objects = tuple(args), objects

    def __enter__(self):
        self.outer = getattr(_LOCAL, "made", None)
        _LOCAL.made = self.made = []
        return tuple(keep(a) if k in self.objects else a for k, a in enumerate(self.args))

    def __exit__(self, *exc):
        _LOCAL.made = self.outer
        for handle in self.made:
            _TABLE.pop(handle, None)
        return False
