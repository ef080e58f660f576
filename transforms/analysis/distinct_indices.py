"""Index arrays proved to name each position at most once.

The cotangent of a read `x[idx]` through an index array adds up where idx
repeats an entry (np.add.at), and a write `y[idx] = v` keeps only the last
of repeated entries. Both cost a loop over idx at run time; the plain
`dx[idx] += g` (numpy and numba keep one of repeated entries) is right only
when the entries are distinct positions. That is assumed of no index: it
is proved here, from how the array is made, or the slower code is kept.

Proved: integer arrays whose entries are distinct and non-negative (so
distinct positions along any axis: a negative entry counts from the end,
and -1 and n - 1 name the same position). Each is a value with a lower
bound of its entries:

    np.arange(stop), np.arange(start, stop[, step])   start (step > 0) or stop + 1 (step < 0)
    np.argsort(a) of a 1-d a, np.flatnonzero(a)        0
    np.nonzero(a)[k], np.where(a)[k] of a 1-d a        0
    np.array([0, 2, 5]) of distinct constants          the least of them
    u[s] for slices, ints, masks or distinct indices  u's (some of u's entries, each once)
    u + c, c + u, u - c, u * m, m * u                  shifted, scaled (m a constant > 0)
    np.sort(u), np.copy(u), np.ravel(u), u.T ...       u's

where u is proved (a name: every binding of it proved, and never written
into through any name) and c an int scalar with a known lower bound (a
constant, a shape, a length, the counter of a range with a known start).

Several index arrays, one per axis (`A[rows, cols]`, or a tuple of them,
`A[np.triu_indices(n)]`), name each position once when each of them does,
or when they are, in order, the parts of one tuple of positions:

    np.nonzero(a), np.where(a), np.triu_indices(n, k), np.tril_indices(n, k),
    np.triu_indices_from(a, k), np.tril_indices_from(a, k),
    np.diag_indices(n), np.diag_indices_from(a)

(a name bound to one of them, or its parts unpacked: `i, j = np.triu_indices(n)`)."""
import gast
import numpy as np

from . import kinds as K
from .aliases import written_memory
from ..syntax import walk_stmts

# functions whose result is a tuple of index arrays, one per axis, naming
# each position once (np.where of one argument)
_POSITIONS = {np.nonzero, np.where, np.triu_indices, np.tril_indices, np.triu_indices_from,
              np.tril_indices_from, np.diag_indices, np.diag_indices_from}
# functions whose result holds the entries of their (first) argument, each once
_SAME_ENTRIES = {np.sort, np.copy, np.ravel, np.ascontiguousarray, np.transpose, np.reshape,
                 np.atleast_1d, np.flip}


