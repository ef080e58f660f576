"""Container arguments (pytrees) flattened at the boundary.

An argument that is a dict, a NamedTuple, a list or a tuple holding floats
and arrays (nested) reaches the differentiating passes as one parameter per
leaf. First thing when the function is specialised (SPECIALISE,
pipeline.py), its tree is rewritten so that the reads of the container
become reads of those parameters: for `p` of
structure {"a": float, "b": array}, the parameters are `p_a, p_b` and

    p["a"]            ->  p_a
    w = p["b"][i]     ->  w = p_b[i]
    a, b = q          ->  a, b = q_0, q_1        (q a tuple, list or NamedTuple)
    layer = p["l1"]   ->  (dropped; layer["W"] -> p_l1_W)
    s.x               ->  s_x                    (s a NamedTuple)

A loop over a container (`for k, v in p.items()`, `for t in q`) is unrolled
first (container_loops.py). A tuple or list given whole to a call that is not
a Python helper (`np.concatenate(q)`) is the literal of its leaves' reads
(`np.concatenate((q_0, q_1))`), and `len(q)` its length. Anything else that touches a container, whole
or in part, is refused with the file, line and construct: passing it to a
call (a helper, `len`), a key that is not a constant, a method (`p.get`),
assigning to it or into it, returning it. The passes after this one would
otherwise see a value they cannot type, and a container's gradient cannot
be guessed.

A container passed whole to a Python helper (spread_copy) goes to a copy
of the helper flattened the same way:

    def predict(p, x):                    def predict_spread(p_W, p_b, x):
        return p["W"] @ x + p["b"]            return p_W @ x + p_b

    predict(params, x)            ->      predict_spread(params_W, params_b, x)

The container may be passed by keyword (`predict(x, params=p)`: moved to
its position first) and the other arguments too; a helper
that uses the container in a way flattening does not follow (writing into
it, passing it by keyword, iterating over it) is refused there, with its
own file and line."""
import ast
import inspect
import itertools
import linecache
import types

import gast

from .container_loops import Comprehensions, StructureQueries, unroll
from .container_types import fold_type_questions
from .structure import PytreeError, Structure, leaf_names, path_text
from ..read.read import readable_function
from ...emit.unparse import expr_source, stmt_source
from ...syntax import name, walk


def flatten_parameters(parsed, structures, parse):
    """Rewrite `parsed` (a ParsedFunction, changed in place) so that each
    parameter named in `structures` (name -> Structure) is replaced by its
    leaves. Returns {parameter: [leaf parameter names]}. `parse(fn)` reads a
    helper the container is passed to whole (its copy is flattened too)."""
    tree = parsed.tree
    fold_type_questions(tree, structures, parsed.resolve)
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | set(parsed.arg_names)
    leaves, params = {}, []
    for p in tree.args.args:
        if p.id not in structures:
            params.append(p)
            continue
        names = leaf_names(p.id, structures[p.id], taken)
        leaves[p.id] = names
        params += [gast.copy_location(name(n, gast.Param()), p) for n in names]
    tree.args.args = params
    _Rewrite(parsed, structures, leaves, parse).run()
    parsed.__dict__.pop("_locals", None)  # computed again from the new tree
    return leaves


