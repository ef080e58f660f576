"""float32: a derivative computes in its arguments' precision.

A call whose float arguments are all float32 (NumPy scalars or arrays;
Python floats are "weak" and take the other arguments' precision, as in
NumPy 2 and JAX) gets a derivative that computes in float32: its value,
tapes, adjoints and gradients are float32. numba types a float literal as
float64 and `np.zeros(n)` as a float64 array, and a float64 operand makes
the whole expression float64; so the generated module of a float32
derivative spells its constants `np.float32(1.0)` and gives allocations
`dtype=np.float32`. The rewrite works on the module's tokens, so the
comments and layout of the generated source stay as they are. Mixed
float32 and float64 arguments follow NumPy's promotion (float64), and each
gradient is returned in its argument's dtype."""
import ast

import numpy as np

# numpy allocations whose default dtype is float64
_ALLOCATIONS = {"zeros", "ones", "empty", "full", "eye", "identity", "linspace"}
_TYPE = "np.float32"
_CONSTANTS = {"pi", "e", "tau", "inf", "nan", "euler_gamma"}


def working_dtype(values):
    """"float32" when the float arguments (leaves) are all float32, else
    None (float64: the generated code as it always was)."""
    seen = set()
    for v in values:
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            seen.add(v.dtype)
        elif isinstance(v, np.floating):
            seen.add(v.dtype)
    return "float32" if seen == {np.dtype(np.float32)} else None


def cast_like(g, arg):
    """A gradient in its argument's kind and dtype: float32 for a float32 argument
    (a mixed float32/float64 call computes in float64), a NumPy float32
    scalar for a np.float32 one."""
    if isinstance(g, np.ndarray) and g.ndim == 0 and not isinstance(arg, np.ndarray):
        g = g[()]  # a number's gradient is a number (a rule may give a 0-d array)
    dtype = getattr(arg, "dtype", None)
    if dtype is None or dtype.kind != "f":
        return g
    if isinstance(g, np.ndarray):
        return g if g.dtype == dtype or g.ndim != np.ndim(arg) else g.astype(dtype)
    if isinstance(g, (float, np.floating)) and not isinstance(arg, np.ndarray):
        return dtype.type(g)
    return g


def scalars_as(value, dtype):
    """Python floats in `value` (a float or a tuple) as NumPy scalars of
    `dtype`."""
    if isinstance(value, tuple):
        return tuple(scalars_as(v, dtype) for v in value)
    return np.dtype(dtype).type(value) if type(value) is float else value


def to_float32(source):
    """The generated module `source`, computing in float32: float literals
    become np.float32(...), and so do int literals that are an operand of
    arithmetic with a value not known to be an int (numba computes float32
    * 3 in float64); float64 allocations get dtype=np.float32 and float(...)
    becomes np.float32(...). Edits are made in place in the text, so
    comments and layout stay as they are."""
    tree = ast.parse(source)
    edits = []  # ((line, col), (line, col), text)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    int_params = _int_parameters(functions)
    for fn in functions or [tree]:
        _Float32(source, _int_names(fn, int_params.get(getattr(fn, "name", None), ())),
                 edits).visit(fn)
    for n in tree.body:  # module constants: DT = 0.01
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant):
            _Float32(source, set(), edits).visit(n)
    lines = source.splitlines(keepends=True)
    for (r1, c1), (r2, c2), text in sorted(edits, reverse=True):
        assert r1 == r2
        line = lines[r1 - 1].encode()
        lines[r1 - 1] = (line[:c1] + text.encode() + line[c2:]).decode()
    out = "".join(lines)
    if "import numpy as np" not in out:
        first = out.index("\nimport ") + 1 if "\nimport " in out else out.index("\n\n\n") + 2
        out = out[:first] + "import numpy as np\n" + out[first:]
    return out


def _is_number(node, kind):
    return isinstance(node, ast.Constant) and type(node.value) is kind


