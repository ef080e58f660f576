"""hello: square and its derivative, double (a protocol smoke test)."""
import s2sad

from ._common import Function, primal


def square(x):
    return x * x


def define(jit):
    fns = {"square": primal(square, jit), "double": s2sad.grad(square, jit=jit)}
    for fn in fns.values():
        fn(1.0)  # compile now, not in the first evaluate
    return {name: Function(fn, lambda inp: (float(inp),)) for name, fn in fns.items()}
