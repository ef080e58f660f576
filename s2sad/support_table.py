"""The documentation's table of the functions s2sad differentiates, made from
the registry (as rule_table.py makes the README's rule table): one row per
function, with how a derivative calling it runs and the parameters its rule
implements.

The status column:
- "compiled": numba compiles the call, by its own implementation or by one of
  s2sad's runtime helpers (the call forms the rule modules register in
  forms.py); for a function s2sad defines in numpy (s2sad/definitions/),
  when every function the
  definition calls does. Some forms of a compiled function still run as
  Python (the notes say which, and `jit=True` warns when it happens);
- "Python": numba has no implementation, so under `jit="auto"` or `jit=True`
  the derivative runs as Python (s2sad warns with NumbaFallbackWarning);
- "no gradient": a constant for differentiation (`np.floor`, `len`);
- "refused": s2sad knows the gradient exists but does not implement it: a
  call is fine while nothing it is given needs a gradient, and raises
  LookupError naming the line otherwise.

`python -m s2sad.support_table` prints the table as Markdown."""
import ast
import functools
import inspect
import sys
import textwrap

import numpy as np

from . import runtime  # noqa: F401  (registers s2sad's numba overloads)
from .registry import REGISTRY
from .rule_table import _qualified

COMPILED, PYTHON, NO_GRADIENT, REFUSED = "compiled", "Python", "no gradient", "refused"


def _call_forms():
    from .forms import FORMS
    forms = {}
    for fn, _test, helper, _passing in FORMS:
        forms.setdefault(id(fn), []).append(helper)
    return forms


@functools.lru_cache(maxsize=None)
def _typing_context():
    from numba.core.registry import cpu_target
    cpu_target.target_context.refresh()
    context = cpu_target.typing_context
    context.refresh()
    return context


def numba_compiles(fn):
    """Whether numba, with s2sad's runtime helpers, has an implementation of
    `fn` (of some of its forms, for a function the call-form tables rewrite
    only in some forms)."""
    if id(fn) in _FORMS():
        return True
    try:
        _typing_context().resolve_value_type(fn)
        return True
    except Exception:  # noqa: BLE001 - numba raises ValueError or TypingError for unknown values
        return False


_FORMS = functools.lru_cache(maxsize=None)(_call_forms)


def _definitions():
    from .definitions.registry import DEFINITIONS, load_all
    load_all()  # (scipy.stats' too)
    return DEFINITIONS


def _called_functions(definition):
    """The module-level functions a definition's body calls (np.sum, ...)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(definition)))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            try:
                obj = eval(compile(ast.Expression(node.func), "<call>", "eval"),  # noqa: S307
                           definition.__globals__)
            except Exception:  # noqa: BLE001 - a local name or a method: not a module function
                continue
            if callable(obj):
                found.append(obj)
    return found


def status(fn, rule):
    if rule is not None and rule.refusal is not None:
        return REFUSED
    if rule is not None and rule.nondiff:
        return NO_GRADIENT
    definition = _definitions().get(fn)
    if definition is not None:
        called = [f for f in _called_functions(definition) if REGISTRY.lookup(f) is not None]
        return COMPILED if all(numba_compiles(f) for f in called) else PYTHON
    return COMPILED if numba_compiles(fn) else PYTHON


def rows():
    """(name, status, what the rule implements) for every registered function
    with a public name, and for every function s2sad defines."""
    from .definitions import TABLE, registry
    registry.load_all()  # (scipy.stats' too)
    found = {}
    for fn, rule in list(REGISTRY._rules.items()):
        name = _qualified(fn)
        if name is None or name.startswith("operator."):
            continue
        if rule.refusal is not None:
            text = rule.refusal
        elif rule.nondiff:
            text = "its result is a constant"
        elif rule.signature is not None:
            text = rule.parameters_text()
        else:
            text = ""
        found.setdefault(name, [status(fn, rule), []])[1].append(text)
    for fn, text in TABLE:
        name = _qualified(fn)
        entry = found.setdefault(name, [status(fn, REGISTRY.lookup(fn)), []])
        entry[1].append(text)
    for fn in _definitions():  # (the definitions the rule table does not list)
        name = _qualified(fn) or _distribution_method(fn)
        if name is not None and name not in found:
            found[name] = [status(fn, None), ["s2sad's definition (see the user guide)"]]
    return sorted(((name, st, "; ".join(t for t in texts if t) or "")
                   for name, (st, texts) in found.items()), key=lambda r: _sort_key(r[0]))


def _distribution_method(fn):
    """scipy.stats.norm.logpdf's name (a bound method of a distribution)."""
    owner = getattr(fn, "__self__", None)
    if owner is None or not type(owner).__module__.startswith("scipy.stats"):
        return None
    return f"scipy.stats.{type(owner).__name__.removesuffix('_gen')}.{fn.__name__}"


def _sort_key(name):
    return name.lower()


# (title, prefix): the table's sections, in order; the builtins have no prefix
GROUPS = [("numpy", "np."), ("numpy.linalg", "np.linalg."), ("math", "math."),
          ("scipy.special", "scipy.special."), ("scipy.linalg", "scipy.linalg."),
          ("scipy.stats", "scipy.stats."), ("Python builtins", "")]


def markdown():
    """The table as Markdown, a section per module."""
    by_group = {}
    for name, st, text in rows():
        group = max((g for g in GROUPS if name.startswith(g[1])), key=lambda g: len(g[1]))[0]
        by_group.setdefault(group, []).append((name, st, text))
    out = []
    for title, _prefix in GROUPS:
        if title not in by_group:
            continue
        out += [f"### {title}", "", "| function | status | parameters (and the values each rule "
                "implements) |", "|---|---|---|"]
        for name, st, text in by_group[title]:
            out.append(f"| `{name}` | {st} | {text.replace('|', '&#124;')} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(markdown())