class _Float32(ast.NodeVisitor):
    def __init__(self, source, ints, edits):
        self.source, self.ints, self.edits = source, ints, edits
        self.index_depth = 0  # inside a subscript's index or a shape argument

    def wrap(self, node):
        self.edits.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset),
                           f"{_TYPE}({ast.get_source_segment(self.source, node)})"))

    def visit_Constant(self, node):
        if type(node.value) is float:
            self.wrap(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in ("np", "math") and \
                node.attr in _CONSTANTS:
            self.wrap(node)  # math.pi is a float64
        else:
            self.visit(node.value)

    def visit_Subscript(self, node):
        self.visit(node.value)
        self.index_depth += 1
        self.visit(node.slice)
        self.index_depth -= 1

    def visit_Call(self, node):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if isinstance(f, ast.Attribute) and f.attr == "float32":
            return  # already np.float32(...)
        if isinstance(f, ast.Name) and f.id == "float":
            self.edits.append(((f.lineno, f.col_offset), (f.end_lineno, f.end_col_offset), _TYPE))
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "np" \
                and name in _ALLOCATIONS and not any(k.arg == "dtype" for k in node.keywords):
            self.edits.append(((node.end_lineno, node.end_col_offset - 1),
                               (node.end_lineno, node.end_col_offset - 1), f", dtype={_TYPE}"))
        self.visit(f)
        # (sizes, and the byte counts of a memory check: ints)
        shape_like = name in ("range", "int", "len", "check_memory") or name in _ALLOCATIONS
        self.index_depth += shape_like
        for a in node.args + [k.value for k in node.keywords]:
            self.visit(a)
        self.index_depth -= shape_like

    def visit_BinOp(self, node):
        wrapped = []
        if not self.index_depth and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            for mine, other in ((node.left, node.right), (node.right, node.left)):
                if _is_int(mine, self.ints) and not _is_int(other, self.ints):
                    self.wrap(mine)  # an int with a float: numba would make it float64
                    wrapped.append(mine)
        for child in (node.left, node.right):
            if child not in wrapped:
                self.visit(child)


def _int_parameters(functions):
    """{function name: the names in it known to hold ints because of other
    functions}: its parameters to which every call in the module passes an
    int (`lo` and `hi` of `def halves(v, lo, hi)` called as halves(v, 0, n)
    and halves(v, lo, mid) with mid = (lo + hi) // 2), and the items it
    unpacks from a record list (`a, mid = records.pop()`) that every
    `records.append((..))` in the module gives an int. Without them a
    parameter never used as an index counted as a float, and `hi - lo`
    became `hi - np.float32(lo)`. A greatest fixpoint (everything an int
    until a value not known to be one is passed), so recursion settles. A
    function never called in the module (the entry, called from Python) or
    named other than in a call (passed as a value) gets no parameters."""
    defs = {fn.name: fn for fn in functions}
    calls = {name: [] for name in defs}  # name -> [(caller, Call)]
    appends = {}  # record list -> [(caller, Tuple appended)]
    passed = set()
    for fn in functions:
        called = set()
        for n in ast.walk(fn):
            if not isinstance(n, ast.Call):
                continue
            called.add(id(n.func))
            if isinstance(n.func, ast.Name) and n.func.id in defs:
                calls[n.func.id].append((fn.name, n))
            elif _appended_tuple(n) is not None:
                appends.setdefault(n.func.value.id, []).append((fn.name, n.args[0]))
        passed |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in defs
                   and id(n) not in called}
    params = {}
    for name, fn in defs.items():
        a = fn.args
        if calls[name] and name not in passed and not (a.vararg or a.kwarg):
            params[name] = {arg.arg for arg in a.posonlyargs + a.args + a.kwonlyargs}
    records = {lst: set(range(min(len(t.elts) for _, t in tuples)))
               for lst, tuples in appends.items()
               if len({len(t.elts) for _, t in tuples}) == 1}
    for _ in range(8):
        ints = {name: _int_names(defs[name], _known(name, params, records)) for name in defs}
        changed = False
        for name, known in params.items():
            for caller, call in calls[name]:
                for param, value in _bound(defs[name].args, call):
                    if param in known and not _is_int(value, ints[caller]):
                        known.discard(param)
                        changed = True
        for lst, positions in records.items():
            for caller, t in appends[lst]:
                for k in list(positions):
                    if not _is_int(t.elts[k], ints[caller]):
                        positions.discard(k)
                        changed = True
        if not changed:
            break
    return {name: _known(name, params, records) for name in defs}


def _known(name, params, records):
    """The names `_int_parameters` knows to be ints in function `name`."""
    return set(params.get(name, ())) | {f"{lst}.pop()[{k}]" for lst, positions in records.items()
                                        for k in positions}


def _appended_tuple(call):
    """`L.append((a, b, ...))`: the call appends a tuple literal to a name."""
    f = call.func
    return call if isinstance(f, ast.Attribute) and f.attr == "append" and \
        isinstance(f.value, ast.Name) and len(call.args) == 1 and \
        isinstance(call.args[0], ast.Tuple) and not call.keywords else None


def _bound(args, call):
    """(parameter, the value a call gives it) for each parameter: the call's
    argument, else the parameter's default (a starred argument: Ellipsis,
    not an int)."""
    positional = args.posonlyargs + args.args
    given = {}
    starred = any(isinstance(a, ast.Starred) for a in call.args) or \
        any(k.arg is None for k in call.keywords)
    for param, value in zip(positional, call.args):
        given[param.arg] = value
    for k in call.keywords:
        if k.arg is not None:
            given[k.arg] = k.value
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(args.defaults):]],
                        args.defaults))
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    unknown = ast.Constant(Ellipsis)
    for param in positional + args.kwonlyargs:
        value = given.get(param.arg, defaults.get(param.arg, unknown))
        yield param.arg, unknown if starred else value