class DistinctIndices:
    """Which index expressions of a normalised function `tree` are proved to
    hold distinct, non-negative entries. `kinds`: its variables' kinds;
    `resolve(node)`: the Python object a name or attribute denotes;
    `written`: names whose memory is written in place (besides element
    writes, which are found here: `i += 1` on an array, through any name)."""

    def __init__(self, tree, kinds, resolve, written=()):
        self.kinds, self.resolve = kinds, resolve
        self.bindings = {}  # name -> the values assigned to it (None: bound otherwise)
        for a in tree.args.args:
            self.bindings.setdefault(a.id, []).append(None)
        for s in walk_stmts(tree.body):
            if isinstance(s, gast.Assign):
                for t in s.targets:
                    self._bind(t, s.value)
            elif isinstance(s, gast.For):
                self._bind(s.target, s.iter, loop=True)
            elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
                self.bindings.setdefault(s.target.id, []).append(None)
        self.written = written_memory(tree) | set(written)
        self._lows, self._busy = {}, set()

    def _bind(self, target, value, loop=False):
        if isinstance(target, gast.Name):
            self.bindings.setdefault(target.id, []).append(("range", value) if loop else value)
        elif isinstance(target, (gast.Tuple, gast.List)):
            for k, t in enumerate(target.elts):
                # `i, = np.nonzero(m)`: the k-th part of the value
                part = gast.Subscript(value=value, slice=gast.Constant(value=k, kind=None),
                                      ctx=gast.Load()) if not loop else None
                if isinstance(t, gast.Name):
                    self.bindings.setdefault(t.id, []).append(part)
                else:
                    self._bind(t, part, loop)

    # ---- the question the reverse sweep asks -------------------------------
    def distinct(self, index):
        """Whether the index array `index` (an expression; or a tuple of
        them, one per axis) is proved to name each position at most once."""
        if isinstance(index, gast.Call) or (isinstance(index, gast.Name) and getattr(
                self.kinds.get(index.id), "tag", None) == "tuple"):
            if self._positions(index):
                return True
        low = self.array_low(index)
        return low is not None and low >= 0

    def distinct_points(self, arrays):
        """Whether the index arrays `arrays` (one per axis, in order) name
        each point at most once: each of them does (so any two points of
        their broadcast differ in one of them), or they are the parts of one
        tuple of positions (in any order: (j, i) of distinct (i, j) are)."""
        if all(self.distinct(a) for a in arrays):
            return True
        parts = [self._part_of(a) for a in arrays]
        if any(p is None for p in parts) or sorted(k for _, k in parts) != list(range(len(parts))):
            return False
        whole = parts[0][0]
        same = all(w is whole or (isinstance(w, gast.Name) and isinstance(whole, gast.Name)
                                  and w.id == whole.id) for w, _ in parts)
        return same and self._positions(whole) and self._tuple_size(whole) == len(parts)

    def _tuple_size(self, whole):
        """How many index arrays the tuple of positions `whole` holds (every
        axis must be indexed: a prefix of np.nonzero's may repeat), or None."""
        if isinstance(whole, gast.Name):
            kind = self.kinds.get(whole.id)
            return len(kind.items) if kind is not None and kind.tag == "tuple" else None
        fn = self.resolve(whole.func)
        if fn in (np.triu_indices, np.tril_indices, np.triu_indices_from, np.tril_indices_from):
            return 2
        if fn is np.diag_indices:
            ndim = whole.args[1] if len(whole.args) > 1 else next(
                (k.value for k in whole.keywords if k.arg == "ndim"), None)
            return 2 if ndim is None else (ndim.value if isinstance(ndim, gast.Constant)
                                           else None)
        return self._ndim(whole.args[0]) if whole.args else None

    def _part_of(self, node):
        """(the tuple, k) of `t[k]`, or of a name bound once to it (`i, j =
        np.triu_indices(n)` binds i to part 0); else None."""
        if isinstance(node, gast.Name):
            values = self.bindings.get(node.id)
            if not values or len(values) != 1 or node.id in self.written:
                return None
            node = values[0]
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) \
                and type(node.slice.value) is int and node.slice.value >= 0:
            return node.value, node.slice.value
        return None

    def _positions(self, node):
        """Whether a tuple of index arrays is made by one of _POSITIONS (a
        name: every binding of it), never written into."""
        if isinstance(node, gast.Name):
            values = self.bindings.get(node.id)
            if not values or node.id in self.written or any(
                    v is None or isinstance(v, tuple) for v in values):
                return False
            return all(self._positions(v) for v in values)
        if not isinstance(node, gast.Call):
            return False
        try:
            fn = self.resolve(node.func)
            known = fn in _POSITIONS
        except Exception:  # noqa: BLE001 - unresolvable or unhashable: not one of them
            return False
        return known and not (fn is np.where and len(node.args) != 1)

    # ---- index arrays: the least entry, or None (not proved distinct) ---------
    def array_low(self, node):
        if isinstance(node, tuple):  # (a loop's counter: an int)
            return None
        if isinstance(node, gast.Name):
            return self._name_low(node.id, self.array_low)
        if isinstance(node, gast.Call):
            return self._call_low(node)
        if isinstance(node, gast.Subscript):
            return self._subset_low(node)
        if isinstance(node, gast.Attribute) and node.attr == "T":
            return self.array_low(node.value)
        if isinstance(node, gast.BinOp):
            return self._affine_low(node)
        return None

    def _name_low(self, var, of_value):
        """The least value over every binding of `var` (`of_value` of each),
        or None when one is not proved or `var` is written into."""
        key = (var, of_value.__name__)
        if key in self._lows:
            return self._lows[key]
        values = self.bindings.get(var)
        if not values or key in self._busy or var in self.written:
            return None  # (a value depending on itself, as i = i + 1 in a loop, is not proved)
        self._busy.add(key)
        try:
            lows = [of_value(v) for v in values]
        finally:
            self._busy.discard(key)
        low = None if any(x is None for x in lows) else min(lows)
        self._lows[key] = low
        return low

    def _call_low(self, node):
        fn = self.resolve(node.func)
        args, keywords = node.args, {k.arg: k.value for k in node.keywords}
        try:
            known = fn in _SAME_ENTRIES or fn in (np.arange, np.argsort, np.flatnonzero,
                                                  np.array, np.asarray)
        except TypeError:  # (an unhashable object)
            return None
        if not known or not args:
            return None
        if fn is np.arange and not keywords:
            return self._arange_low(args)
        if fn is np.argsort and len(args) == 1 and "axis" not in keywords:
            return 0 if self._ndim(args[0]) == 1 else None
        if fn is np.flatnonzero and len(args) == 1:
            return 0
        if fn in (np.array, np.asarray) and len(args) == 1 and not keywords:
            return _distinct_constants_low(args[0])
        if fn in _SAME_ENTRIES:
            return self.array_low(args[0])
        return None

    def _arange_low(self, args):
        step = args[2] if len(args) == 3 else gast.Constant(value=1, kind=None)
        if not (isinstance(step, gast.Constant) and type(step.value) is int and step.value):
            return None
        if len(args) == 1:
            return 0
        if step.value > 0:
            return self.scalar_low(args[0])
        stop = self.scalar_low(args[1])  # counting down: every entry is above stop
        return None if stop is None else stop + 1

    def _subset_low(self, node):
        """u[...] picking each of u's entries at most once, or the k-th part
        of np.nonzero(a) (np.where(a)) for a 1-d a."""
        base, index = node.value, node.slice
        if isinstance(index, gast.Constant) and type(index.value) is int:
            positions = self._positions_of(base)
            if positions is not None:
                return positions
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        for p in parts:
            if isinstance(p, gast.Slice):
                continue
            kind = K.of_atom(p, self.kinds) if isinstance(p, (gast.Name, gast.Constant)) \
                else K.UNKNOWN
            if kind.tag == "int" or (kind.is_array and kind.dtype == "b"):
                continue
            if self.array_low(p) is None:  # (an index array into u: distinct ones only)
                return None
        return self.array_low(base)

    def _positions_of(self, tuple_value):
        """0 for np.nonzero(a) or np.where(a) of a 1-d array a (a name bound
        to one, too): its one part holds distinct positions."""
        if isinstance(tuple_value, gast.Name):
            values = self.bindings.get(tuple_value.id)
            if not values or len(values) != 1 or values[0] is None \
                    or isinstance(values[0], tuple):
                return None
            tuple_value = values[0]
        if not isinstance(tuple_value, gast.Call) or len(tuple_value.args) != 1 \
                or tuple_value.keywords:
            return None
        fn = self.resolve(tuple_value.func)
        if fn is not np.nonzero and fn is not np.where:
            return None
        return 0 if self._ndim(tuple_value.args[0]) == 1 else None

    def _affine_low(self, node):
        """u + c, c + u, u - c, u * m, m * u: distinct entries stay distinct."""
        left, right, op = node.left, node.right, node.op
        if isinstance(op, gast.Add):
            for u, c in ((left, right), (right, left)):
                low, shift = self.array_low(u), self._int_scalar_low(c)
                if low is not None and shift is not None:
                    return low + shift
            return None
        if isinstance(op, gast.Sub):
            low = self.array_low(left)
            if low is None or not (isinstance(right, gast.Constant) and type(right.value) is int):
                return None
            return low - right.value
        if isinstance(op, gast.Mult):
            for u, m in ((left, right), (right, left)):
                if isinstance(m, gast.Constant) and type(m.value) is int and m.value > 0:
                    low = self.array_low(u)
                    return None if low is None else low * m.value
        return None

    def _ndim(self, node):
        kind = K.of_atom(node, self.kinds) if isinstance(node, (gast.Name, gast.Constant)) \
            else K.UNKNOWN
        return kind.ndim if kind.is_array else None

    # ---- int scalars: a lower bound, or None ---------------------------------------
    def _int_scalar_low(self, node):
        kind = K.of_atom(node, self.kinds) if isinstance(node, (gast.Name, gast.Constant)) \
            else K.UNKNOWN
        return self.scalar_low(node) if kind.tag == "int" or isinstance(node, gast.BinOp) \
            else None

    def scalar_low(self, node):
        if isinstance(node, gast.Constant):
            return node.value if type(node.value) is int else None
        if isinstance(node, gast.Name):
            return self._name_low(node.id, self._bound_low)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            return 0 if self._is_shape(node.value) else None  # shape[0]
        if isinstance(node, gast.Attribute):
            return 0 if node.attr in ("size", "ndim") else None
        if isinstance(node, gast.Call):
            return 0 if self.resolve(node.func) is len else None
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult)):
            left, right = self.scalar_low(node.left), self.scalar_low(node.right)
            if left is None or right is None:
                return None
            if isinstance(node.op, gast.Add):
                return left + right
            return left * right if left >= 0 and right >= 0 else None
        return None

    def _bound_low(self, value):
        """The lower bound of a value bound to an int name: an expression, or a
        loop's ("range", iter) for its counter."""
        if isinstance(value, tuple):
            it = value[1]
            if isinstance(it, gast.Call) and self.resolve(it.func) is range and it.args \
                    and not it.keywords:
                if len(it.args) == 1:
                    return 0
                step = it.args[2] if len(it.args) == 3 else None
                if step is None or (isinstance(step, gast.Constant)
                                    and type(step.value) is int and step.value > 0):
                    return self.scalar_low(it.args[0])
            return None
        return None if value is None else self.scalar_low(value)

    def _is_shape(self, node):
        if isinstance(node, gast.Attribute):
            return node.attr == "shape"
        if isinstance(node, gast.Name):
            values = self.bindings.get(node.id)
            return bool(values) and all(v is not None and not isinstance(v, tuple)
                                        and self._is_shape(v) for v in values)
        return False


def _distinct_constants_low(literal):
    """The least of a literal list or tuple of distinct non-negative ints."""
    if not isinstance(literal, (gast.List, gast.Tuple)) or not literal.elts:
        return None
    values = [e.value if isinstance(e, gast.Constant) else None for e in literal.elts]
    if not all(type(v) is int and v >= 0 for v in values) or len(set(values)) != len(values):
        return None
    return min(values)
