"""The run-time helpers generated derivative code calls, by topic; generated
code imports them all from here (`from s2sad.runtime import unbroadcast`).

Every module of this package needs numpy and numba only (scipy for the
scipy ones), so an exported derivative copies in the helpers it calls
(s2sad/export_runtime.py reads these modules statement by statement).
Each helper is plain numpy (jit=False, NUMBA_DISABLE_JIT=1) with a numba
overload or a `register_jitable` where numba lacks the form.

    base             broadcasting undone, reductions undone, the cotangents of
                     indexing, reshaping, concatenating, stacking and `@`
    reductions       np.sum / mean / max / ... over axes, np.linalg.norm over
                     an axis, np.prod's gradients
    shapes           the gradients of numpy's shape, stacking and sorting
                     functions; np.array of parts, np.atleast_*d
    arrays           np.array of parts and np.atleast_*d of numbers (numba lacks them)
    axes             x.astype, np.squeeze / diff / repeat / roll / sort along
                     an axis, np.pad
    contractions     np.einsum, tensordot, inner, kron, gradient
    einsums          numba implementations of np.einsum and its cotangents
    stacks           N-d products (np.matmul, np.inner, np.dot), np.cross along
                     axes, slogdet, cholesky and eigh of stacks
    stack_overloads  numba implementations of numpy's stacked linear algebra
    linalg           scipy.linalg, np.linalg.cholesky(upper=...)
    spectral         np.linalg's eigh, svd and pinv
    special          scipy.special (loaded at the first use of one of its names)
    values           zeros and ones like a value, digamma, x.item(), a ** b
    writes           assignments through an index array naming a position twice
    objects          Python objects (a random generator) held by compiled code
    lists            a list of arrays grown and read by index: np.stack of it,
                     its adjoint's zeros and rows
and s2sad.checkpointing's helpers (binomial checkpointing of loops)."""
import ast as _ast
import os as _os

from . import arrays, axes, base, contractions, einsums, linalg, lists, objects, reductions, shapes, \
    spectral, stack_overloads, stacks, values, writes
from .. import checkpointing
from .base import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .shapes import *  # noqa: F401,F403
from .arrays import *  # noqa: F401,F403
from ..checkpointing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .spectral import *  # noqa: F401,F403
from .axes import *  # noqa: F401,F403
from .values import *  # noqa: F401,F403
from .contractions import *  # noqa: F401,F403
from .einsums import *  # noqa: F401,F403  (numba's np.einsum and its cotangents)
from .writes import *  # noqa: F401,F403
from .lists import *  # noqa: F401,F403
from .stacks import *  # noqa: F401,F403
from .stack_overloads import *  # noqa: F401,F403
from .objects import *  # noqa: F401,F403

_MODULES = (base, reductions, shapes, arrays, checkpointing, linalg, spectral, axes, values,
            contractions, writes, lists, stacks, stack_overloads, objects)


def _names_of(module):
    """The `__all__` of one of these modules, read from its source without
    importing it (its list literal alone: parsing the module took 3 ms)."""
    with open(_os.path.join(_os.path.dirname(__file__), module + ".py"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("[", text.index("\n__all__ = "))
    return _ast.literal_eval(text[start:text.index("]", start) + 1])


# Modules re-exported at the first use of one of their names: scipy.special's
# helpers (importing scipy.special costs about a tenth of a second, which a
# program that never calls it should not wait for). s2sad/export_runtime.py
# reads them as it reads the star imports above.
LATE_MODULES = {"special": _names_of("special")}
_LATE_NAMES = {name: module for module, names in LATE_MODULES.items() for name in names}

__all__ = [name for module in _MODULES for name in module.__all__] + list(_LATE_NAMES)


def __getattr__(name):
    if name in _LATE_NAMES:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LATE_NAMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The helpers whose result may be their first argument, or a view of it (or,
# for the *_parts ones, a tuple of views of it); every other helper returns
# a new array or a scalar. The compiler relies on this to add into an
# adjoint's memory in place.
MAY_RETURN_FIRST_ARGUMENT = tuple(name for module in _MODULES
                                  for name in getattr(module, "MAY_RETURN_FIRST_ARGUMENT", ()))