class _Rewrite:
    def __init__(self, parsed, structures, leaves, parse):
        self.parsed, self.location, self.parse = parsed, parsed.location, parse
        # name -> (argument, path, structure) for the parameters and the
        # names bound to a part of one (aliases)
        self.trees = {a: (a, (), s) for a, s in structures.items()}
        self.leaf_of = {}
        for a, s in structures.items():
            for path, n in zip(s.leaf_paths(), leaves[a]):
                self.leaf_of[(a, path)] = n
        self.stores = _store_counts(parsed.tree)

    def run(self):
        tree = self.parsed.tree
        for a in list(self.trees):
            if self.stores.get(a):
                node = self.stores[a][1]
                self.refuse(node, f"assigning to '{a}'", a,
                            "Give the new value a name of its own")
        tree.body = self.block(tree.body)
        Comprehensions(self).visit(tree)  # [w * 2 for w in ws]: [ws[0] * 2, ws[1] * 2]
        StructureQueries(self).visit(tree)  # p.get('a', x), isinstance(p, dict)
        for n in walk(tree):  # a comprehension's or nested function's own name
            if isinstance(n, gast.Name) and n.id in self.trees and \
                    isinstance(n.ctx, (gast.Store, gast.Param)):
                self.refuse(n, f"'{n.id}' bound again (it names {self.trees[n.id][0]!r} or a "
                            f"part of it)", self.trees[n.id][0], "Use a name of its own")
        self.replace_reads(tree)

    # ---- statements --------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.For):
                copies = unroll(self, s)  # for k, v in p.items(): the body once per entry
                if copies is not None:
                    out += self.block(copies)
                    continue
            for field in ("body", "orelse"):
                if getattr(s, field, None):
                    setattr(s, field, self.block(getattr(s, field)) or [gast.Pass()])
            if isinstance(s, gast.Assign):
                part = self.part(s.value)
                if part is not None:
                    out += self.bind(s, part)
                    continue
            out.append(s)
        return out

    def bind(self, s, part):
        """`targets = <a part of a container>`: aliases and unpacking."""
        pairs = []
        for target in s.targets:
            self.match(s, target, part, pairs)
        if not pairs:
            return []
        targets = [t for t, _ in pairs]
        values = [v for _, v in pairs]
        if len(pairs) == 1:
            new = gast.Assign(targets=targets, value=values[0], type_comment=None)
        else:
            new = gast.Assign(targets=[gast.Tuple(elts=targets, ctx=gast.Store())],
                              value=gast.Tuple(elts=values, ctx=gast.Load()), type_comment=None)
        return [gast.copy_location(new, s)]

    def match(self, s, target, part, pairs):
        arg, path, structure = part
        if structure.is_leaf:
            pairs.append((target, self.leaf_read(arg, path, s)))
            return
        if isinstance(target, gast.Name):
            count, _ = self.stores.get(target.id, (0, None))
            if count != 1:
                self.refuse(s, f"'{target.id}', bound to {path_text(arg, path)} "
                            f"({structure.describe()}), assigned again", arg,
                            "Use a name of its own for each value")
            self.trees[target.id] = part
            return
        if isinstance(target, (gast.Tuple, gast.List)):
            if structure.node == "dataclass":
                self.refuse(s, f"unpacking {path_text(arg, path)} ({structure.describe()}, "
                            f"which Python does not iterate)", arg, "Read its fields: p.w")
            if structure.node == "dict":
                self.refuse(s, f"unpacking {path_text(arg, path)} (a dict: unpacking gives "
                            f"its keys)", arg, "Read its entries by key: p['a']")
            if len(target.elts) != len(structure.children):
                self.refuse(s, f"unpacking {path_text(arg, path)} ({structure.describe()} of "
                            f"{len(structure.children)}) into {len(target.elts)} names", arg,
                            "Unpack as many names as it holds")
            for t, k, c in zip(target.elts, structure.keys, structure.children):
                self.match(s, t, (arg, path + (k,), c), pairs)
            return
        self.refuse(s, f"storing {path_text(arg, path)} ({structure.describe()}) into "
                    f"{expr_source(target)}", arg, "Store its leaves (floats and arrays)")

    # ---- expressions -------------------------------------------------------
    def part(self, node):
        """(argument, path, structure) if `node` reads a container argument
        or a part of one (p, p['a'], p.x, p[0], q['l1']['W']); None if it
        does not start at one. Keys must be constants."""
        if isinstance(node, gast.Name):
            return self.trees.get(node.id)
        if isinstance(node, (gast.Subscript, gast.Attribute)):
            base = self.part(node.value)
            if base is None or base[2].is_leaf:
                return None
            arg, path, structure = base
            key = self.key(node, base)
            child = _view(structure, key) if isinstance(key, Sliced) else structure.child(key)
            if child is None:
                self.missing(node, base, key)
            return arg, path + (key,), child
        return None

    def key(self, node, base):
        arg, path, structure = base
        where = path_text(arg, path)
        if isinstance(node, gast.Attribute):
            if structure.node in ("namedtuple", "dataclass") and node.attr in structure.keys:
                return node.attr
            self.refuse(node, f"{where}.{node.attr} on {structure.describe()}", arg,
                        "Read its entries by constant key or field (p['a'], s.x, t[0])")
        index = node.slice
        if isinstance(index, gast.Slice) and structure.node in ("list", "tuple"):
            bounds = [None if b is None else _constant(b)
                      for b in (index.lower, index.upper, index.step)]
            given = [b is not None for b in (index.lower, index.upper, index.step)]
            if all(isinstance(b, int) or not g for b, g in zip(bounds, given)) and bounds[2] != 0:
                return Sliced(structure.keys[slice(*bounds)], expr_source(index))
            self.refuse(node, f"{where}[{expr_source(index)}] (a slice whose bounds are not "
                        f"constants)", arg, "Slice a container with constant bounds "
                        "(layers[:-1], params[1:])")
        value = _constant(index)
        if structure.node == "dict":
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return value
        elif isinstance(value, int) and not isinstance(value, bool) \
                and structure.node != "dataclass":  # (a dataclass has no positions)
            n = len(structure.children)
            if -n <= value < n:
                return structure.keys[value % n]
            self.refuse(node, f"{where}[{value}] ({structure.describe()} of {n} has no "
                        f"element {value})", arg, "Index it within its length")
        self.refuse(node, f"{where}[{expr_source(index)}] (a key that is not a constant)", arg,
                    "Index a container with a constant key (p['a'], t[0]); put values "
                    "indexed by a variable into one array")

    def missing(self, node, base, key):
        arg, path, structure = base
        self.refuse(node, f"{path_text(arg, path)}[{key!r}] (the dict has no key {key!r}; "
                    f"its keys: {', '.join(map(repr, structure.keys))})", arg,
                    "Use one of its keys")

    def leaf_read(self, arg, path, src):
        return gast.copy_location(name(self.leaf_of[(arg, _original(path))]), src)

    def replace_reads(self, root):
        """Replace every leaf read; refuse any other use of a container."""
        parents = {}
        for node in walk(root):
            for field, child in gast.iter_fields(node):
                if isinstance(child, list):
                    for c in child:
                        if isinstance(c, gast.AST):
                            parents[id(c)] = (node, field, child)
                elif isinstance(child, gast.AST):
                    parents[id(child)] = (node, field, None)
        todo, spread_literals = [root], set()
        while todo:
            node = todo.pop()
            if id(parents.get(id(node), (None,))[0]) in spread_literals:
                continue  # (an element of a literal given to a helper's copy whole)
            part = self.part(node) if isinstance(node, (gast.Name, gast.Subscript,
                                                        gast.Attribute)) else None
            if part is None:
                todo += [c for c in gast.iter_child_nodes(node)]
                continue
            arg, path, structure = part
            parent, field, seq = parents.get(id(node), (None, None, None))
            if not isinstance(getattr(node, "ctx", gast.Load()), gast.Load):
                self.refuse(node, f"writing {path_text(arg, path)} (a part of the container "
                            f"argument '{arg}')", arg,
                            "Compute the new value in a local variable")
            if not structure.is_leaf:
                if isinstance(parent, gast.Starred) and self.splice(node, parent, parents, part):
                    continue  # zip(*t): zip(t_0, t_1), the literals of its entries
                if isinstance(parent, gast.keyword):  # h(x, params=p): by position first
                    call = parents.get(id(parent), (None,))[0]
                    if isinstance(call, gast.Call) and _keyword_to_position(self.parsed, call, parent):
                        parent, field, seq = call, "args", call.args
                spread = self.spread_call(node, parent, seq, part)
                if spread:
                    continue
                if isinstance(parent, (gast.Tuple, gast.List)) \
                        and self.spread_literal(parent, parents.get(id(parent), (None,))[0]):
                    spread_literals.add(id(parent))  # h((params, x)): h's copy takes the leaves
                    continue
                literal = self.as_literal(node, parent, part)
                if literal is not None:  # np.concatenate(t): np.concatenate((t_0, t_1))
                    if seq is not None:
                        seq[seq.index(node)] = literal
                    else:
                        setattr(parent, field, literal)
                    continue
                self.refuse(node, self.whole_use(node, parent, part), arg,
                            "Read its leaves by constant keys (p['a'], t[0])")
            new = self.leaf_read(arg, path, node)
            if seq is not None:
                seq[seq.index(node)] = new
            else:
                setattr(parent, field, new)

    def spread_call(self, node, parent, seq, part):
        """`h(p, x)` with `p` a container and `h` a Python helper: the call
        goes to a copy of `h` that takes p's leaves as parameters
        (spread_copy, below). Whether it was rewritten."""
        if not (isinstance(parent, gast.Call) and seq is parent.args):
            return False
        copy = spread_copy(self.parsed, parent, parent.args.index(node), part[2], self.parse)
        if copy is None:
            return False
        ref, leaves = copy, [self.leaf_read(part[0], part[1] + path, node)
                             for path in part[2].leaf_paths()]
        k = parent.args.index(node)
        parent.args[k:k + 1] = leaves
        parent.func = gast.copy_location(name(ref), parent.func)
        return True

    def spread_literal(self, literal, call):
        """`h((params, x))`: a tuple or list literal holding a container,
        given to a Python helper, goes to a copy of `h` taking the literal's
        leaves (spread_copy). Whether it was rewritten."""
        if not (isinstance(call, gast.Call) and any(a is literal for a in call.args)):
            return False
        structure, leaves = self.literal_structure(literal)
        position = next(k for k, a in enumerate(call.args) if a is literal)
        ref = spread_copy(self.parsed, call, position, structure, self.parse)
        if ref is None:
            return False
        call.args[position:position + 1] = leaves
        call.func = gast.copy_location(name(ref), call.func)
        return True

    def literal_structure(self, literal):
        """(Structure, the leaves' expressions) of a tuple or list literal:
        a container part's leaves are its leaves' reads, anything else one
        leaf."""
        children, leaves = [], []
        for e in literal.elts:
            part = self.part(e) if isinstance(e, (gast.Name, gast.Subscript,
                                                  gast.Attribute)) else None
            if part is not None:
                children.append(part[2])
                leaves += [self.leaf_read(part[0], part[1] + p, e) for p in part[2].leaf_paths()]
            elif isinstance(e, (gast.Tuple, gast.List)):
                inner, more = self.literal_structure(e)
                children.append(inner)
                leaves += more
            else:
                children.append(Structure(node="leaf"))
                leaves.append(e)
        node = "tuple" if isinstance(literal, gast.Tuple) else "list"
        return Structure(node=node, keys=tuple(range(len(children))),
                         children=tuple(children)), leaves

    def splice(self, node, starred, parents, part):
        """`f(*t)` or `[*t, y]` of a tuple or list `t`: its entries' literals
        in place of the star (what the call or display gets in Python).
        Whether it was spliced."""
        holder, _, seq = parents.get(id(starred), (None, None, None))
        if seq is None or not isinstance(holder, (gast.Call, gast.Tuple, gast.List)):
            return False
        literal = self.literal_of(node, part)
        if not isinstance(literal, (gast.Tuple, gast.List)):
            return False
        k = next(i for i, e in enumerate(seq) if e is starred)
        seq[k:k + 1] = literal.elts
        return True

    def as_literal(self, node, parent, part):
        """A tuple or list (of tuples, lists and leaves) given whole to a
        call (np.concatenate(t), np.stack(ws), np.select(conds, t)) is the
        literal of its leaves' reads, which is what the call sees in
        Python; None for any other use, or another container."""
        if not (isinstance(parent, gast.Call) and node is not parent.func) \
                and not isinstance(parent, gast.keyword):
            return None
        return self.literal_of(node, part)

    def literal_of(self, node, part):
        """The display of a tuple or list part's leaves' reads, or None (a
        dict or a NamedTuple in it)."""
        arg, path, structure = part

        def literal(path, structure):
            if structure.is_leaf:
                return self.leaf_read(arg, path, node)
            if structure.node not in ("tuple", "list"):
                return None
            elts = [literal(path + (k,), c) for k, c in zip(structure.keys, structure.children)]
            if any(e is None for e in elts):
                return None
            kind = gast.Tuple if structure.node == "tuple" else gast.List
            return gast.copy_location(kind(elts=elts, ctx=gast.Load()), node)
        return literal(path, structure)

    def whole_use(self, node, parent, part):
        arg, path, structure = part
        what = f"{path_text(arg, path)} ({structure.describe()})"
        if isinstance(parent, gast.Call) and node is not parent.func:
            callee = expr_source(parent.func)
            if callee == "len":
                return f"len({path_text(arg, path)}) of {structure.describe()}"
            return f"{what} passed whole to {callee}()"
        if isinstance(parent, gast.keyword):
            return f"{what} passed whole as {parent.arg}="
        if isinstance(parent, gast.For) and node is parent.iter:
            return f"iterating over {what}"
        if isinstance(parent, gast.Return):
            return f"returning {what}"
        if parent is not None:
            text = stmt_source(parent) if isinstance(parent, gast.stmt) else expr_source(parent)
            return f"{what} used whole in `{text.strip()}`"
        return f"{what} used whole"

    def refuse(self, node, construct, arg, hint):
        where = self.location.describe(node if getattr(node, "lineno", None) else None)
        raise PytreeError(f"{where}: {construct}: s2sad flattens the container argument "
                          f"'{arg}' into its leaves (floats and arrays) and cannot follow "
                          f"this. {hint}. Pass its leaves as separate arguments where the code "
                          f"needs more.")


