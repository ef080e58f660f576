"""det: the determinant by Laplace expansion along the first remaining row
(O(ℓ!) on purpose: the benchmark is the recursion), and its gradient.

s2sad does not differentiate recursive functions, so the recursion is
written as the loop a compiler would make of it: frame r expands the minor
of rows r..ℓ-1 over the columns not taken by the frames above it, with an
explicit stack (col, sign, minor per depth) instead of the call stack."""
import numpy as np
import s2sad

from ._common import Function, primal, vector


def det_by_minors(A, ell):
    """det of the ell-by-ell matrix stored row-major in A."""
    col = np.arange(ell)                  # column frame r expands now (set before use)
    sign = np.empty(ell)                  # (-1)^(its position among the free columns)
    minor = np.empty(ell)                 # frame r's running sum
    taken = np.zeros(ell, dtype=np.int64)  # 1 for the columns of the frames above
    r = 0
    col[0] = -1
    sign[0] = 1.0
    minor[0] = 0.0
    while True:
        # the next free column of frame r
        c = col[r] + 1
        while c < ell and taken[c] == 1:
            c += 1
        if c < ell:
            if r == ell - 1:
                minor[r] = A[r * ell + c]  # a 1x1 minor is its entry; the frame is done
            else:  # call frame r + 1 on the minor without row r and column c
                col[r] = c
                taken[c] = 1
                r += 1
                col[r] = -1
                sign[r] = 1.0
                minor[r] = 0.0
                continue
        # frame r is done: return its minor to frame r - 1
        if r == 0:
            break
        r -= 1
        c = col[r]
        taken[c] = 0
        minor[r] += sign[r] * A[r * ell + c] * minor[r + 1]
        sign[r] = -sign[r]
    return minor[0]


def define(jit):
    fns = {"primal": primal(det_by_minors, jit),
           "gradient": s2sad.grad(det_by_minors, jit=jit)}
    for fn in fns.values():
        fn(vector([2.0, -1.0, 0.5, 1.5, 3.0, -2.0, 0.25, 4.0, 1.0]), 3)
    return {name: Function(fn, lambda inp: (vector(inp["A"]), int(inp["ell"])))
            for name, fn in fns.items()}
