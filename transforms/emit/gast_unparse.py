"""ast.unparse's printer reading gast trees directly, without converting
them to ast first (the conversion was a third of printing a derivative).

gast's nodes are ast's but for a few forms: parameters are names, an
exception handler's name is a name, and the printer tests some children
against ast's classes. This subclass of the standard library's printer
reads those through gast's classes, and converts the rare subtrees whose
shape differs (functions, lambdas, handlers, f-strings) to print them as
ast.unparse does. A negative number prints as the unary minus to_ast makes
of it (`(-1.5) ** 2`, not `-1.5 ** 2`).

The printer is the standard library's own, which is private: on first use
it prints a set of snippets both ways, and if any differs (another Python
version's printer) every tree is converted instead (`printer()`)."""
import ast
import math

import gast

from ..ast_convert import parse, to_ast

_Base = getattr(ast, "_Unparser", object)
# gast's node classes (subclasses of ast's, which converted subtrees hold)
_GAST = {c for c in vars(gast).values()
         if isinstance(c, type) and issubclass(c, ast.AST) and c.__module__.startswith("gast")}
_Precedence = getattr(ast, "_Precedence", None)


class _GastUnparser(_Base):
    # (the methods below see the ast nodes of converted subtrees too)
    def visit_Subscript(self, node):
        if node.__class__ not in _GAST:
            return super().visit_Subscript(node)
        self.set_precedence(_Precedence.ATOM, node.value)
        self.traverse(node.value)
        with self.delimit("[", "]"):
            if node.slice.__class__ is gast.Tuple and node.slice.elts:
                self.items_view(self.traverse, node.slice.elts)  # (no parentheses)
            else:
                self.traverse(node.slice)

    def visit_Attribute(self, node):
        if node.__class__ not in _GAST:
            return super().visit_Attribute(node)
        self.set_precedence(_Precedence.ATOM, node.value)
        self.traverse(node.value)
        value = node.value
        if value.__class__ is gast.Constant and isinstance(value.value, int) \
                and not value.value < 0:  # (a negative one prints as `(-3).real`)
            self.write(" ")  # (3 .real: `3.real` does not parse)
        self.write(".")
        self.write(node.attr)

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, (int, float)) and math.copysign(1.0, value) < 0 \
                and node.__class__ in _GAST:
            self._as_converted(node)  # (a unary minus: see to_ast)
        else:
            super().visit_Constant(node)

    def get_type_comment(self, node):
        comment = getattr(node, "type_comment", None)
        return None if comment is None else f" # type: {comment}"

    def _as_converted(self, node):
        if node.__class__ not in _GAST:  # (already converted)
            return getattr(_Base, "visit_" + node.__class__.__name__)(self, node)
        new = to_ast(node)
        self.set_precedence(self.get_precedence(node), new)
        if isinstance(new, ast.stmt):
            new.lineno = 1
        super().traverse(new)

    # the forms whose gast shape is not ast's
    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _as_converted
    visit_arguments = visit_ExceptHandler = visit_JoinedStr = visit_If = _as_converted
    visit_Try = visit_TryStar = visit_Global = visit_Nonlocal = _as_converted


def _converted_source(node):
    tree = to_ast(node)
    _number_statements(tree)
    return ast.unparse(tree)


def _number_statements(tree):
    """ast.unparse reads a statement's line number (for type comments), and
    nothing else's: cheaper than ast.fix_missing_locations."""
    if isinstance(tree, ast.stmt):
        tree.lineno = 1
        for field in ("body", "orelse"):
            for s in getattr(tree, field, ()):
                _number_statements(s)


def _direct_source(node):
    return _GastUnparser().visit(node)


# Every form the derivatives print, and the rare ones (each statement, and
# each expression on its own, must print as through ast)
_STATEMENTS = [
    "x = a[i, j] + b[1:-1, ::2] ** -2.0 - (-3) ** 2 * c[()] + d[i][j, k:] / -e",
    "a, b = (b, a)",
    "y = -x ** 2 + (-x) ** 2 + (not p) + ~q + +r + 3 .real + (-1.5).imag + 1e309 + 2j",
    "y = f(-3).real + (-3).real + x[-1] + x[-1, -2:] - -1 * -2.5 ** -2 + g(k=-1) + (-2) ** x",
    "z = f(a, *b, c=d, **e) if p and q or not r else g(lambda u, v=2: u * v)",
    "z[0] += a < b <= c != d is not e in f",
    "out = ([t for t in a if t > 0], {'k': -1, **m}, {1, 2}, (), (1,), x[1,], x[(1, 2)])",
    "print(f'{x!r:>10}', 'a\\nb', \"q'uote\", b'\\x00', None, True, ..., -0.0, 0.0)",
    "assert x, 'message'",
    "raise ValueError('x') from None",
    "for k, (u, v) in enumerate(zip(a, b)):\n    if u:\n        continue\n    elif v:\n"
    "        break\n    else:\n        pass",
    "while x > 0:\n    x -= 1\nelse:\n    del x",
    "with open('x') as f, open('y'):\n    pass",
    "try:\n    pass\nexcept (ValueError, KeyError) as err:\n    raise\nfinally:\n    pass",
    "def h(x, *args, y=1.5, **kw):\n    global q\n    return (yield x)",
]


def _agrees():
    """Whether the direct printer prints the snippets as Python's own
    printer prints them parsed by Python (what the conversion gives too,
    tests/test_unparse.py; a third of the cost)."""
    if _Precedence is None or _Base is object:
        return False
    try:
        # each as parsed, and with its negative numbers folded into constants
        for source in _STATEMENTS:
            reference = ast.parse(source).body[0]
            for fold in (False, True):
                direct = _negatives_folded(parse(source).body[0], fold)
                if _direct_source(direct) != ast.unparse(reference):
                    return False
                if isinstance(direct, gast.Assign) and \
                        _direct_source(direct.value) != ast.unparse(reference.value):
                    return False
        negative = gast.BinOp(left=gast.Constant(value=-1.5, kind=None), op=gast.Pow(),
                              right=gast.Constant(value=2, kind=None))
        return _direct_source(negative) == "(-1.5) ** 2"
    except Exception:  # noqa: BLE001 - another Python's printer: convert instead
        return False


def _negatives_folded(tree, fold):
    """`tree` with `-c` of a number c as the constant -c, as folding leaves it."""
    if fold:
        for node in gast.walk(tree):
            for field, child in gast.iter_fields(node):
                if isinstance(child, gast.UnaryOp) and isinstance(child.op, gast.USub) \
                        and isinstance(child.operand, gast.Constant) \
                        and type(child.operand.value) in (int, float):
                    setattr(node, field, gast.Constant(value=-child.operand.value, kind=None))
    return tree


_PRINTER = []
# How printer() runs its check: s2sad keeps the answer on disk per Python,
# gast and compiler version (s2sad/cache.py `remembered`), so a process
# does not pay the check (a few milliseconds of its first gradient).
_REMEMBER = [lambda check: check()]


def remember_check_with(remember):
    """`remember(check)` gives check()'s answer, computed once and kept."""
    _REMEMBER[0] = remember
    _PRINTER.clear()


def printer():
    """The function printing a gast node: direct where it agrees with the
    conversion on this Python, else through ast."""
    if not _PRINTER:
        _PRINTER.append(_direct_source if _REMEMBER[0](_agrees) else _converted_source)
    return _PRINTER[0]
