"""The compiler builds code as trees, never as text pasted together and
parsed back: `parse_expr(f"range({a} * {b} // {n})")` loses precedence the
day `b` is `n - 1` (parallel.py's chunks once read `chunk * x.shape[0] - 1
// n`, running past the array).

Every call in transforms/ of a function that parses source text is read
(with `ast`), and its text argument must not be assembled: no f-string, no
`%` or `.format`, no `+` or `.join` of pieces that are not all constants,
no piece printed from a tree (`unparse`, `expr_source`, `stmt_source`),
and no local name bound to such a text. Parsing a constant (`"np.sum"`)
or the user's own source stays allowed."""
import ast
import pathlib

import pytest

TRANSFORMS = pathlib.Path(__file__).resolve().parent.parent / "transforms"

# functions that parse the text they are given (syntax.py's builders
# `call` and `attr` parse a string naming a function)
PARSERS = {"parse_expr", "parse_stmts", "parse", "_parse", "call", "attr"}
PRINTERS = {"unparse", "expr_source", "stmt_source", "function_source", "source"}


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def text_functions(trees):
    """(names of the functions returning assembled text, of those returning
    lists of it), over the modules `trees` (to a fixpoint: a function
    returning another's text returns text too)."""
    functions = [(fn, [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value])
                 for tree in trees for fn in _functions(tree)]
    texts, lists, changed = set(PRINTERS), set(), True
    while changed:
        changed = False
        for fn, returns in functions:
            if returns:
                local, local_lists = _text_names(fn, texts, lists)
                for r in returns:
                    if fn.name not in texts and _assembled(r.value, local, local_lists, texts,
                                                           lists):
                        texts.add(fn.name)
                        changed = True
                    if fn.name not in lists and _pieces(r.value, local, local_lists, texts,
                                                        lists):
                        lists.add(fn.name)
                        changed = True
    return texts, lists


