"""Small builders and queries over gast trees, shared by every pass."""

import gast

from .ast_convert import parse
from .expressions import binop, compare, dotted, number, plain_copy  # noqa: F401 (re-exported)
from .errors import S2sadTypeError

__all__ = [
    "name", "store", "const", "assign", "call", "attr", "subscript", "binop", "compare",
    "plain_copy", "dotted", "number",
    "names_loaded", "names_stored", "walk_stmts", "is_atom", "clone",
    "parse_expr", "parse_stmts", "base_name", "binding_counts", "walk", "children", "rewrite",
    "structure", "names_bound_by", "callee_name", "Transformer",
]


# The builders below fill a node's fields directly (gast's constructor is a
# Python call per node, and the passes build thousands); contexts are shared,
# as ast.parse shares them.
def name(id_, ctx=None):
    node = _NAME.__new__(_NAME)
    fields = node.__dict__
    fields["id"] = id_
    fields["ctx"] = ctx or _LOAD
    fields["annotation"] = None
    fields["type_comment"] = None
    return node


def store(id_):
    return name(id_, _STORE)


def const(value):
    node = _CONSTANT.__new__(_CONSTANT)
    fields = node.__dict__
    fields["value"] = value
    fields["kind"] = None
    return node


def assign(target, value, src=None):
    """`target = value`; `target` may be a name string or a node."""
    if isinstance(target, str):
        target = store(target)
    node = gast.Assign(targets=[target], value=value, type_comment=None)
    if src is not None:
        gast.copy_location(node, src)
    return node


def attr(value, attribute):
    if isinstance(value, str):
        value = parse_expr(value)
    return gast.Attribute(value=value, attr=attribute, ctx=gast.Load())


def call(func, *args, keywords=()):
    if isinstance(func, str):
        func = parse_expr(func)
    return gast.Call(func=func, args=list(args),
                     keywords=[gast.keyword(arg=k, value=v) for k, v in keywords])


def subscript(value, index, ctx=None):
    if isinstance(value, str):
        value = name(value)
    return gast.Subscript(value=value, slice=index, ctx=ctx or gast.Load())


def clone(node):
    """A deep copy of a node (or list of nodes), its s2sad_* marks included.
    Faster than copy.deepcopy, which the compiler calls thousands of times."""
    cls = node.__class__
    if cls is list:
        return [clone(n) for n in node]
    copy = _CLONERS.get(cls)
    if copy is None:
        copy = _cloner(cls)
    return copy(node)


# A function per node class copies a node: its attributes at once, then a
# copy of each field that holds nodes or a list, and of each mark (s2sad_*)
# that does; strings, numbers, None, contexts and operators are shared
# (never changed). A loop over every attribute was a tenth of generating W3.
_CLONERS = {}


