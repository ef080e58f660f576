"""A method of a module-level object, and its attributes, as JAX treats an
object a function closes over: the values it holds are constants of the
derivative.

    class Layer:                               LAYER = Layer(2.0)
        def __init__(self, scale):
            self.scale = scale                 def loss(p, x):
        def forward(self, p, x):                   return np.sum(forward_LAYER(p, x))
            return np.tanh(p @ x) * self.scale
                                               def forward_LAYER(p, x):    (its copy)
    def loss(p, x):                 ->             return np.tanh(p @ x) * LAYER_scale
        return np.sum(LAYER.forward(p, x))

A call of a bound method of an instance of a user's class (or of a class,
for a classmethod) goes to a copy of the method's function with `self`
read as the object (bound_copies.py), so its reads `self.scale` and calls
`self.other(x)` are this pass's again when the copy is read. A read of an
attribute holding a number, an array, or a tuple, list or dict of them is
a name bound to that value (None, a string, a bool or an int: the
constant, so a loop's trip count is known). The
values are read when the derivative is generated; the derivative is
generated again when one of them is rebound (s2sad/guards.py).

Left as it is: an attribute holding anything else (another object, a
function), an object of a library's class, an assignment to an attribute
(the fence refuses it)."""
import inspect

import gast
import numpy as np

from .bound_copies import bound_copy
from .module_values import data, method_of_plain_object, plain_object
from .passed_functions import bound_names
from ...names import fresh_name
from ...syntax import Transformer, walk


def run(tree, ctx):
    """Rewrite, in place, the method calls and attribute reads of
    module-level objects in `tree`."""
    if not any(isinstance(n, gast.Attribute) for n in walk(tree)):
        return None
    rewrite = _Objects(tree, ctx)
    tree.body = [rewrite.visit(s) for s in tree.body]
    if not rewrite.changed:
        return None
    ctx.reads_values = ctx.reads_values or rewrite.read_values
    return tree


class _Objects(Transformer):
    def __init__(self, tree, ctx):
        self.namespace = ctx.namespace
        self.readable = ctx.readable
        self.local = bound_names(tree) | {a.id for a in tree.args.args}
        self.taken = set(self.namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
        self.values = {}  # (id(object), attribute) -> the name bound to its value
        self.changed = self.read_values = False

    def value(self, node):
        """The object a Name or Attribute chain on a module-level name
        denotes, or None."""
        if isinstance(node, gast.Name):
            return None if node.id in self.local else self.namespace.get(node.id)
        if isinstance(node, gast.Attribute):
            base = self.value(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def visit_Call(self, node):
        func = node.func
        made = None
        if isinstance(func, (gast.Name, gast.Attribute)):
            called = self.value(func)
            if plain_object(called) and not isinstance(called, type):  # model(x)
                func = gast.Attribute(value=func, attr="__call__", ctx=gast.Load())
        if isinstance(func, gast.Attribute):
            owner = self.value(func.value)
            method = getattr(owner, func.attr, None) if plain_object(owner) else None
            if method_of_plain_object(method) and method.__self__ is owner:
                target = method.__func__
                params = list(inspect.signature(target).parameters)
                if params:
                    made = bound_copy(target, {params[0]: owner}, {params[0]: func.value},
                                      self.namespace, self.taken)
            elif (inspect.isfunction(method) and self.readable(method) is method) or \
                    isinstance(method, np.ufunc) or inspect.isbuiltin(method):
                # a staticmethod, or a function the object holds (self.activation = np.tanh)
                made = self.name_for(getattr(method, "__name__", func.attr), method), method
            if made is not None:
                self.namespace[made[0]] = made[1]
                node.func = gast.copy_location(gast.Name(
                    id=made[0], ctx=gast.Load(), annotation=None, type_comment=None), func)
                self.changed = True
        return self.generic_visit(node)

    def name_for(self, preferred, obj):
        """A name bound to `obj` here: `preferred` if it is free or already
        bound to it."""
        if self.namespace.get(preferred) is obj and preferred not in self.local:
            return preferred
        return fresh_name(preferred, self.taken)

    def visit_Attribute(self, node):
        if not isinstance(node.ctx, gast.Load):
            return self.generic_visit(node)
        owner = self.value(node.value)
        if not plain_object(owner) or not hasattr(owner, node.attr):
            return self.generic_visit(node)
        held = getattr(owner, node.attr)
        if held is None or isinstance(held, (str, bool, int, np.integer)):
            self.changed = self.read_values = True
            held = int(held) if isinstance(held, np.integer) else held
            return gast.copy_location(gast.Constant(value=held, kind=None), node)
        if not data(held):
            return self.generic_visit(node)
        key = (id(owner), node.attr)
        if key not in self.values:
            spelled = _spelled(node.value)
            n = fresh_name(f"{spelled}_{node.attr}" if spelled else node.attr, self.taken)
            self.namespace[n] = held
            self.values[key] = n
        self.changed = self.read_values = True
        return gast.copy_location(gast.Name(id=self.values[key], ctx=gast.Load(),
                                            annotation=None, type_comment=None), node)


def _spelled(node):
    """`LAYER.sub` as LAYER_sub (a name for what it reads)."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = _spelled(node.value)
        return f"{base}_{node.attr}" if base else None
    return None
