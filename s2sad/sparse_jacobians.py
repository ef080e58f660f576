"""Sparse Jacobians and Hessians by colouring (compressed seeds).

The sparsity pattern is given (`sparsity=`) or found by a probe: the dense
Jacobian at two random points near the arguments (the one differentiated
and the other float ones moved), the union of their nonzeros (a NaN counts
as a nonzero). As ColPack and SparseDiffTools do,
the pattern is assumed to be structural: the same at every point. The
columns (forward mode) or rows (reverse mode) are coloured so that no row
(column) mixes two of one colour; one seed per colour, the sum of the unit
seeds of its columns, gives all of them in one pass, and each nonzero is
read back from the pass of its column's (row's) colour."""
import hashlib

import numpy as np
import scipy.sparse as sp

from . import colouring
from .errors import GradientCheckError, NoForwardModeError
from .transforms.errors import S2sadValueError

PROBES = 2  # dense Jacobians whose nonzeros make a probed pattern
_PROBE_SCALE = 1e-3  # a probe point: the argument moved by this much of its size


class Pattern:
    """A sparsity pattern of shape (outputs, inputs), with its colourings
    (computed once)."""

    def __init__(self, matrix):
        csr = sp.csr_array(matrix)
        csr = sp.csr_array((np.ones(csr.nnz, bool), csr.indices, csr.indptr), shape=csr.shape)
        csr.sum_duplicates()
        csr.sort_indices()
        self.csr = csr
        self.shape = csr.shape
        self.rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
        self.cols = csr.indices.astype(np.int64)
        self._colours = {}

    def colours(self, mode):
        """Column colours for forward mode, row colours for reverse."""
        if mode not in self._colours:
            colour = colouring.column_colours if mode == "fwd" else colouring.row_colours
            self._colours[mode] = colour(self.csr)
        return self._colours[mode]

    def positions(self, mode):
        """Where each nonzero (in CSR order) is in the compressed results,
        flattened: forward, (colour of its column, its row); reverse,
        (colour of its row, its column)."""
        key = ("positions", mode)
        if key not in self._colours:
            colours = self.colours(mode)
            m, n = self.shape
            self._colours[key] = (colours[self.cols] * m + self.rows if mode == "fwd"
                                  else colours[self.rows] * n + self.cols)
        return self._colours[key]

    def passes(self, mode):
        colours = self.colours(mode)
        return int(colours.max()) + 1 if len(colours) else 0

    def symmetric(self):
        """The pattern with its transpose (a Hessian's)."""
        return Pattern(self.csr + self.csr.T)


def given(sparsity, shape, where):
    """The Pattern of a user's `sparsity=` (a scipy sparse matrix or array,
    or an array whose nonzeros are the pattern), checked against the
    Jacobian's (outputs, inputs) shape."""
    if not sp.issparse(sparsity):
        sparsity = np.asarray(sparsity)
        if sparsity.ndim != 2:
            raise S2sadValueError(f"{where}: sparsity= must be a 2-D array or a scipy sparse "
                                  f"matrix of shape (outputs, inputs), not of shape "
                                  f"{sparsity.shape}")
    if tuple(sparsity.shape) != tuple(shape):
        raise S2sadValueError(f"{where}: sparsity= has shape {tuple(sparsity.shape)}, but the "
                              f"Jacobian (outputs, inputs), flattened, has shape {tuple(shape)}")
    return Pattern(sparsity)


def probed(dense_at, values, wrt):
    """The Pattern of the union of nonzeros of `dense_at(probe)` (a 2-D
    array) at PROBES random points near the arguments `values`: the
    argument differentiated, `values[wrt]`, moved, and the other float
    arguments too (an entry that is zero only because another argument
    holds a zero is no structural zero). Where moving the others fails (a
    float used as a count), only the one differentiated moves."""
    rng = np.random.default_rng(0)
    found = None
    for _ in range(PROBES):
        moved = [_near(v, rng) if k == wrt or _is_float(v) else v for k, v in enumerate(values)]
        try:
            dense = dense_at(moved)
        except Exception:  # noqa: BLE001 - the other arguments kept as given
            moved = [moved[k] if k == wrt else v for k, v in enumerate(values)]
            dense = dense_at(moved)
        nonzero = dense != 0  # (NaN != 0: a NaN counts)
        found = nonzero if found is None else found | nonzero
    return Pattern(found)


def _is_float(v):
    return isinstance(v, (float, np.floating)) or (
        isinstance(v, np.ndarray) and np.issubdtype(v.dtype, np.floating))


def _near(v, rng):
    """`v` moved by _PROBE_SCALE of its size (1 where it is 0), keeping its
    type and dtype."""
    x = np.asarray(v)
    size = np.where(x != 0, np.abs(x), 1.0)
    point = (x + _PROBE_SCALE * size * rng.uniform(-1.0, 1.0, x.shape)).astype(x.dtype)
    return point if isinstance(v, np.ndarray) else type(v)(point)


