"""The part of s2sad's runtime an exported derivative calls, as source.

The runtime modules (s2sad.runtime's and the modules it re-exports) are read
statement by statement: a function, a class, an assignment, an import, a
registration with numba. Starting from the names the derivative reads,
the statements defining them are taken, then what their own code reads
(names, and names written as strings), and the registrations of what was
taken: a helper's numba overload (`@overload(unbroadcast)`), a call made
for its effect on a helper (`_reduction(sum_kept, ...)`), and numba's
implementation of a numpy function (`@overload(np.dot)`, of stacks) when
the code taken calls that function (`@` for operator.matmul).

Modules are copied into one namespace: where two define a name
differently (each its own private `_matrices`), or the derivative defines
it too, the one the derivative does not call is renamed in its
statements. numba's implementation of a numpy function is registered by
`_overload_once`, copied in: a process that has it already (from s2sad,
or from another exported derivative) would otherwise type each call with
two of them."""
import ast
import copy
import importlib
import inspect
import keyword

_FACE = "runtime"  # the module generated code imports its helpers from
_OVERLOAD = "numba.extending.overload"

# s2sad.lazy_numba's names, as numba's own: an exported derivative imports
# numba when it is imported (no s2sad to defer it)
NUMBA_NAMES = {
    "overload": ("numba.extending", "overload"),
    "register_jitable": ("numba.extending", "register_jitable"),
    "get_cython_function_address": ("numba.extending", "get_cython_function_address"),
    "types": ("numba.core", "types"),
    "as_dtype": ("numba.np.numpy_support", "as_dtype"),
    "numba": (None, "numba"),
}


def _numba_import(node, alias):
    """`from s2sad.lazy_numba import x` as the import of numba's own x."""
    module, name = NUMBA_NAMES[alias.name]
    local = alias.asname or alias.name
    if module is None:
        new = ast.Import(names=[ast.alias(name=name, asname=None if local == name else local)])
    else:
        new = ast.ImportFrom(module=module, names=[ast.alias(
            name=name, asname=None if local == name else local)], level=0)
    return ast.copy_location(new, node)


def _overload_once(target, implementation, **options):
    """numba's implementation of `target` (a numpy function) for the types
    `implementation` accepts, unless numba has one of that name already:
    s2sad's own, or another exported derivative's, in this process."""
    from numba.extending import overload
    try:
        from numba.core.typing.templates import builtin_registry
        for function, kind in builtin_registry.globals:
            if function is target and any(
                    getattr(getattr(t, "_overload_func", None), "__name__", None)
                    == implementation.__name__ for t in getattr(kind, "templates", ())):
                return
    except (ImportError, AttributeError, TypeError):  # (another numba: register it)
        pass
    overload(target, **options)(implementation)


def runtime_source(generated_source):
    """The statements of s2sad's runtime that the generated module's code
    needs, as the text of a module section (its own imports first)."""
    modules = _Modules()
    tree = ast.parse(generated_source)
    derivative = _Unit("<derivative>", -1, tree, None)
    derivative.analyse(_imports_of(tree))
    taken = _defined_at_top(tree)
    derivative.reads -= set(taken)  # (its own functions and constants)
    units = modules.closure(derivative)
    return modules.emit(units, derivative, taken)


