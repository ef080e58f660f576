"""Code a generated module keeps as Python: the functions of
frontend/statements/python_blocks.py (a `try ... except` computing nothing
that needs a gradient), written into the module as they are and called in
numba's object mode, and the kinds of what they and a helper's primal copy
compute (emit/objmode.py types its blocks from them)."""
import gast

from ..analysis import kinds as K
from ..emit.unparse import stmt_source
from ..frontend.read.read import ParsedFunction, namespace_of
from ..syntax import clone


def block_kind(fn, arg_kinds, call_kind):
    """The kind of what the block kept as Python `fn` returns, for arguments
    of `arg_kinds`, from its body; `call_kind(parsed)` types its calls."""
    tree, location, _ = fn.__s2sad_block__
    parsed = ParsedFunction(fn, tree, location, namespace_of(fn))
    return K.KindInference(call_kind(parsed), parsed.namespace).run(tree, arg_kinds).get(
        "<return>", K.UNKNOWN)


def block_source(fn, name, location):
    """(its tree named `name`, its source, a ParsedFunction resolving its
    names) of the block kept as Python `fn`."""
    tree = clone(fn.__s2sad_block__[0])
    tree.name = name
    return tree, stmt_source(tree) + "\n", ParsedFunction(fn, tree, location, namespace_of(fn))


def copy_kinds(tree, parsed, specialisations, call_kind):
    """The kinds of a helper's primal copy `tree` (one copy serves every
    specialisation), one dict per argument kinds in `specialisations`."""
    return [K.KindInference(call_kind(parsed), parsed.namespace).run(tree, list(kinds))
            for kinds in specialisations]


def names_of(tree):
    return {m.id for m in gast.walk(tree) if isinstance(m, gast.Name)}