class Sliced(tuple):
    """A key standing for a constant slice of a list or tuple (`layers[:-1]`):
    the keys it selects, in order. The key after it in a path is a position
    in the slice (_original maps it back)."""

    def __new__(cls, keys, text):
        sliced = super().__new__(cls, keys)
        sliced.text = text
        return sliced

    def __repr__(self):
        return self.text  # (path_text: layers[:-1])


def _view(structure, sliced):
    """The structure of a slice of a list or tuple: its entries, renumbered."""
    return Structure(node=structure.node, keys=tuple(range(len(sliced))),
                     children=tuple(structure.child(k) for k in sliced),
                     type_name=structure.type_name)


def _original(path):
    """`path` with the positions in slices mapped to the container's keys."""
    out, view = [], None
    for key in path:
        if view is not None:
            key = Sliced([view[k] for k in key], key.text) if isinstance(key, Sliced) \
                else view[key]
            view = None
        if isinstance(key, Sliced):
            view = key
            continue
        out.append(key)
    return tuple(out)


def _keyword_to_position(parsed, call, keyword):
    """Move `keyword` (a container passed by name to a Python helper) into
    the call's positional arguments, with the keywords of the parameters
    before it, as Python binds them (`predict(u=x, params=p)` ->
    `predict(p, u=x)`). Whether it was moved (not when a parameter before
    it is left to its default, or the helper takes it by keyword only)."""
    try:
        fn = readable_function(parsed.resolve(call.func))
        params = list(inspect.signature(fn).parameters.values()) if fn else []
    except Exception:  # noqa: BLE001 - not a helper s2sad reads: refused by the caller
        return False
    positional = [q.name for q in params if q.kind == q.POSITIONAL_OR_KEYWORD]
    if keyword.arg not in positional or any(isinstance(a, gast.Starred) for a in call.args):
        return False
    by_name = {k.arg: k for k in call.keywords if k.arg is not None}
    before = positional[len(call.args):positional.index(keyword.arg)]
    if any(n not in by_name for n in before):
        return False
    for n in before + [keyword.arg]:
        call.args.append(by_name[n].value)
        call.keywords.remove(by_name[n])
    return True