class _Unit:
    """One top-level statement of a runtime module and what it needs."""

    def __init__(self, module, index, node, lines):
        self.module, self.index, self.node, self.lines = module, index, node, lines
        self.defines = set()
        self.reads = set()      # names loaded, and names written as strings
        self.keys = set()       # dotted names of other modules' objects read ("numpy.dot")
        self.registers = None   # ("name", helper) or ("key", "numpy.dot"): an overload
        self.effect_on = set()  # a call made for its effect: the helpers it is given
        self.effect_callees = set()  # (and those its functions register overloads of)
        self.overload = None    # the decorator or call registering it (`overload(...)`)

    def analyse(self, imports):
        node = self.node
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            self.defines.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.defines.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif not isinstance(node, ast.Module):
            self.defines.update(n.id for n in _top_level_stores(node))
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                self.reads.add(n.id)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) \
                    and n.value.isidentifier() and not keyword.iskeyword(n.value):
                self.reads.add(n.value)  # (names looked up by their text)
            elif isinstance(n, ast.Attribute):
                dotted = _dotted(n, imports)
                if dotted:
                    self.keys.add(dotted)
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
                self.keys.add("operator.matmul")
        self._registration(imports)

    def _registration(self, imports):
        node = self.node
        calls = []
        if isinstance(node, ast.FunctionDef):
            calls = [d for d in node.decorator_list if isinstance(d, ast.Call)]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Call):
            calls = [node.value.func]  # overload(target)(implementation)
        elif isinstance(node, (ast.Expr, ast.For, ast.While, ast.If, ast.With)):
            # calls made for their effect (`_reduction(sum_kept, ...)`, a loop
            # registering overloads): on the helpers they are given
            callees = [c.func for c in ast.walk(node) if isinstance(c, ast.Call)]
            self.effect_callees = {f.id for f in callees if isinstance(f, ast.Name)}
            self.effect_on = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                              and n.id not in self.effect_callees}
        for call in calls:
            if _dotted(call.func, imports) == _OVERLOAD and call.args:
                target = call.args[0]
                self.overload = call
                self.registers = ("name", target.id) if isinstance(target, ast.Name) else \
                    ("key", _dotted(target, imports))

    @property
    def source(self):
        """The statement's text as written (decorators included); an import
        of the one name it stands for."""
        if isinstance(self.node, (ast.Import, ast.ImportFrom)):
            return ast.unparse(self.node)
        first = min([self.node.lineno] + [d.lineno for d in getattr(
            self.node, "decorator_list", [])])
        return "\n".join(self.lines[first - 1:self.node.end_lineno])


class _Module:
    def __init__(self, name):
        self.name = name
        module = importlib.import_module(f"{__package__}.{name}")
        lines = inspect.getsource(module).splitlines()
        tree = ast.parse("\n".join(lines))
        self.units, self.defining = [], {}
        self.aliases = {}  # name -> (runtime module, its name there)
        self.imports = {}  # name -> the dotted name of the module or object it imports
        package = name.split(".") if hasattr(module, "__path__") else name.split(".")[:-1]
        # runtime modules whose names this one re-exports (those it re-exports
        # at their first use too, as if by a star import)
        self.stars = [".".join(package + [late]) for late in getattr(module, "LATE_MODULES", ())]
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level:
                source = ".".join(package[:len(package) - node.level + 1] + [node.module]) \
                    if node.module else None
                for a in node.names:
                    if a.name == "*":
                        self.stars.append(source)
                    elif source:
                        self.aliases[a.asname or a.name] = (source, a.name)
                continue  # (`from . import base`: the re-exports' bookkeeping)
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:  # one statement per name: taken one by one
                    single = copy.copy(node)
                    single.names = [a]
                    if isinstance(node, ast.ImportFrom) and node.module == "s2sad.lazy_numba":
                        single = _numba_import(node, a)
                    b = single.names[0]
                    local = b.asname or b.name.split(".")[0]
                    self.imports[local] = b.name if isinstance(single, ast.Import) and b.asname \
                        else local if isinstance(single, ast.Import) \
                        else f"{single.module}.{b.name}"
                    self._add(single, lines)
                continue
            if _is_docstring(node) or "__all__" in {n.id for n in _top_level_stores(node)}:
                continue
            self._add(node, lines)
        for unit in self.units:
            unit.analyse(self.imports)
            for name in unit.defines:
                self.defining.setdefault(name, []).append(unit)
        for unit in self.units:  # `_register_overloads()`: on what its function registers
            for callee in unit.effect_callees:
                for u in self.defining.get(callee, []):
                    unit.effect_on |= _registered_in(u.node, self.imports)

    def _add(self, node, lines):
        self.units.append(_Unit(self.name, len(self.units), node, lines))


