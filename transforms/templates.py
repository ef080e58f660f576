"""Inline a gradient template into generated code.

A template is an ordinary Python function

    def tanh(g, ans, x):
        return g * (1.0 - ans * ans)

whose parameters are the output cotangent `g`, the result `ans` and the
operation's arguments, and which returns one cotangent expression per
argument (a tuple when there are several; None for an argument without a
gradient). Inlining substitutes the generated code's names for the
parameters, so the reader sees the rule itself: `dx += dy * (1.0 - y * y)`.
Statements before the `return` become statements with fresh local names.
"""
import functools
import inspect
import textwrap

import gast

from .ast_convert import parse
from .syntax import clone, rewrite, walk
from .errors import S2sadValueError


class Template:
    def __init__(self, fn):
        self.fn = fn
        source = textwrap.dedent(inspect.getsource(fn))
        tree = parse(source).body[0]
        params = [a.id for a in tree.args.args]
        defaults = tree.args.defaults
        self.params = params
        self.defaults = dict(zip(params[len(params) - len(defaults):], defaults))
        body = tree.body
        if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
            body = body[1:]  # docstring
        if not body or not isinstance(body[-1], gast.Return):
            raise S2sadValueError(f"gradient template {fn.__qualname__} must end with a return")
        self.prelude = body[:-1]
        ret = body[-1].value
        self.results = ret.elts if isinstance(ret, gast.Tuple) else [ret]
        self.locals = {n.id for s in self.prelude for n in walk(s)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        loads = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, gast.Load)}
        self.loads = loads
        self.globals = loads - set(params) - self.locals
        self.reads_ans = params[1] in loads  # the adjoint reads the operation's result

    @property
    def n_args(self):
        return len(self.params) - 2 - len(self.defaults)


@functools.lru_cache(maxsize=None)
def template_of(fn):
    return Template(fn)


def inline(template, g, ans, args, keywords, namer):
    """Returns (statements, [expression or None per argument]).

    `g`, `ans` and `args` are AST expressions; `keywords` maps a template's
    keyword parameters to expressions (missing ones take their defaults)."""
    binding = {template.params[0]: g, template.params[1]: ans}
    positional = template.params[2:len(template.params) - len(template.defaults)]
    extra = template.params[2 + len(positional):]
    if len(args) > len(positional):  # optional parameters given positionally
        for p, a in zip(extra, args[len(positional):]):
            keywords = {**keywords, p: a}
        args = args[:len(positional)]
    binding.update(zip(positional, args))
    for p in extra:
        binding[p] = keywords.get(p, template.defaults[p])
    renames = {v: namer.fresh(v) for v in template.locals}

    def substitute(node):
        node = clone(node)
        return rewrite(rewrite(node, _substitution(binding, renames)), _fold)

    stmts = [substitute(s) for s in template.prelude]
    results = []
    for r in template.results:
        is_none = isinstance(r, gast.Constant) and r.value is None
        results.append(None if is_none else substitute(r))
    return stmts, results


def _substitution(binding, renames):
    def substitute(node):
        if isinstance(node, gast.Name):
            if node.id in renames:
                node.id = renames[node.id]
            elif node.id in binding and isinstance(node.ctx, gast.Load):
                return clone(binding[node.id])
        return node
    return substitute


def _fold(node):
    """Constant folding for what substitution leaves: `x ** (2 - 1)` reads
    `x`, and `g * 1.0` reads `g` (one node, its operands already folded)."""
    if isinstance(node, gast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], gast.Eq) \
            and _number(node.left) is not None and _number(node.comparators[0]) is not None:
        # an int, so that `y - 1 + (y == 0)` folds on (to x ** 0 for y = 1)
        return gast.Constant(value=int(_number(node.left) == _number(node.comparators[0])),
                             kind=None)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add) \
            and isinstance(node.right, gast.Constant) and node.right.value is False:
        return node.left  # `y - 1 + (y == 0)` with a constant y
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not) \
            and isinstance(node.operand, gast.Constant) and isinstance(node.operand.value, bool):
        return gast.Constant(value=not node.operand.value, kind=None)  # `not lower`, substituted
    if isinstance(node, gast.IfExp) and isinstance(node.test, gast.Constant):
        return node.body if node.test.value else node.orelse  # a default flag, substituted
    if isinstance(node, gast.BinOp):
        left, right = node.left, node.right
        lc = _number(left)
        rc = _number(right)
        if lc is not None and rc is not None and not isinstance(node.op, (gast.Div, gast.Pow)):
            ops = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
                   gast.Mult: lambda a, b: a * b}
            if type(node.op) in ops:
                return gast.Constant(value=ops[type(node.op)](lc, rc), kind=None)
        if isinstance(node.op, (gast.Add, gast.Sub)) and rc is not None and isinstance(rc, int):
            if rc == 0:
                return left
            # (n - 1) - 1 reads n - 2
            inner = left
            if isinstance(inner, gast.BinOp) and isinstance(inner.op, (gast.Add, gast.Sub)):
                ic = _number(inner.right)
                if isinstance(ic, int):
                    sign = 1 if isinstance(inner.op, gast.Add) else -1
                    total = sign * ic + (rc if isinstance(node.op, gast.Add) else -rc)
                    if total == 0:
                        return inner.left
                    op = gast.Add() if total > 0 else gast.Sub()
                    return gast.BinOp(left=inner.left, op=op,
                                      right=gast.Constant(value=abs(total), kind=None))
        if isinstance(node.op, gast.Pow) and rc == 1:
            return left
        if isinstance(node.op, gast.Mult) and rc == 1 and isinstance(right.value, float) is False:
            return left
        if isinstance(node.op, gast.Mult) and lc == 1 and not isinstance(left.value, float):
            return right
    return node


def _number(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


def fold(node):
    """Constant-fold an expression built by the compiler."""
    return rewrite(node, _fold)
