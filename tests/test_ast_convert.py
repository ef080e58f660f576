"""transforms/ast_convert.py converts between ast and gast as gast does:
the same trees (fields, line and column), the same printed source."""
import ast
import inspect

import gast
import pytest

from s2sad.transforms import ast_convert, program, syntax
from s2sad.transforms.checks import bounds
from s2sad.transforms.emit.unparse import stmt_source

_SNIPPETS = [
    "def f(x, *args, y=1.5, **kw):\n    return x[1:-1, ::2] ** -2.0 + (-3) ** 2\n",
    "def g(a):\n    b = lambda u, v=2: u * v\n    return [t for t in a if t > 0], {'k': -1}\n",
    "class C:\n    def m(self):\n        try:\n            pass\n        except ValueError as e:\n"
    "            raise e\n",
    "async def h():\n    with open('x') as f, open('y'):\n        pass\n    global q\n"
    "    x: int = 1\n    del x\n",
    "def k(x):\n    return f'{x!r:>10}' + b'\\x00'.decode() if not x else ..., 1j, None, True\n",
]


@pytest.mark.parametrize("source", _SNIPPETS + [inspect.getsource(m) for m in (bounds, program)])
def test_parse_is_gasts(source):
    assert gast.dump(ast_convert.parse(source), include_attributes=True) == \
        gast.dump(gast.parse(source), include_attributes=True)


@pytest.mark.parametrize("source", _SNIPPETS + [inspect.getsource(syntax)])
def test_statements_print_as_through_gast(source):
    for node in syntax.walk(gast.parse(source)):
        if isinstance(node, (gast.stmt, gast.expr)):
            expected, got = gast.gast_to_ast(node), ast_convert.to_ast(node)
            if isinstance(expected, ast.stmt):  # (unparse reads a statement's line)
                expected, got = ast.fix_missing_locations(expected), ast.fix_missing_locations(got)
            assert ast.unparse(got) == ast.unparse(expected)


def test_negative_numbers_print_with_their_parentheses():
    # folding leaves negative constants, which ast.unparse prints bare
    node = gast.BinOp(left=syntax.const(-1.5), op=gast.Pow(), right=syntax.const(2))
    assert stmt_source(node) == "(-1.5) ** 2"
    assert eval(stmt_source(node)) == 2.25


def test_structure_tells_trees_apart_as_ast_dump_does():
    # the passes compare expressions by syntax.structure instead of printing
    # them: it must call two trees the same exactly when ast.dump does
    # (1, 1.0 and True are different constants, as -0.0 and 0.0 are)
    texts = ["x[i]", "x[i, j]", "x[j, i]", "x[1]", "x[1.0]", "x[True]", "x[-0.0]", "x[0.0]",
             "x[i + 1]", "x[1 + i]", "x[i:n]", "x[i:n:1]", "x.shape[0]", "y.shape[0]",
             "f(a, b=1)", "f(a, b=1.0)", "f(a, c=1)", "'s'", "b's'", "None", "a < b", "a <= b",
             "x[i]", "f(a, b=1)"]
    trees = [syntax.parse_expr(t) for t in texts]
    for a in trees:
        for b in trees:
            by_dump = ast.dump(gast.gast_to_ast(a)) == ast.dump(gast.gast_to_ast(b))
            assert (syntax.structure(a) == syntax.structure(b)) == by_dump, \
                (ast.unparse(gast.gast_to_ast(a)), ast.unparse(gast.gast_to_ast(b)))


# ---- printing gast directly (emit/gast_unparse.py) ----------------------------

@pytest.mark.parametrize("module", [bounds, program, syntax, ast_convert])
@pytest.mark.parametrize("fold", [False, True])
def test_the_direct_printer_prints_as_ast_unparse(module, fold):
    # every statement and expression of these modules, printed from gast
    # directly and through the conversion to ast (fresh trees for each: gast's
    # own conversion may change the tree it converts)
    from s2sad.transforms.emit import gast_unparse
    source = inspect.getsource(module)
    direct, converted = ([n for n in syntax.walk(
        gast_unparse._negatives_folded(ast_convert.parse(source), fold))
        if isinstance(n, (gast.stmt, gast.expr))] for _ in range(2))
    assert len(direct) > 500
    for node, twin in zip(direct, converted):
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            continue  # (their bodies are checked statement by statement)
        assert gast_unparse._direct_source(node) == gast_unparse._converted_source(twin)


@pytest.mark.parametrize("fold", [False, True])
def test_the_printer_check_compares_with_what_the_conversion_prints(fold):
    # printer()'s check compares the direct printer with Python's printer of
    # the snippet as Python parses it: the conversion prints that too
    from s2sad.transforms.emit import gast_unparse
    for source in gast_unparse._STATEMENTS:
        converted = gast_unparse._negatives_folded(ast_convert.parse(source).body[0], fold)
        assert gast_unparse._converted_source(converted) == ast.unparse(ast.parse(source).body[0])


def test_the_printer_check_fails_where_the_printers_differ(monkeypatch):
    from s2sad.transforms.emit import gast_unparse
    assert gast_unparse._agrees()
    monkeypatch.setattr(gast_unparse._GastUnparser, "visit_Attribute",
                        lambda self, node: self.write("?"))
    assert not gast_unparse._agrees()


def test_the_direct_printer_is_used_where_it_agrees():
    from s2sad.transforms.emit import gast_unparse
    assert gast_unparse.printer() is gast_unparse._direct_source  # (this Python's printer)
    negative = gast.BinOp(left=syntax.const(-3), op=gast.Pow(), right=syntax.const(2))
    attribute = gast.Attribute(value=syntax.const(-3), attr="real", ctx=gast.Load())
    assert [stmt_source(negative), stmt_source(attribute)] == ["(-3) ** 2", "(-3).real"]
