"""Reduce a failing program to a small one that fails the same way.

Greedy: try deleting statements (and helpers, and arguments), unwrapping
compound statements into their bodies, and replacing expressions by a
sub-expression or a constant; keep any change after which the program
still fails with the same category (and, for exceptions, the same
exception type). Loop counters, while tests and copies are left alone, so
reductions cannot make loops infinite or arrays aliased.
"""
import ast
import builtins
import copy
import dataclasses
import re
import warnings

from .check import check_all, load
from .model import MAIN, is_view


def signature(result):
    """What must stay the same while shrinking: the category and, for an
    exception, its type and message (without file, line and names)."""
    cat = result["category"]
    if "error" in cat or "fallback" in cat:
        return (cat, normalize(result.get("message", "")))
    return (cat,)


def normalize(msg):
    msg = msg.split("\n")[0]
    msg = re.sub(r"\S+\.py:\d+(, in \w+)?:?", "", msg)      # where
    msg = re.sub(r"derivative of \S+ \([^)]*\)", "derivative of _", msg)
    msg = re.sub(r"'[^']*'|\b\w*\d\w*\b", "_", msg)          # names, numbers
    return msg[:90]


def _resolve(node, path):
    for p in path:
        node = node[p] if isinstance(p, int) else getattr(node, p)
    return node


def _stmt_lists(node, path=()):
    for field in ("body", "orelse"):
        lst = getattr(node, field, None)
        if isinstance(lst, list) and lst and isinstance(lst[0], ast.stmt):
            yield path + (field,), lst
            for i, s in enumerate(lst):
                yield from _stmt_lists(s, path + (field, i))


def _protected(stmt):
    """Statements that keep loops finite or arrays initialised."""
    text = ast.unparse(stmt)
    return bool(re.match(r"(it\d+|t\d+) \+= ", text)) or \
        bool(re.match(r"if it\d+ >= \d+:\s*break", text)) or \
        bool(re.match(r"\w+\[:\] = ", text))     # fills an np.empty


def _exprs(node, path=(), parent_ok=True):
    """(path, node, binding): expression nodes, outermost first; `binding`
    when the node's value gets bound to a name (where a view would alias)."""
    for field, value in ast.iter_fields(node):
        if isinstance(node, ast.While) and field == "test" or \
                isinstance(node, ast.Call) and field == "func" or \
                isinstance(node, ast.Subscript) and field == "slice" or \
                isinstance(node, ast.Attribute):
            continue
        if field == "keywords":   # a helper's arguments by keyword (not axis=, ord=...)
            for i, kw in enumerate(value):
                if isinstance(kw.value, ast.Constant):
                    continue
                sub = path + ("keywords", i, "value")
                yield sub, kw.value, True
                yield from _exprs(kw.value, sub)
            continue
        items = [(field, value)] if not isinstance(value, list) else \
            [((field, i), v) for i, v in enumerate(value)]
        for key, v in items:
            sub = path + ((key,) if isinstance(key, str) else key)
            if isinstance(v, ast.expr):
                binding = (isinstance(node, (ast.Assign, ast.Return)) and field == "value") or \
                    isinstance(node, ast.IfExp) and field in ("body", "orelse") or \
                    isinstance(node, ast.Tuple) or isinstance(node, ast.Call)
                yield sub, v, binding
                yield from _exprs(v, sub)
            elif isinstance(v, ast.stmt):
                yield from _exprs(v, sub)


_GLOBALS = {"np", "math", "s2sad", "stop_gradient", "reset_recording", "stop_recording"} | \
    set(dir(builtins))