class _Modules:
    def __init__(self):
        self.by_name = {}
        self.order = []
        self._load(_FACE)

    def _load(self, name):
        if name in self.by_name:
            return
        module = self.by_name[name] = _Module(name)
        for other in module.stars + [m for m, _ in module.aliases.values()]:
            self._load(other)
        # after the modules it imports from; the face's own helpers first (it
        # defines them before it imports the modules it re-exports)
        self.order.insert(0 if name == _FACE else len(self.order), name)

    def resolve(self, module, name, seen=()):
        """The units defining `name` as `module` sees it, with the name they
        define it by."""
        if (module, name) in seen or module not in self.by_name:
            return []
        seen = seen + ((module, name),)
        m = self.by_name[module]
        if name in m.defining:
            return [(u, name) for u in m.defining[name]]
        if name in m.aliases:
            return self.resolve(*m.aliases[name], seen)
        for star in m.stars:
            found = self.resolve(star, name, seen)
            if found:
                return found
        return []

    def closure(self, derivative):
        """The units the derivative needs, in the order they run."""
        taken, keys, todo = set(), set(derivative.keys), [derivative]
        registrations = [u for m in self.by_name.values() for u in m.units
                         if u.registers or u.effect_on]
        while todo:
            while todo:
                unit = todo.pop()
                if unit in taken:
                    continue
                taken.add(unit)
                keys |= unit.keys
                module = _FACE if unit is derivative else unit.module
                todo += [u for name in unit.reads for u, _ in self.resolve(module, name)]
            for unit in registrations:
                if unit not in taken and self._applies(unit, taken, keys):
                    todo.append(unit)
        taken.discard(derivative)
        rank = {m: k for k, m in enumerate(self.order)}
        imports = sorted((u for u in taken if isinstance(u.node, (ast.Import, ast.ImportFrom))),
                         key=lambda u: (isinstance(u.node, ast.ImportFrom), u.source))
        return imports + sorted(set(taken) - set(imports), key=lambda u: (rank[u.module], u.index))

    def _applies(self, unit, taken, keys):
        if unit.registers is not None:
            kind, target = unit.registers
            if kind == "key":
                return target in keys
            return any(u in taken for u, _ in self.resolve(unit.module, target))
        return any(u in taken and not isinstance(u.node, (ast.Import, ast.ImportFrom))
                   for name in unit.effect_on for u, _ in self.resolve(unit.module, name))

    def emit(self, units, derivative, taken_names):
        names = self._names(units, derivative, taken_names)
        parts, seen, imports = [], set(), 0
        for unit in units:
            renames = {}
            for name in unit.defines:
                renames[name] = names.get((unit.module, name), name)
            for name in unit.reads:
                for u, defined in self.resolve(unit.module, name)[:1]:
                    renames[name] = names.get((u.module, defined), name)
            text = _text(unit, {k: v for k, v in renames.items() if k != v})
            if text in seen:
                continue  # (the same import, or the same private helper, of two modules)
            seen.add(text)
            parts.append(text)
            imports += isinstance(unit.node, (ast.Import, ast.ImportFrom))
        if any(u.registers and u.registers[0] == "key" for u in units):
            parts.insert(imports, inspect.getsource(_overload_once).strip())
        return _joined(parts)

    def _names(self, units, derivative, taken_names):
        """(module, name) -> the name it is emitted under, where modules
        define a name differently (or the derivative defines it): the
        definition the derivative calls keeps it."""
        called = {(u.module, n) for name in derivative.reads
                  for u, n in self.resolve(_FACE, name)}
        groups = {}  # name -> module -> its units defining it
        for unit in units:
            for name in unit.defines:
                groups.setdefault(name, {}).setdefault(unit.module, []).append(unit)
        used = set(taken_names) | set(groups)
        out = {}
        for name, by_module in groups.items():
            identity = {m: tuple(_identity(u) for u in us) for m, us in by_module.items()}
            kept = [m for m in by_module if (m, name) in called] or list(by_module)[:1]
            plain = {taken_names[name]} if name in taken_names else {identity[m] for m in kept}
            for module in by_module:
                if identity[module] in plain:
                    continue
                new = f"{name}_{module.rsplit('.', 1)[-1]}"
                while new in used:
                    new += "_"
                used.add(new)
                out[(module, name)] = new
        return out


