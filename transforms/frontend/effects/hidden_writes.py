"""The writes numpy hides in calls, spelled as the stores they are before
calls are bound, so that the derivative sees them (numpy_writes.py):

    u.fill(v)                       u[...] = v
    np.copyto(u, v)                 u[...] = v
    u.sort()                        u[...] = np.sort(u)
    y = np.multiply(a, b, out=u)    u[...] = np.multiply(a, b); y = u
    np.add.at(u, i, v)              u[...] = np.add.at(u, i, v)"""
from .numpy_writes import respell_writes


def run(tree, ctx):
    return respell_writes(tree, ctx.parsed)