def _unbound(source):
    """Whether a function reads a name it never binds (a deletion left a
    read in code that does not run: the compiler would rightly refuse it)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:   # (a replacement made a target a constant: not a program)
        return True
    known = _GLOBALS | {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for fdef in tree.body:
        if not isinstance(fdef, ast.FunctionDef):
            continue
        bound = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs} | {
            n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound | known
               for n in ast.walk(fdef)):
            return True
    return False


def _children(node):
    """Replacements for an expression: its sub-expressions and constants."""
    out = []
    if isinstance(node, ast.Call):
        f = ast.unparse(node.func)
        if f in ("np.copy", "copy") or f.endswith(".copy"):
            return []
        if f != "np.array":   # (np.array([a, b]) is not the list [a, b])
            out += [a for a in node.args if isinstance(a, ast.expr)]
    elif isinstance(node, ast.BinOp):
        out += [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        out += [node.operand]
    elif isinstance(node, ast.IfExp):
        out += [node.body, node.orelse]
    elif isinstance(node, ast.BoolOp):
        out += node.values
    if not isinstance(node, (ast.Constant, ast.Name, ast.Compare, ast.BoolOp)):
        out += [ast.Constant(0.5)]
    # (conditions are not made constant: numba prunes constant branches,
    # which is a bug of its own; unwrapping an if keeps one side instead)
    return out


class Shrinker:
    def __init__(self, prog, target, log=None, timeout=20.0, max_checks=3000):
        self.prog = prog
        self.target = target
        self.log = log or (lambda s: None)
        self.timeout = timeout
        self.checks = 0
        self.max_checks = max_checks

    def fails(self, prog):
        if self.checks >= self.max_checks or _unbound(prog.source):
            return False
        self.checks += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loaded = load([prog])
        except Exception:
            return False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = check_all(loaded, timeout=self.timeout)[0]
        return r["status"] == "fail" and signature(r) == self.target

    def _with(self, tree, **changes):
        src = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
        return dataclasses.replace(self.prog, source=src, **changes)

    def candidates(self):
        tree = ast.parse(self.prog.source)
        fdefs = [i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef)]
        # whole helpers
        for i in fdefs:
            if tree.body[i].name != MAIN:
                t = copy.deepcopy(tree)
                del t.body[i]
                yield t, {}
        # arguments the main function does not use
        main = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == MAIN][0]
        used = {n.id for n in ast.walk(main) if isinstance(n, ast.Name)}
        for pos, a in enumerate(main.args.args):
            if a.arg not in used and len(main.args.args) > 1:
                t = copy.deepcopy(tree)
                m = [n for n in t.body if isinstance(n, ast.FunctionDef) and n.name == MAIN][0]
                del m.args.args[pos]
                wrt = tuple(w - (w > pos) for w in self.prog.wrt if w != pos)
                if wrt:
                    yield t, self._drop_arg(pos, wrt)
        # fewer arguments differentiated
        if len(self.prog.wrt) > 1:
            for w in self.prog.wrt:
                yield copy.deepcopy(tree), dict(wrt=(w,))
        # statements: halves of long lists, then single ones, then unwrapping
        lists = [(i, path, len(lst)) for i in fdefs for path, lst in _stmt_lists(tree.body[i])]
        for i, path, n in lists:
            if n >= 4:
                for lo, hi in ((0, n // 2), (n // 2, n - 1)):
                    t = copy.deepcopy(tree)
                    lst = _resolve(t.body[i], path)
                    if any(_protected(s) for s in lst[lo:hi]):
                        continue
                    del lst[lo:hi]
                    yield t, {}
        for i, path, n in lists:
            for j in range(n - 1, -1, -1):
                t = copy.deepcopy(tree)
                lst = _resolve(t.body[i], path)
                s = lst[j]
                if _protected(s):
                    continue
                if len(lst) > 1:
                    t2 = copy.deepcopy(t)
                    del _resolve(t2.body[i], path)[j]
                    yield t2, {}
                for repl in self._unwrap(s):
                    t3 = copy.deepcopy(t)
                    _resolve(t3.body[i], path)[j:j + 1] = repl
                    yield t3, {}
        # keyword arguments (a default, or no keepdims=False, instead)
        for i in fdefs:
            calls = [n for n in ast.walk(tree.body[i]) if isinstance(n, ast.Call) and n.keywords]
            for c, call in enumerate(calls):
                for k in range(len(call.keywords)):
                    t = copy.deepcopy(tree)
                    tcalls = [n for n in ast.walk(t.body[i]) if isinstance(n, ast.Call) and n.keywords]
                    del tcalls[c].keywords[k]
                    yield t, {}
        # expressions
        for i in fdefs:
            for path, node, binding in list(_exprs(tree.body[i])):
                for k, child in enumerate(_children(node)):
                    if binding and is_view(ast.unparse(child)) and not isinstance(child, ast.Constant):
                        continue
                    t = copy.deepcopy(tree)
                    parent = _resolve(t.body[i], path[:-1])
                    new = copy.deepcopy(child)
                    if isinstance(path[-1], int):
                        parent[path[-1]] = new
                    else:
                        setattr(parent, path[-1], new)
                    yield t, {}

    def _drop_arg(self, pos, wrt):
        p = self.prog
        keep = [j for j in range(len(p.arg_names)) if j != pos]
        return dict(arg_names=tuple(p.arg_names[j] for j in keep),
                    arg_shapes=tuple(p.arg_shapes[j] for j in keep),
                    arg_ints=tuple(p.arg_ints[j] for j in keep), wrt=wrt)

    def _unwrap(self, s):
        """Simpler statements for a compound one."""
        out = []
        if isinstance(s, ast.If):
            out.append(s.body)
            if s.orelse:
                out.append(s.orelse)
                t = copy.deepcopy(s)
                t.orelse = []
                out.append([t])
        elif isinstance(s, ast.For):
            it = s.iter
            if isinstance(it, ast.Call) and ast.unparse(it.func) == "range":
                start = it.args[0] if len(it.args) >= 2 else ast.Constant(0)
                if len(it.args) == 3:   # range(n - 1, -1, -1) starts at n - 1
                    start = it.args[0]
                out.append([ast.Assign(targets=[s.target], value=start, lineno=0)] + s.body)
                smaller = copy.deepcopy(s)
                if len(it.args) == 1 and not (isinstance(it.args[0], ast.Constant) and it.args[0].value <= 1):
                    smaller.iter.args = [ast.Constant(1)]
                    out.append([smaller])
            else:
                first = ast.Subscript(value=it, slice=ast.Constant(0), ctx=ast.Load())
                out.append([ast.Assign(targets=[s.target], value=first, lineno=0)] + s.body)
        elif isinstance(s, ast.While):
            out.append([b for b in s.body if not _protected(b)])
        elif isinstance(s, ast.With):
            out.append(s.body)
        return [o for o in out if o]

    def run(self):
        progress = True
        while progress and self.checks < self.max_checks:
            progress = False
            for tree, changes in self.candidates():
                try:
                    cand = self._with(tree, **changes)
                except Exception:
                    continue
                if cand.source == self.prog.source and not changes:
                    continue
                if self.fails(cand):
                    self.prog = cand
                    self.log(f"  [{self.checks} checks] {len(cand.source.splitlines())} lines")
                    progress = True
                    break
        return self.prog


def shrink(prog, result, log=None, max_checks=3000):
    """The smallest program found that fails like `result` (from check)."""
    return Shrinker(prog, signature(result), log, max_checks=max_checks).run()