def _identity(unit):
    return ast.dump(unit.node)


def _text(unit, renames):
    if not renames and not (unit.registers and unit.registers[0] == "key"):
        return unit.source
    node = _Renamed(renames).visit(copy.deepcopy(unit.node)) if renames else unit.node
    if unit.registers and unit.registers[0] == "key":
        return _registered_once(unit, node)
    return ast.unparse(node)


def _registered_once(unit, node):
    """An overload of a numpy function through `_overload_once`."""
    call = unit.overload
    if isinstance(node, ast.FunctionDef):
        node = copy.copy(node)
        node.decorator_list = [d for d in node.decorator_list
                               if ast.dump(d) != ast.dump(call)]
        implementation = ast.Name(id=node.name, ctx=ast.Load())
        before = [node]
    else:
        implementation, before = node.value.args[0], []
    register = ast.Expr(value=ast.Call(
        func=ast.Name(id="_overload_once", ctx=ast.Load()),
        args=[call.args[0], implementation], keywords=call.keywords))
    return "\n\n\n".join([ast.unparse(n) for n in before] + [ast.unparse(register)])


class _Renamed(ast.NodeTransformer):
    """The module-level names `renames` maps, renamed (not a function's own
    parameters and variables of those names)."""

    def __init__(self, renames):
        self.renames = renames

    def visit_Name(self, node):
        node.id = self.renames.get(node.id, node.id)
        return node

    def visit_FunctionDef(self, node):
        node.name = self.renames.get(node.name, node.name)
        for d in node.decorator_list:
            self.visit(d)
        local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} | {
            n.id for n in _top_level_stores(node)}
        outer, self.renames = self.renames, {k: v for k, v in self.renames.items()
                                             if k not in local}
        node.args = self.visit(node.args)
        node.body = [self.visit(b) for b in node.body]
        self.renames = outer
        return node

    def visit_Constant(self, node):
        if isinstance(node.value, str) and node.value in self.renames:
            node.value = self.renames[node.value]
        return node


def _registered_in(function, imports):
    """The names of the helpers a function registers overloads of."""
    return {c.args[0].id for c in ast.walk(function) if isinstance(c, ast.Call) and c.args
            and isinstance(c.args[0], ast.Name) and (_dotted(c.func, imports) == _OVERLOAD or (
                isinstance(c.func, ast.Name) and c.func.id == "overload"))}


def _dotted(node, imports):
    """`np.linalg.inv` as "numpy.linalg.inv" (through the module's imports)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imports:
        return None
    return ".".join([imports[node.id]] + parts[::-1])


def _imports_of(tree):
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                    a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _defined_at_top(tree):
    """What the generated module defines (not what it imports from the
    runtime): name -> how (as `_identity` gives a definition)."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == f"{__package__}.{_FACE}":
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                single = copy.copy(node)
                single.names = [a]
                names[a.asname or a.name.split(".")[0]] = (ast.dump(single),)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = (ast.dump(node),)
        else:
            names.update((n.id, (ast.dump(node),)) for n in _top_level_stores(node))
    return names


def _top_level_stores(node):
    """The names a module-level statement binds (not those of the
    functions it defines)."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.append(n)
        if n is node or not isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _is_docstring(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


def _joined(parts):
    """Imports one a line, then each statement apart (two blank lines
    around definitions, as PEP 8 has them)."""
    out = []
    for text in parts:
        simple = not text.startswith(("def ", "class ", "@"))
        if out and not (simple and out[-1][1]):
            out.append(("\n", simple))
        out.append((text, simple))
    return "\n".join(t for t, _ in out) + "\n"