def _int_names(fn, params=()):
    """Names that hold ints: loop counters over range, names bound to int
    expressions, names used in indices, range() or shapes; and `params`
    (the parameters every call passes an int)."""
    ints = set(params)
    for n in ast.walk(fn):
        if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and \
                getattr(n.iter.func, "id", "") == "range":
            ints |= {t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)}
        elif isinstance(n, ast.Subscript):
            ints |= {t.id for t in ast.walk(n.slice) if isinstance(t, ast.Name)}
        elif isinstance(n, ast.Call) and getattr(n.func, "id", "") == "range":
            ints |= {t.id for a in n.args for t in ast.walk(a) if isinstance(t, ast.Name)}
    for _ in range(4):  # bindings of int expressions, to a fixpoint
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                target, value = n.targets[0], n.value
                if isinstance(target, ast.Name) and _is_int(value, ints):
                    ints.add(target.id)
                elif isinstance(target, ast.Tuple) and isinstance(value, ast.Attribute) \
                        and value.attr == "shape":  # n, m = x.shape
                    ints |= {t.id for t in target.elts if isinstance(t, ast.Name)}
                elif isinstance(target, ast.Name) and isinstance(value, ast.Attribute) \
                        and value.attr == "shape":  # shape = x.shape: its items are ints
                    ints.add(target.id + "[]")
                elif isinstance(target, ast.Name) and _int_dtype(value):
                    ints.add(target.id + "[]")  # an array of ints (a tape of counters)
                elif isinstance(target, ast.Tuple) and _popped_from(value) is not None:
                    # a, mid = records.pop(): the items every append gives an int
                    ints |= {t.id for k, t in enumerate(target.elts) if isinstance(t, ast.Name)
                             and f"{_popped_from(value)}.pop()[{k}]" in ints}
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr == "append" and isinstance(n.func.value, ast.Name) and \
                    len(n.args) == 1 and _is_int(n.args[0], ints):
                # a list of ints (a tape of counters): what it pops is an int
                ints.add(n.func.value.id + ".pop()")
    return ints


_INT_DTYPES = ("int", "np.int64", "np.int32", "np.intp", "numpy.int64")
# numpy functions (and array methods) whose result holds indices
_INDEX_RESULTS = {"argsort", "argmax", "argmin", "nonzero", "flatnonzero", "argwhere",
                  "searchsorted", "digitize"}


def _int_dtype(node):
    """An allocation with an int dtype (`np.empty(n, dtype=np.int64)`)."""
    if not isinstance(node, ast.Call):
        return False
    for k in node.keywords:
        if k.arg == "dtype":
            return ast.unparse(k.value) in _INT_DTYPES
    return False


def _int_array_call(node, ints):
    """A call whose result is an array of ints: `np.arange` of ints,
    `v.astype(int)`, `np.argsort(v)`, `v.argmax()`..."""
    f = node.func
    if not isinstance(f, ast.Attribute):
        return False
    if f.attr == "astype":
        return bool(node.args) and ast.unparse(node.args[0]) in _INT_DTYPES
    numpy = isinstance(f.value, ast.Name) and f.value.id == "np"
    if f.attr in _INDEX_RESULTS:
        return True
    if numpy and f.attr == "arange":
        dtypes = [k.value for k in node.keywords if k.arg == "dtype"]
        return all(_is_int(a, ints) for a in node.args) and \
            all(ast.unparse(d) in _INT_DTYPES for d in dtypes)
    return False


def _popped_from(node):
    """The list `node` pops from (`stack.pop()`), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "pop" and isinstance(node.func.value, ast.Name) and not node.args:
        return node.func.value.id
    return None


def _is_int(node, ints):
    if _is_number(node, int):
        return True
    if isinstance(node, ast.Name):
        return node.id in ints
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
            return True
        return not isinstance(node.op, ast.Div) and _is_int(node.left, ints) and \
            _is_int(node.right, ints)
    if isinstance(node, ast.UnaryOp):
        return _is_int(node.operand, ints)
    if isinstance(node, ast.Call):
        if _popped_from(node) is not None:
            return _popped_from(node) + ".pop()" in ints
        return getattr(node.func, "id", "") in ("len", "int", "round") or \
            _int_array_call(node, ints)
    if isinstance(node, ast.Attribute):
        return node.attr in ("size", "ndim")
    if isinstance(node, ast.Subscript):
        # x.shape[0]; tape[k] of a tape of ints; idx[m] of an array of ints
        # (a name holding an int expression and subscripted is an array);
        # np.where(v > 0)[0], np.nonzero(v)[0]
        value = node.value
        if isinstance(value, ast.Name):
            return value.id + "[]" in ints or value.id in ints
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                (value.func.attr == "nonzero" or value.func.attr == "where" and len(value.args) == 1):
            return True
        return isinstance(value, ast.Attribute) and value.attr == "shape" or \
            isinstance(value, ast.Call) and _is_int(value, ints)
    return False
