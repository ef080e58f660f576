"""What the index-check pass (bounds.py) reads of a function as a whole,
and never changes: the statements binding each name, the arrays and lists,
what each loop's body binds."""
import gast

from .array_shapes import ALLOCATE, is_allocation_like
from .bounds_syntax import same_shape
from .nests import survey_loops
from ..syntax import callee_name, names_bound_by, walk_stmts


class Setup:
    """(a survey that undid nothing hands it to the main pass)"""

    def __init__(self, fdef, kinds):
        params = [a.id for a in fdef.args.args]
        self.bindings = {p: [None] for p in params}  # name -> binding statements (None: param)
        self.top = set(map(id, fdef.body))
        for s in walk_stmts(fdef.body):
            for n in names_bound_by(s):
                self.bindings.setdefault(n, []).append(s)
        self.arrays = {n for n, k in kinds.items() if k.is_array}
        self.lists = {n for n, k in kinds.items() if k.tag == "list"}
        for n, binds in self.bindings.items():
            for s in binds:
                if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                    if callee_name(s.value) in ALLOCATE:
                        self.arrays.add(n)
                    elif isinstance(s.value, gast.List):
                        self.lists.add(n)
        # arrays bound once to zeros of another's shape (parallel.py's copy
        # per chunk of an adjoint): array -> the array whose shape it has
        self.like = {}
        for n, binds in self.bindings.items():
            if len(binds) == 1 and is_allocation_like(binds[0], self.arrays) \
                    and same_shape(binds[0].value):
                self.arrays.add(n)
                self.like[n] = binds[0].value.args[0].id
        self.inside = {}  # id(loop) -> (names bound in its body, whether it returns or raises)
        survey_loops(fdef.body, self.inside)