def _constant(node):
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and isinstance(node.operand.value, int):
        return -node.operand.value
    return None


def _store_counts(tree):
    """name -> (how many times it is bound, the first statement binding it)."""
    counts = {}
    for node in walk(tree):
        for n in _bound(node):
            c, first = counts.get(n, (0, node))
            counts[n] = (c + 1, first)
    return counts


def _bound(node):
    if isinstance(node, gast.Assign):
        return [n.id for t in node.targets for n in walk(t)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
    if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
        return [node.target.id]
    if isinstance(node, (gast.For, gast.AnnAssign)):
        return [n.id for n in walk(node.target) if isinstance(n, gast.Name)]
    return []


# ---- a container passed whole to a helper --------------------------------------

_COUNT = itertools.count()
_COPIES = {}  # (helper, its source, position, structure) -> the copy
_MAKING = {}  # the keys of the copies being made -> their names (a helper calling itself)
_Making = type("_Making", (str,), {})  # (the name of a copy being made)


def spread_copy(parsed, call, position, structure, parse, taken=()):
    """The name (bound in `parsed.namespace`) of the copy of the helper
    `call` calls, taking the container at `position` as its leaves; None if
    the callee is not a Python helper s2sad reads. The name is none of
    `taken` (a Namer's names, which it joins when it is a set). `parse(fn)`
    reads the helper as the front end reads a function."""
    try:
        fn = readable_function(parsed.resolve(call.func))
    except Exception:  # noqa: BLE001 - not a helper: refused by the caller
        return None
    # (keywords name parameters after the container, or keyword-only ones:
    # the copy has them too, under the same names)
    if fn is None or any(k.arg is None for k in call.keywords) \
            or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    copy = _copy(fn, position, structure, parse)
    if isinstance(copy, _Making):  # the copy being made calls itself (hmm_em): bound when made
        parsed.namespace[copy] = copy
        if isinstance(taken, set):
            taken.add(str(copy))
        return str(copy)
    if copy is None:
        return None
    ref = next((k for k, v in parsed.namespace.items() if v is copy), None)
    if ref is None:
        used = set(parsed.namespace) | set(taken) | {n.id for n in walk(parsed.tree)
                                                     if isinstance(n, gast.Name)}
        ref, k = copy.__name__, 1
        while ref in used:
            ref, k = f"{copy.__name__}{k + 1}", k + 1
        parsed.namespace[ref] = copy
    if isinstance(taken, set):
        taken.add(ref)  # (a temporary named later must not shadow it)
    return ref


def _copy(fn, position, structure, parse):
    try:
        key = (fn, inspect.getsource(fn), position, structure)
    except (OSError, TypeError):
        return None
    if key in _MAKING or key in _COPIES:  # (being made: the helper calls itself)
        return _MAKING.get(key) or _COPIES[key]
    # (a name per structure: autograd's flatten recursing into parts, a copy per part)
    others = sum(1 for k in list(_COPIES) + list(_MAKING) if k[0] is fn)
    try:  # (a lambda's "<lambda>": lambda_fn)
        _MAKING[key] = _Making((fn.__name__ if fn.__name__.isidentifier() else "lambda_fn")
                               + "_spread" + (str(others + 1) if others else ""))
        return _made_copy(fn, position, structure, parse, key)
    finally:
        del _MAKING[key]


def _made_copy(fn, position, structure, parse, key):
    parsed = parse(fn)
    params = parsed.tree.args.args
    if position >= len(params) or fn.__closure__:
        return None
    flatten_parameters(parsed, {params[position].id: structure}, parse)
    tree = parsed.tree
    name = tree.name = str(_MAKING[key])
    text = ast.unparse(gast.gast_to_ast(gast.Module(body=[tree], type_ignores=[])))
    head, _, body = text.partition(":\n")
    doc = (f"    \"\"\"{fn.__name__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno}), "
           f"taking the leaves of its parameter {params[position].id!r}.\"\"\"\n")
    text = head + ":\n" + doc + body + "\n"
    filename = f"<s2sad: {fn.__name__} taking a container's leaves, #{next(_COUNT)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    fn_code = next(c for c in code.co_consts if inspect.iscode(c) and c.co_name == name)
    # the copies of helpers it passes the container on to (inner_spread) are
    # names of the flattened tree's namespace, not of the helper's module
    added = {k: v for k, v in parsed.namespace.items() if k not in fn.__globals__}
    namespace = dict(fn.__globals__, **added) if added else fn.__globals__
    copy = types.FunctionType(fn_code, namespace, name, _defaults(fn, tree))
    if isinstance(namespace.get(name), _Making):
        namespace[name] = copy  # (it calls itself)
    _COPIES[key] = copy
    return copy


def _defaults(fn, tree):
    """The copy's defaults: the helper's, by name, for the run of parameters
    with one at the end of the copy's parameters (source.positional_parameters
    made keyword-only ones plain: `fn.__defaults__` does not line up)."""
    given = {q.name: q.default for q in inspect.signature(fn).parameters.values()
             if q.default is not q.empty}
    tail = []
    for p in reversed(tree.args.args):
        if p.id not in given:
            break
        tail.append(given[p.id])
    return tuple(reversed(tail)) or None