def _cloner(cls):
    if not issubclass(cls, gast.AST) or issubclass(cls, _LEAVES):
        _CLONERS[cls] = _shared
        return _shared
    nodes = _CHILD_FIELDS.get(cls)
    if nodes is None:
        nodes = _child_fields(cls)
    lines = ["def clone_node(node):",
             "    new = new_node(cls)",
             "    fields = new.__dict__",
             "    fields.update(node.__dict__)"]
    for field in cls._fields:
        lines += [f"    value = fields.get({field!r})",
                  "    if value.__class__ is list:",
                  f"        fields[{field!r}] = [clone(v) for v in value]"]
        if field in nodes:
            lines += ["    elif value is not None:",
                      f"        fields[{field!r}] = clone(value)"]
    lines += ["    if fields.keys() <= standard:  # (no marks: most nodes; no set made)",
              "        return new",
              "    for key in fields.keys() - standard:",
              "        value = fields[key]",
              "        fields[key] = [clone(v) for v in value] if value.__class__ is list \\",
              "            else clone(value)",
              "    return new"]
    namespace = {"new_node": cls.__new__, "cls": cls, "clone": clone,
                 "standard": frozenset(cls._fields) | frozenset(getattr(cls, "_attributes", ()))}
    exec(compile("\n".join(lines), f"<clone of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    _CLONERS[cls] = copy = namespace["clone_node"]
    return copy


def _shared(node):
    return node


def walk(root):
    """Every node under `root`, itself included, in gast.walk's order
    (breadth first) but without contexts and operators (read them from
    their node: `n.ctx`, `n.op`); several times faster than gast.walk."""
    if root.__class__ is _NAME and getattr(root, "annotation", None) is None:
        return [root]  # (a third of the calls: targets, operands)
    todo = [root]
    get, append = _PUSHERS.get, todo.append
    name_class, constant_class = _NAME, _CONSTANT
    binop, subscript, attribute, unaryop = _BINOP, _SUBSCRIPT, _ATTRIBUTE, _UNARYOP
    for node in todo:  # appending while iterating: a breadth-first queue
        cls = node.__class__
        # (names and constants, most of the nodes, have no children to push;
        # the commonest others have fields that always hold one node: pushed
        # here without a call)
        if cls is name_class:
            if node.annotation is None:
                continue
        elif cls is constant_class:
            continue
        elif cls is binop:
            append(node.left)
            append(node.right)
            continue
        elif cls is subscript:
            append(node.value)
            append(node.slice)
            continue
        elif cls is attribute:
            append(node.value)
            continue
        elif cls is unaryop:
            append(node.operand)
            continue
        push = get(cls)
        if push is None:
            push = _pusher(cls)
        push(node, todo)
    return todo


# The passes walk tens of thousands of nodes per derivative (most of
# generating W3's source): a function per node class appends a node's
# children to a list, reading its child fields as plain attributes (a
# field a node lacks reads as None), which is several times faster than a
# loop over the field names with getattr.
_PUSHERS = {}
_NAME, _CONSTANT = gast.Name, gast.Constant
_BINOP, _SUBSCRIPT, _ATTRIBUTE, _UNARYOP = gast.BinOp, gast.Subscript, gast.Attribute, gast.UnaryOp
_LOAD, _STORE = gast.Load(), gast.Store()


def _pusher(cls):
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _child_fields(cls)
    lines = ["def push_children(node, todo):"]
    for field in fields:
        lines += [
            "    try:",
            f"        child = node.{field}",
            "    except AttributeError:",
            "        child = None",
            "    if child is not None:",
            "        if child.__class__ is list:  # of nodes; None for a missing one ({**d}'s key)",
            "            if None in child:",
            "                todo.extend(c for c in child if c is not None)",
            "            else:",
            "                todo += child",
            "        elif isinstance(child, node_class):",
            "            todo.append(child)"]
    if not fields:
        lines.append("    pass")
    namespace = {"node_class": gast.AST}
    exec(compile("\n".join(lines), f"<children of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    _PUSHERS[cls] = push = namespace["push_children"]
    return push


def children(node):
    """The nodes directly under `node`, in field order (no contexts or
    operators)."""
    out = []
    push = _PUSHERS.get(node.__class__)
    if push is None:
        push = _pusher(node.__class__)
    push(node, out)
    return out


def structure(node):
    """A hashable value, equal for trees that read the same (a key for
    comparing expressions; several times faster than unparsing them)."""
    if node.__class__ is list:
        return tuple(structure(n) for n in node)
    if not isinstance(node, gast.AST):
        return node
    if node.__class__ is gast.Constant:  # by text: 1, 1.0 and True differ
        return (gast.Constant, repr(node.value), node.kind)
    return (node.__class__,) + tuple(structure(getattr(node, f, None)) for f in node._fields)


_PARSED = {}


def parse_expr(src):
    """The expression `src` as a fresh tree (parsed once per distinct text)."""
    if src not in _PARSED:
        _PARSED[src] = parse(src).body[0].value
    return clone(_PARSED[src])


def parse_stmts(src):
    """The statements of `src` as fresh trees (parsed once per distinct text)."""
    if src not in _PARSED_STMTS:
        _PARSED_STMTS[src] = parse(src).body
    return clone(_PARSED_STMTS[src])


_PARSED_STMTS = {}


def is_atom(node):
    """A name, a constant, or a subscript of a name (indices are evaluated as
    plain integer expressions and never differentiated)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)


def base_name(node):
    """The variable an atom or assignment target refers to, or None."""
    cls = node.__class__  # (no pass subclasses gast's node classes)
    while cls is _SUBSCRIPT or cls is _ATTRIBUTE:
        node = node.value
        cls = node.__class__
    return node.id if cls is _NAME else None


def names_loaded(node):
    """Names read anywhere in `node` (a node or a list of nodes)."""
    # a depth-first walk that keeps only the names: the passes call this
    # thousands of times per derivative
    cls = node.__class__
    if cls is _CONSTANT:
        return set()
    if cls is _NAME and getattr(node, "annotation", None) is None:
        return {node.id} if node.ctx.__class__ is gast.Load else set()
    todo = list(node) if cls is list else [node]
    out = set()
    get, pop = _PUSHERS.get, todo.pop
    name_class, load_class, constant_class = gast.Name, gast.Load, _CONSTANT
    binop, subscript, attribute, append = _BINOP, _SUBSCRIPT, _ATTRIBUTE, todo.append
    while todo:
        n = pop()
        cls = n.__class__
        if cls is name_class:
            if n.ctx.__class__ is load_class:
                out.add(n.id)
            if n.annotation is None:
                continue
        elif cls is constant_class:
            continue
        elif cls is binop:
            append(n.left)
            append(n.right)
            continue
        elif cls is subscript:
            append(n.value)
            append(n.slice)
            continue
        elif cls is attribute:
            append(n.value)
            continue
        push = get(cls)
        if push is None:
            push = _pusher(cls)
        push(n, todo)
    return out


def rewrite(node, fn):
    """Replace every node under `node` bottom-up by `fn(node)` (which returns
    the node itself, or its replacement, which is not revisited); a light
    gast.NodeTransformer for the compiler's hot paths."""
    rewrite_children = _REWRITERS.get(node.__class__)
    if rewrite_children is None:
        rewrite_children = _children_rewriter(node.__class__)
    rewrite_children(node, fn)
    return fn(node)


_REWRITERS = {}  # (a function per node class, as _pusher's)


def _children_rewriter(cls):
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _child_fields(cls)
    lines = ["def rewrite_children(node, fn):"]
    for field in fields:
        lines += [
            "    try:",
            f"        child = node.{field}",
            "    except AttributeError:",
            "        child = None",
            "    if isinstance(child, list):",
            "        child[:] = [rewrite(c, fn) if isinstance(c, node_class) else c for c in child]",
            "    elif isinstance(child, node_class):",
            f"        node.{field} = rewrite(child, fn)"]
    if not fields:
        lines.append("    pass")
    namespace = {"node_class": gast.AST, "rewrite": rewrite}
    exec(compile("\n".join(lines), f"<rewrite children of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    _REWRITERS[cls] = rewrite_children = namespace["rewrite_children"]
    return rewrite_children


class Transformer(gast.NodeTransformer):
    """gast.NodeTransformer, faster: a visitor method is looked up once per
    node class, and generic_visit goes into the fields that can hold nodes
    other than contexts and operators (which a subclass may therefore not
    visit). The front end's passes transform every node of a function."""

    _visit_methods = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        leaves = [m for m in vars(cls) if m.startswith("visit_")
                  and issubclass(getattr(gast, m[6:], gast.AST), _LEAVES)]
        if leaves:
            raise S2sadTypeError(f"{cls.__name__}: Transformer does not visit {', '.join(leaves)}")
        if "generic_visit" in vars(cls) or "visit" in vars(cls):
            raise S2sadTypeError(f"{cls.__name__}: Transformer's visit and generic_visit are its own")
        cls._visit_methods = {}  # node class -> this class's visit_ method, or None

    def visit(self, node):
        cls = node.__class__
        methods = self._visit_methods
        method = methods.get(cls, False)
        if method is False:
            method = methods[cls] = getattr(type(self), "visit_" + cls.__name__, None)
        if method is not None:
            return method(self, node)
        visit_children = _VISITORS.get(cls)  # (generic_visit, without its call)
        if visit_children is None:
            visit_children = _children_visitor(cls)
        return visit_children(self, node)

    def generic_visit(self, node):
        visit_children = _VISITORS.get(node.__class__)
        if visit_children is None:
            visit_children = _children_visitor(node.__class__)
        return visit_children(self, node)


# generic_visit's work, as a function per node class (as _pusher's)
_VISITORS = {}


def _children_visitor(cls):
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _child_fields(cls)
    lines = ["def visit_children(visitor, node):"]
    for field in fields:
        lines += [
            "    try:",
            f"        old = node.{field}",
            "    except AttributeError:",
            "        old = None",
            "    if old.__class__ is list:",
            "        new_values = []",
            "        for value in old:",
            "            if isinstance(value, node_class):",
            "                value = visitor.visit(value)",
            "                if value is None:",
            "                    continue",
            "                if not isinstance(value, node_class):",
            "                    new_values.extend(value)",
            "                    continue",
            "            new_values.append(value)",
            "        old[:] = new_values",
            "    elif isinstance(old, node_class):",
            "        new_node = visitor.visit(old)",
            "        if new_node is None:",
            f"            delattr(node, {field!r})",
            "        else:",
            f"            node.{field} = new_node"]
    lines.append("    return node")
    namespace = {"node_class": gast.AST}
    exec(compile("\n".join(lines), f"<visit children of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    _VISITORS[cls] = visit_children = namespace["visit_children"]
    return visit_children


_CHILD_FIELDS = {}
_LEAVES = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)


# fields that never hold a node: strings, numbers, flags (walk visits
# thousands of names and constants per derivative; skipping these is most
# of its speed)
_SCALAR_FIELDS = {"id", "type_comment", "kind", "attr", "arg", "module", "level", "is_async",
                  "simple", "conversion", "tag", "kwd_attrs"}
_NAMED = ("FunctionDef", "AsyncFunctionDef", "ClassDef", "alias", "Global", "Nonlocal")


def _child_fields(cls):
    """The fields of a node class that can hold nodes other than contexts and
    operators (a context, an operator or a constant has none)."""
    if issubclass(cls, _LEAVES) or cls is gast.Constant:
        skip = set(cls._fields)
    else:
        skip = {"ctx", "op", "ops"} | _SCALAR_FIELDS
        if cls.__name__ in _NAMED:
            skip |= {"name", "names"}
    _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in skip)
    return _CHILD_FIELDS[cls]


def names_stored(node):
    """Names (re)bound or written into anywhere in `node` (a node or a list
    of nodes): assignment and loop targets, the bases of element writes,
    parameters."""
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for root in nodes:
        _stores(root, out)
    return out


def _stores(node, out):
    # The supported language binds names only in statements' targets
    # (comprehensions, lambdas and := are refused), so expressions are not
    # searched; anything else gets the full walk.
    cls = node.__class__  # (no pass subclasses gast's node classes)
    if cls is _ASSIGN:
        for t in node.targets:
            _target_stores(t, out)
    elif cls is _AUGASSIGN:
        b = base_name(node.target)
        if b:
            out.add(b)
    elif cls is _FOR:
        _target_stores(node.target, out)
        for s in node.body + node.orelse:
            _stores(s, out)
    elif cls is _IF or cls is _WHILE:
        for s in node.body + node.orelse:
            _stores(s, out)
    elif cls in _STORE_NOTHING:
        pass
    else:
        for n in walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param)):
                out.add(n.id)
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                b = base_name(n)
                if b:
                    out.add(b)
            elif isinstance(n, gast.AugAssign):
                b = base_name(n.target)
                if b:
                    out.add(b)


_ASSIGN, _AUGASSIGN, _FOR, _IF, _WHILE = gast.Assign, gast.AugAssign, gast.For, gast.If, gast.While
_STORE_NOTHING = frozenset({gast.Expr, gast.Return, gast.Pass, gast.Break, gast.Continue})


def _target_stores(target, out):
    cls = target.__class__
    if cls is _NAME:
        out.add(target.id)
    elif cls is _SUBSCRIPT:
        b = base_name(target)
        if b:
            out.add(b)
    elif isinstance(target, (gast.Tuple, gast.List)):
        for t in target.elts:
            _target_stores(t, out)
    elif isinstance(target, gast.Starred):
        _target_stores(target.value, out)


def own_nodes(tree):
    """The nodes of function `tree` outside the functions it defines (their
    defs included, their bodies not)."""
    todo = [tree]
    while todo:
        n = todo.pop()
        yield n
        if n is tree or not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef,
                                           gast.Lambda, gast.ClassDef)):
            todo.extend(gast.iter_child_nodes(n))


def own_blocks(stmts):
    """The blocks of statements of a function body `stmts`, nested ones
    included (try's handlers and finally too), but not those of functions
    or classes defined in it."""
    yield stmts
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            if getattr(s, field, None):
                yield from own_blocks(getattr(s, field))
        for handler in getattr(s, "handlers", None) or []:
            yield from own_blocks(handler.body)


def walk_stmts(stmts):
    """Every statement in `stmts`, nested blocks included, in source order."""
    for s in stmts:
        yield s
        # (no nested generator for a statement without blocks: most of them)
        body = getattr(s, "body", None)
        if body:
            yield from walk_stmts(body)
        orelse = getattr(s, "orelse", None)
        if orelse:
            yield from walk_stmts(orelse)


def binding_counts(stmts):
    """How many statements (assignments and for loops) bind each name;
    writes into an array's elements do not count."""
    counts = {}
    get, assign_class, for_class, name_class = counts.get, gast.Assign, gast.For, _NAME
    for s in walk_stmts(stmts):
        cls = s.__class__
        if cls is assign_class:
            targets = s.targets
        elif cls is for_class:
            targets = (s.target,)
        else:
            continue
        for t in targets:
            # (a name, the commonest target, without a walk)
            for n in (t,) if t.__class__ is name_class else walk(t):
                if n.__class__ is name_class and n.ctx.__class__ is gast.Store:
                    counts[n.id] = get(n.id, 0) + 1
    return counts


def names_bound_by(s):
    """Names a statement binds itself (not in its nested blocks, not the
    arrays it writes into)."""
    if isinstance(s, gast.Assign):
        return [n.id for t in s.targets for n in walk(t)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
    if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
        return [s.target.id]
    if isinstance(s, gast.For):
        return [n.id for n in walk(s.target) if isinstance(n, gast.Name)]
    return []


def callee_name(node):
    """`f` or `np.exp` for a call of a name or a module's function, else None."""
    if not isinstance(node, gast.Call):
        return None
    f = node.func
    if isinstance(f, gast.Name):
        return f.id
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
        return f"{f.value.id}.{f.attr}"
    return None


def parents_of(tree):
    """id(node) -> the node it is a child of, for every node under `tree`."""
    parents = {}
    for node in walk(tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def unit_range(it):
    """(start, stop) of `range(stop)`, `range(start, stop)` or
    `range(start, stop, 1)`; None for any other expression."""
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
            and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
        return None
    args = it.args
    if len(args) == 3 and not (isinstance(args[2], gast.Constant) and args[2].value == 1):
        return None
    return (const(0), args[0]) if len(args) == 1 else (args[0], args[1])
