"""Runtime helpers that generated derivatives call and that are not linear
(s2sad/rules/transposes.py has the linear ones): each is defined here in
terms of functions that have rules, so a derivative of a derivative that
calls it is differentiated through the definition, to any order, as
np.average is. The helper itself (compiled loops) stays what the first
derivative runs; the definition computes the same values.

    prod_others_tangent    np.prod's second derivatives
    slogdet_tangent        np.linalg.slogdet's tangent (of a matrix, of a stack)"""
import numpy as np

from .. import runtime as rt
from .registry import chooses, define


# ---- np.prod ------------------------------------------------------------------------------

@chooses(rt.prod_others_tangent)
def _prod_others_tangent(given):
    # (a tuple of axes keeps the rule, which refuses a third derivative)
    axis = given.get("axis")
    return None if type(axis).__name__ == "Tuple" else prod_others_tangent


def prod_others_tangent(x, t, axis=None):
    """The derivative along t of the product of the other elements (of x, or
    along an int axis): running products from each end and their
    derivatives, exact where elements are 0."""
    if axis is None:
        return np.reshape(_others_tangent_flat(np.ravel(x), np.ravel(t)), np.shape(x))
    moved = _others_tangent_first(np.moveaxis(x, axis, 0), np.moveaxis(t, axis, 0))
    return np.moveaxis(moved, 0, axis)


def _others_tangent_flat(a, t):
    n = a.shape[0]
    left, dleft = np.empty(n), np.empty(n)
    right, dright = np.empty(n), np.empty(n)
    run, drun = 1.0, 0.0
    for j in range(n):
        left[j] = run
        dleft[j] = drun
        drun = drun * a[j] + run * t[j]
        run = run * a[j]
    run, drun = 1.0, 0.0
    for j in range(n - 1, -1, -1):
        right[j] = run
        dright[j] = drun
        drun = drun * a[j] + run * t[j]
        run = run * a[j]
    return dleft * right + left * dright


def _others_tangent_first(a, t):
    """_others_tangent_flat along the first axis of arrays."""
    n = a.shape[0]
    left, dleft = np.empty(a.shape), np.empty(a.shape)
    right, dright = np.empty(a.shape), np.empty(a.shape)
    run, drun = np.ones_like(a[0]), np.zeros_like(a[0])
    for j in range(n):
        left[j] = run
        dleft[j] = drun
        drun = drun * a[j] + run * t[j]
        run = run * a[j]
    run, drun = np.ones_like(a[0]), np.zeros_like(a[0])
    for j in range(n - 1, -1, -1):
        right[j] = run
        dright[j] = drun
        drun = drun * a[j] + run * t[j]
        run = run * a[j]
    return dleft * right + left * dright


# ---- np.linalg.slogdet --------------------------------------------------------------------

@define(rt.slogdet_tangent)
def slogdet_tangent(t, a):
    """(the sign's tangent, 0; log|det a|'s, trace(a^-1 t))."""
    return 0.0, np.trace(np.linalg.solve(a, t))


@define(rt.slogdet_stack_tangent)
def slogdet_stack_tangent(t, a):
    """slogdet_tangent of each matrix of a stack."""
    logdet = np.trace(np.linalg.solve(a, t), axis1=-2, axis2=-1)
    return np.zeros_like(logdet), logdet
