"""det: the determinant by Laplace expansion along the first row, recursively
(O(ℓ!) on purpose: the benchmark is the recursion), and its gradient, which
s2sad derives through the recursive calls."""
import numpy as np
import s2sad

from ._common import Function, primal, vector


def det(M):
    n = M.shape[0]
    if n == 1:
        return M[0, 0]
    if n == 2:  # the expansion of a 2 × 2 matrix, unrolled: half the time at ℓ = 10
        return M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
    total = 0.0
    sign = 1.0
    for j in range(n):
        # the minor without row 0 and column j
        minor = np.empty((n - 1, n - 1))
        for r in range(1, n):
            k = 0
            for c in range(n):
                if c != j:
                    minor[r - 1, k] = M[r, c]
                    k += 1
        total += sign * M[0, j] * det(minor)
        sign = -sign
    return total


def inputs(inp):
    ell = int(inp["ell"])
    return (vector(inp["A"]).reshape(ell, ell),)  # row-major


def define(jit):
    fns = {"primal": primal(det, jit),
           "gradient": s2sad.grad(det, jit=jit, boundscheck=False)}
    for fn in fns.values():
        fn(vector([2.0, -1.0, 0.5, 1.5, 3.0, -2.0, 0.25, 4.0, 1.0]).reshape(3, 3))
    return {"primal": Function(fns["primal"], inputs),
            "gradient": Function(fns["gradient"], inputs, lambda g: g.ravel().tolist())}
