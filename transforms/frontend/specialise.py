"""A user function specialised for argument kinds: the SPECIALISE list of
pipeline.py run over it, and what the reverse and forward passes take from
the result."""
import gast

from .pipeline import specialise


class Specialised:
    """A user function parsed, desugared, normalised and typed for given
    argument kinds."""

    def __init__(self, fn, arg_kinds, program, loops=None, stopped=(), skip=(),
                 arrays=frozenset()):
        ctx = specialise(fn, arg_kinds, program, loops, stopped, skip, arrays)
        self.parsed, self.tree, self.kinds, self.namer = ctx.parsed, ctx.tree, ctx.kinds, ctx.namer
        self.temporaries = ctx.temporaries
        self.aux_structure = ctx.aux_structure  # has_aux: the returned aux (aux_output.py)
        ret = self.tree.body[-1]
        self.outputs = list(ret.value.elts) if isinstance(ret.value, gast.Tuple) else [ret.value]
        self.returns_tuple = isinstance(ret.value, gast.Tuple)
        # a function the program names later (a helper's vjp) must not take a name this
        # code binds: a derivative of generated code has temporaries like `vjp_f2`
        local = getattr(program, "local_names", None)
        if local is not None:
            local.update(n.id for n in gast.walk(self.tree) if isinstance(n, gast.Name))