def _assembled(node, texts, lists, makers=PRINTERS, list_makers=frozenset()):
    """Whether the expression `node` is text assembled from pieces; `texts`:
    local names bound to such text, `lists`: to lists holding some;
    `makers`, `list_makers`: functions returning such text, such lists."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Name):
        return node.id in texts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return isinstance(node.left, (ast.Constant, ast.JoinedStr)) \
            and isinstance(getattr(node.left, "value", ""), str)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        pieces = [node.left, node.right]
        stringy = any(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in pieces)
        pasted = stringy or any(_assembled(p, texts, lists, makers, list_makers) for p in pieces)
        return pasted and not all(isinstance(p, ast.Constant) for p in pieces)
    if isinstance(node, ast.IfExp):
        return _assembled(node.body, texts, lists, makers, list_makers) \
            or _assembled(node.orelse, texts, lists, makers, list_makers)
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "format":
            return True
        if isinstance(f, ast.Attribute) and f.attr == "join" and node.args:
            return _pieces(node.args[0], texts, lists, makers, list_makers)
        called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        return called in makers
    return False


def _pieces(node, texts, lists, makers=PRINTERS, list_makers=frozenset()):
    """Whether `node` is a list (or a generator) holding assembled text."""
    given = (texts, lists, makers, list_makers)
    if isinstance(node, ast.Name):
        return node.id in lists
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_assembled(e, *given) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return _assembled(node.elt, *given)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _pieces(node.left, *given) or _pieces(node.right, *given)
    if isinstance(node, ast.Call):
        f = node.func
        return (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)) in list_makers
    return False


_BINDINGS = {}


def _bindings(function):
    """The nodes of `function` that may bind a name to text (walked once)."""
    key = id(function)
    if key not in _BINDINGS:
        _BINDINGS[key] = (function, [
            n for n in ast.walk(function)
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For,
                              ast.comprehension))
            or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("append", "extend", "insert")])
    return _BINDINGS[key][1]


def _text_names(function, makers=PRINTERS, list_makers=frozenset()):
    """(names bound to assembled text, names of lists holding some) in a
    function (to a fixpoint)."""
    texts, lists, changed = set(), set(), True
    while changed:
        changed = False
        for n in _bindings(function):
            if isinstance(n, ast.Assign):
                bound = [(t, n.value) for t in n.targets]
            elif isinstance(n, (ast.For, ast.comprehension)):  # an item of a list of texts
                bound = [(n.target, ast.Name(id="item")) if _pieces(
                    n.iter, texts, lists, makers, list_makers) else (None, None)]
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None:
                bound = [(n.target, n.value)]
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr in ("append", "extend", "insert") and n.args:
                item = n.args[-1]
                listed = ast.List(elts=[item]) if n.func.attr != "extend" else item
                bound = [(n.func.value, listed)]
            else:
                continue
            for t, value in bound:
                if not isinstance(t, ast.Name):
                    continue
                if t.id not in texts and (_assembled(value, texts, lists, makers, list_makers)
                                          or isinstance(n, (ast.For, ast.comprehension))):
                    texts.add(t.id)
                    changed = True
                if t.id not in lists and _pieces(value, texts, lists, makers, list_makers):
                    lists.add(t.id)
                    changed = True
    return texts, lists


def parses_of_assembled_text(tree, makers=None, list_makers=None):
    """(line, call source) of each call in the module `tree` that parses
    assembled text; `makers`, `list_makers`: text_functions() of the
    package (this module's own if None)."""
    if makers is None:
        makers, list_makers = text_functions([tree])
    found = []
    for function in [tree] + _functions(tree):
        texts, lists = _text_names(function, makers, list_makers)
        for n in ast.walk(function):
            if not isinstance(n, ast.Call) or not n.args:
                continue
            f = n.func
            called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if called in PARSERS and _assembled(n.args[0], texts, lists, makers, list_makers):
                found.append((n.lineno, ast.unparse(n)))
    return sorted(set(found))


def test_no_code_is_parsed_back_from_pasted_text():
    modules = {path: ast.parse(path.read_text(), str(path))
               for path in sorted(TRANSFORMS.rglob("*.py"))}
    makers, list_makers = text_functions(list(modules.values()))
    found = []
    for path, tree in modules.items():
        for line, text in parses_of_assembled_text(tree, makers, list_makers):
            found.append(f"{path.relative_to(TRANSFORMS.parent)}:{line}: {text[:100]}")
    assert not found, ("code built as text and parsed back (build it from nodes: "
                       "transforms/syntax.py's builders):\n" + "\n".join(found))


@pytest.mark.parametrize("source", [
    'def f(a, b, n):\n    return parse_expr(f"range({a} * {b} // {n})")',
    'def f(x):\n    return parse_expr("%s + 1" % x)',
    'def f(x):\n    return parse_expr("{} + 1".format(x))',
    'def f(x):\n    return gast.parse("y = " + x)',
    'def f(x):\n    text = unparse(x) + " - 1"\n    return parse_expr(text)',
    'def f(x):\n    lines = ["a = 1"]\n    lines += [f"b = {x}"]\n'
    '    return gast.parse("\\n".join(lines))',
    'def g(x):\n    return f"a = {x}"\ndef f(xs):\n'
    '    for t in [g(x) for x in xs]:\n        parse_stmts(t)',
    'def g(x):\n    return [f"a = {x}"]\ndef f(x):\n    return [parse_stmts(c) for c in g(x)]',
    'def f(x):\n    return call(expr_source(x))',
    'def f(x):\n    t = f"{x}.T"\n    u = t\n    return parse_expr(u)',
    'def f(x):\n    lines = []\n    lines.append(f"a = {x}")\n'
    '    return gast.parse("\\n".join(lines))',
])
def test_the_scan_finds_pasted_text(source):
    assert parses_of_assembled_text(ast.parse(source)), source


@pytest.mark.parametrize("source", [
    'def f(x):\n    return parse_expr("np.sum")',
    'def f(x):\n    return call("np.zeros_like", x)',
    'def f(fn):\n    return ast.parse(inspect.getsource(fn))',
    'def f(source):\n    return gast.parse(source)',
    'def f(a):\n    return parse_expr("np." + "sum")',
    'def f(fn):\n    lines = linecache.getlines(fn)\n    return ast.parse("".join(lines))',
])
def test_the_scan_leaves_constants_and_real_source(source):
    assert not parses_of_assembled_text(ast.parse(source)), source
