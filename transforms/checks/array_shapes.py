"""What an array name denotes for the index-check pass (bounds.py): whether
it is bound once, and its extents along each axis as affine forms, from the
allocation that made it (`np.empty((n, d))`, `np.zeros_like(x)`, a tape's
`max(n, 0)`) or as the symbol `x.shape[k]`."""
import gast

from .affine import Affine
from .bounds_syntax import copies, in_place, is_zero, root, same_shape
from ..syntax import callee_name, walk

ALLOCATE = {"np.empty", "np.zeros", "np.ones", "np.full"}
ALLOCATE_LIKE = {"np.empty_like", "np.zeros_like", "np.ones_like", "np.full_like", "np.copy",
                 "zeros_like"}


class ArrayShapes:
    """Mixed into bounds._Pass, whose attributes it reads: `bindings` (name
    -> binding statements, None for a parameter), `top` (ids of top-level
    statements), `setup` (function_survey.Setup), `kinds`, `loops` (the
    loops around), `fdef`, `_shapes` (a memo) and `form(node, proof)`."""

    def invariant(self, var):
        """Bound once, by a parameter or a top-level assignment."""
        binds = self.bindings.get(var, ())
        return len(binds) == 1 and (binds[0] is None or id(binds[0]) in self.top)

    def swapped(self, array):
        """Rebound only by swaps with arrays of its shape (copy_fold.py), so
        its shape is the same wherever it is read."""
        binds = self.bindings.get(array, ())
        return len(binds) > 1 and binds[0] is not None and id(binds[0]) in self.top \
            and all(getattr(s, "s2sad_same_shapes", False) for s in binds[1:])

    def copy_of(self, array):
        """The array whose shape `array` has for good (bound once to
        `np.zeros_like(a)`, a's shape fixed): an index checked for a is
        inside it too. None if there is none."""
        like = self.setup.like.get(array)
        return like if like is not None and self.shape(like) is not None else None

    def is_int(self, var):
        k = self.kinds.get(var)
        return (k is not None and k.tag == "int") or any(
            loop.var == var for loop in self.loops) or self._int_constant(var)

    def _int_constant(self, var):
        """Bound once, to an int (parallel.py's `n_chunks = 2`)."""
        if not self.invariant(var) or self.bindings[var][0] is None:
            return False
        s = self.bindings[var][0]
        return isinstance(s, gast.Assign) and isinstance(s.value, gast.Constant) \
            and type(s.value.value) is int

    def extent(self, array, axis):
        """(form, exact) with form <= array.shape[axis] (== if exact), as
        proof symbols; None if the array's shape is not fixed."""
        dims = self.shape(array)
        if dims is None:
            return None
        if dims == "opaque" or axis >= len(dims) or dims[axis] is None:
            return Affine.extent(array, axis), True
        dim = dims[axis]
        return dim if isinstance(dim, tuple) else (dim, True)

    def shape(self, array):
        """Extents of an array all of whose bindings give it one shape:
        'opaque' (a parameter's), or a list of (form, exact)."""
        if array in self._shapes:
            return self._shapes[array]
        self._shapes[array] = None  # against cycles
        binds = self.bindings.get(array, ())
        first, rest = (binds[0], binds[1:]) if binds else (None, ())
        result = None
        if binds and all(s is None or id(s) in self.top or getattr(s, "s2sad_same_shapes", False)
                         or in_place(s, array) for s in binds) \
                and all(copies(s, array) for s in rest):
            result = "opaque"
            if first is not None:
                value = first.value if isinstance(first, gast.Assign) \
                    and isinstance(first.targets[0], gast.Name) else None
                callee = callee_name(value)
                if callee in ALLOCATE and value.args:
                    result = self._dims(value.args[0])
                elif callee in ALLOCATE_LIKE and value.args \
                        and isinstance(value.args[0], gast.Name) and same_shape(value):
                    like = value.args[0].id
                    result = self.shape(like)
                    if result is None:  # its shape then, fixed for this array
                        result = "opaque"
                    elif result == "opaque":
                        result = [Affine.extent(like, k)
                                  for k in range(self._ndim(array))]
        elif len(binds) == 1 and binds[0] is not None:
            result = self._allocated_in_loop(binds[0])
        self._shapes[array] = result
        return result

    def _allocated_in_loop(self, s):
        """The extents of an array bound once, in a loop, to an allocation
        whose size no loop changes (`xc = np.empty(d)` in each iteration of a
        prange loop, or `dx_chunk = np.zeros_like(dx)`, dx an array of fixed
        shape bound once), or None. (A check on it is never placed before
        the loop: its name is stored there.)"""
        value = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
            else None
        if is_allocation_like(s, self.arrays) and same_shape(value):
            like = self.shape(value.args[0].id)  # (None: not one shape)
            return self._opaque(value.args[0].id) if like == "opaque" else like
        if callee_name(value) not in ALLOCATE or not value.args:
            return None
        dims = self._dims(value.args[0])
        counters = {n.target.id for n in walk(self.fdef) if isinstance(n, gast.For)}
        if not dims or any(d is None or {root(t) for t in d[0].terms} & counters for d in dims):
            return None
        return dims

    def _ndim(self, array):
        k = self.kinds.get(array)
        return k.ndim if k is not None and k.is_array else 8

    def _opaque(self, array):
        return [Affine.extent(array, k) for k in range(self._ndim(array))]

    def _dims(self, node):
        """Extents of an allocation's shape: (form, exact), or None for one
        that is not affine (the array's own extent stands for it).
        `max(n, 0)` (a tape's) is at least n; `(n,) + x.shape` (parallel.py's
        copies of x, one per chunk) is n, then x's extents."""
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add) \
                and isinstance(node.left, gast.Tuple) and _shape_of(node.right) is not None:
            x = _shape_of(node.right)
            theirs = self.shape(x)  # (None: not one shape)
            if theirs is None:
                return None
            return self._dims(node.left) + list(self._opaque(x) if theirs == "opaque" else theirs)
        dims = []
        for d in node.elts if isinstance(node, gast.Tuple) else [node]:
            exact = not (callee_name(d) == "max" and len(d.args) == 2 and is_zero(d.args[1]))
            form = self.form(d if exact else d.args[0], proof=True)
            dims.append(None if form is None else (form, exact))
        return dims


def _shape_of(node):
    """x for `x.shape`."""
    if isinstance(node, gast.Attribute) and node.attr == "shape" \
            and isinstance(node.value, gast.Name):
        return node.value.id
    return None


def is_allocation_like(s, arrays):
    """Whether `s` is `v = np.zeros_like(x)` (or another ALLOCATE_LIKE) of
    an array x among `arrays`."""
    value = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
        else None
    return callee_name(value) in ALLOCATE_LIKE and len(value.args) >= 1 \
        and isinstance(value.args[0], gast.Name) and value.args[0].id in arrays