def key_of(values):
    """What a probed pattern (or an output's shape) is kept for: the
    arguments' shapes and dtypes, and the values of the int and bool ones,
    arrays included (a size, a flag or an index array may change the
    structure; an array's by a digest of its bytes)."""
    key = []
    for v in values:
        if isinstance(v, (bool, int, np.integer, np.bool_)):
            key.append(("int", type(v).__name__, int(v)))
        elif isinstance(v, np.ndarray) and (v.dtype.kind in "biu"):
            digest = hashlib.blake2b(np.ascontiguousarray(v).tobytes(), digest_size=16).digest()
            key.append(("ints", v.shape, v.dtype.str, digest))
        else:
            key.append((type(v).__name__, np.shape(v), str(getattr(v, "dtype", ""))))
    return tuple(key)


def seeds(colours, count, shape, dtype):
    """One seed per colour, of `shape`: ones at the elements of its colour."""
    n = len(colours)
    block = np.zeros((count, n), dtype)
    block[colours, np.arange(n)] = 1.0
    return block.reshape((count,) + tuple(shape))


def jacobian(pattern, mode, x, out_shape, jvps, vjps, dtype):
    """The sparse Jacobian (scipy.sparse.csr_array, outputs x inputs) by
    compressed passes: `jvps(tangents)` / `vjps(seeds)` run a batch of
    forward / reverse passes (first axis: one per seed) and return their
    results stacked. `mode` "auto" takes the one with fewer passes
    (forward on a tie; reverse where forward mode is missing)."""
    if mode == "auto":
        mode = "fwd" if pattern.passes("fwd") <= pattern.passes("rev") else "rev"
        try:
            return jacobian(pattern, mode, x, out_shape, jvps, vjps, dtype)
        except NoForwardModeError:
            if mode == "rev":
                raise
            mode = "rev"
    colours = pattern.colours(mode)
    count = pattern.passes(mode)
    m, n = pattern.shape
    if mode == "fwd":
        compressed = jvps(seeds(colours, count, np.shape(x), dtype))
    else:
        compressed = vjps(seeds(colours, count, out_shape, dtype))
    data = np.ravel(compressed).take(pattern.positions(mode))
    return sp.csr_array((data.astype(dtype, copy=False), pattern.csr.indices.copy(),
                         pattern.csr.indptr.copy()), shape=(m, n))


def hessian(pattern, x, hvps, dtype):
    """The sparse Hessian (csr_array, inputs x inputs) from the symmetric
    `pattern` by compressed Hessian-vector products `hvps(vectors)`."""
    colours = pattern.colours("fwd")
    count = pattern.passes("fwd")
    n = pattern.shape[0]
    compressed = hvps(seeds(colours, count, np.shape(x), dtype))
    data = np.ravel(compressed).take(pattern.positions("fwd"))
    return sp.csr_array((data.astype(dtype, copy=False), pattern.csr.indices.copy(),
                         pattern.csr.indptr.copy()), shape=(n, n))


def verify(result, products, shape, where):
    """The self-check of a sparse result (check=True, S2SAD_CHECK=1, at the
    first call of each pattern): one more reverse pass, w^T J by
    `products(w)` (w of `shape`, the output's; the result flattened),
    against w^T times the sparse result. They differ when the Jacobian has
    a nonzero outside the pattern at this point."""
    w = np.random.default_rng(1).uniform(-1.0, 1.0, shape)
    exact = np.ravel(products(w.astype(result.dtype)))
    got = result.T @ np.ravel(w)
    rtol = 1e-3 if result.dtype == np.float32 else 1e-8
    scale = np.abs(result).T @ np.abs(np.ravel(w)) + np.abs(exact)
    if not np.all(np.abs(got - exact) <= rtol * scale + 1e-300):
        raise GradientCheckError(
            f"{where}: the sparse result disagrees with a reverse pass (w^T J) at this point, "
            f"so the Jacobian has nonzeros outside its sparsity pattern here; the pattern "
            f"probed near another point, or the one given by sparsity=, does not hold. Pass "
            f"sparsity= with every entry that can be nonzero, or use sparse=False.",
            check="sparsity pattern")


class Patterns:
    """The patterns of one sparse jacobian or hessian: the one given, or one
    probed per kind of arguments (key_of)."""

    def __init__(self, sparsity, where, symmetric=False):
        self.sparsity, self.where, self.symmetric = sparsity, where, symmetric
        self._found = {}
        self.verified = set()  # ids of the patterns whose result a self-check verified

    def get(self, values, wrt, shape, dense_at):
        """The Pattern for these arguments: `dense_at(values)` is the dense
        Jacobian, of `shape`, at other argument values."""
        key = shape if self.sparsity is not None else (shape, key_of(values))
        pattern = self._found.get(key)
        if pattern is None:
            if self.sparsity is not None:
                pattern = given(self.sparsity, shape, self.where)
            else:
                pattern = probed(dense_at, values, wrt)
            if self.symmetric:
                pattern = pattern.symmetric()
            self._found[key] = pattern
        return pattern
