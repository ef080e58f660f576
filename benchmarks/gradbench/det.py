"""det: the determinant by Laplace expansion along the first row, recursively
(O(ℓ!) on purpose: the benchmark is the recursion), and its gradient, which
s2sad derives through the recursive calls."""
import numpy as np
import s2sad

from ._common import Function, primal, vector


def det_rows(M, row, used):
    """The determinant of the minor of M made of its rows `row`, `row + 1`,
    ... and the columns not in the bit set `used`, by Laplace expansion
    along its first row. Like GradBench's reference (cmpad's det_of_minor,
    which links the rows and columns left), it indexes M in place rather
    than copying each minor."""
    n = M.shape[0]
    if row == n - 2:  # a 2 x 2 minor, unrolled: its two columns
        a = -1
        b = -1
        for j in range(n):
            if (used >> j) & 1 == 0:
                if a < 0:
                    a = j
                else:
                    b = j
        return M[row, a] * M[row + 1, b] - M[row, b] * M[row + 1, a]
    total = 0.0
    sign = 1.0
    for j in range(n):
        if (used >> j) & 1 == 0:
            total += sign * M[row, j] * det_rows(M, row + 1, used | (1 << j))
            sign = -sign
    return total


def det(M):
    if M.shape[0] == 1:
        return M[0, 0]
    return det_rows(M, 0, 0)


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
