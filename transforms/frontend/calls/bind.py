"""Every call bound to its callee's real signature (binder.py), so that no
later pass can drop a keyword or a default:

    h(u=a)                 h(a, 2.0)                  (def h(u, v=2.0))
    np.sum(x, 0)     ->    np.sum(x, axis=0)
    np.sum(x, axis=0, keepdims=True)   keep_axes(np.sum(x, axis=0), x, 0)

A helper's primal copy (HELPER_COPY) binds only the calls of helpers: it
runs as written otherwise."""
from .binder import CallBinder


def run(tree, ctx):
    ctx.binder = CallBinder(ctx.parsed, ctx.registry, ctx.runtime_objects,
                            ctx.program.definitions)
    return ctx.binder.bind_tree(tree, rules=not ctx.helper_copy)
