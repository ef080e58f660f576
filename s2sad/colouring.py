"""Greedy colouring of the columns of a sparsity pattern, for compressed
sparse Jacobians (Curtis, Powell and Reid; Coleman and Moré).

Two columns that have a nonzero in the same row must get different
colours (distance-1 colouring of the column intersection graph); then
the columns of one colour can share one seed, since no row of the
Jacobian mixes two of them. Largest-first ordering: columns with the most
neighbours are coloured first, which usually needs fewer colours."""
import numpy as np
import scipy.sparse as sp


def column_colours(pattern):
    """An int array with one colour (0, 1, ...) per column of `pattern` (a
    scipy sparse matrix or array, or a 2-D array whose nonzeros are the
    pattern) such that no two columns sharing a nonzero row have the same
    colour."""
    p = sp.csr_array(pattern, dtype=np.int32)
    p.data[:] = 1
    n = p.shape[1]
    graph = sp.csr_array(p.T @ p)  # columns i and j share a row: graph[i, j] != 0
    graph.sort_indices()
    degrees = np.diff(graph.indptr)
    order = np.argsort(-degrees, kind="stable")  # largest first
    colours = np.full(n, -1, dtype=np.int64)
    forbidden = np.full(n + 1, -1, dtype=np.int64)  # forbidden[c] == j: a neighbour of j has c
    indptr, indices = graph.indptr, graph.indices
    for j in order:
        used = colours[indices[indptr[j]:indptr[j + 1]]]
        forbidden[used[used >= 0]] = j
        colours[j] = int(np.argmax(forbidden[:len(used) + 1] != j))
    return colours


def row_colours(pattern):
    """As column_colours, for the rows (the columns of the transpose)."""
    return column_colours(sp.csr_array(pattern).T)


def is_valid(pattern, colours):
    """Whether no two columns of one colour share a nonzero row."""
    p = sp.csr_array(pattern, dtype=np.int32)
    p.data[:] = 1
    count = colours.max() + 1 if len(colours) else 0
    by_colour = sp.csr_array((np.ones(len(colours), np.int32), (np.arange(len(colours)), colours)),
                             shape=(len(colours), count))
    return bool(len(colours) == 0 or (p @ by_colour).max() <= 1)
