"""`physics.force(x)` or `config.DT` of a user's module imported at module
level: the attribute read as a name of the function, as `from physics
import force` would bind it. A function is then a helper like any other
(its derivative generated and compiled with the rest), a number a constant
of the derivative, an object a module-level object (object_methods.py).
Reached through the module, numba compiles neither a Python function nor
the module's numbers: the derivative ran as Python, with a warning.

    import physics                          def step(x):
                                    ->          return x + DT * force(x)
    def step(x):
        return x + physics.DT * physics.force(x)

The values are read when the derivative is generated; it is generated
again when one of them is rebound (s2sad/guards.py). Left as they are: an
attribute of a library's module (numpy, math, scipy: their functions are
primitives), a submodule (its attributes are read in turn), a module the
function binds locally, an attribute it assigns."""
import types

import gast

from ...libraries import is_user_module
from ...names import fresh_name
from ...syntax import Transformer, walk


def run(tree, ctx):
    """Rewrite, in place, the reads of user modules' attributes in `tree`."""
    if not any(isinstance(n, gast.Attribute) for n in walk(tree)):
        return None
    rewrite = _ModuleAttributes(tree, ctx)
    tree.body = [rewrite.visit(s) for s in tree.body]
    if not rewrite.aliases:
        return None
    ctx.reads_values = True  # (bound now: the next read binds them again)
    return tree


class _ModuleAttributes(Transformer):
    def __init__(self, tree, ctx):
        self.namespace = ctx.namespace
        self.local = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del))}
        args = tree.args
        self.local |= {a.id for a in args.posonlyargs + args.args + args.kwonlyargs +
                       [args.vararg, args.kwarg] if a is not None}
        self.taken = set(self.namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
        self.aliases = {}  # (module name, attribute) -> the name bound to it

    def module(self, node):
        """The module a Name or Attribute chain on a module-level name
        denotes, or None."""
        if isinstance(node, gast.Name):
            found = None if node.id in self.local else self.namespace.get(node.id)
        elif isinstance(node, gast.Attribute):
            base = self.module(node.value)
            found = getattr(base, node.attr, None) if base is not None else None
        else:
            return None
        return found if isinstance(found, types.ModuleType) else None

    def visit_Attribute(self, node):
        if not isinstance(node.ctx, gast.Load):
            return self.generic_visit(node)
        module = self.module(node.value)
        if module is None or not is_user_module(module) or not hasattr(module, node.attr):
            return self.generic_visit(node)
        value = getattr(module, node.attr)
        if isinstance(value, types.ModuleType):
            return node  # (a submodule: an attribute of it is read from the outer node)
        key = (module.__name__, node.attr)
        if key not in self.aliases:
            self.aliases[key] = self.name_for(node.attr, module.__name__, value)
            self.namespace[self.aliases[key]] = value
        return gast.copy_location(gast.Name(id=self.aliases[key], ctx=gast.Load(),
                                            annotation=None, type_comment=None), node)

    def name_for(self, attr, module_name, value):
        """`attr` where the function's module binds it to the same object (or
        not at all), else `physics_attr`."""
        if attr not in self.local and self.namespace.get(attr, value) is value:
            self.taken.add(attr)
            return attr
        return fresh_name(f"{module_name.rpartition('.')[2]}_{attr}", self.taken)
