"""The table of gradient rules, made from the registry so it cannot drift:
each rule with the parameters it implements and, for each optional one, the
values. `python -m s2sad.rule_table` prints it. The documentation's table of
functions (s2sad/support_table.py, docs/accepts.md) is made from the same
registry, with each function's status, when the site is built."""
import math
import operator
import pathlib
import sys

import numpy as np
import scipy.linalg
import scipy.special

from . import rules  # noqa: F401  (registers the rules)
from .registry import REGISTRY

START, END = "<!-- rule table: made by python -m s2sad.rule_table -->", "<!-- end of rule table -->"
_NAMESPACES = [("np.", np), ("np.linalg.", np.linalg), ("math.", math), ("", __builtins__),
               ("operator.", operator), ("scipy.special.", scipy.special),
               ("scipy.linalg.", scipy.linalg)]


def _qualified(fn):
    own = getattr(fn, "__name__", None)
    if isinstance(getattr(fn, "__self__", None), np.ufunc):  # np.add.accumulate
        return f"np.{fn.__self__.__name__}.{own}"
    for prefix, module in _NAMESPACES:  # the function's own name first (np.arccos, not acos)
        names = module if isinstance(module, dict) else vars(module)
        if own in names and names[own] is fn:
            return prefix + own
    for prefix, module in _NAMESPACES:
        names = module if isinstance(module, dict) else vars(module)
        for name, obj in names.items():
            if obj is fn and not name.startswith("_"):
                return prefix + name
    return None


def table():
    rows = {}
    for fn, rule in REGISTRY._rules.items():
        if rule.signature is None or rule.nondiff:
            continue
        name = _qualified(fn)
        if name is None or name.startswith("operator."):
            continue
        text = rule.parameters_text()
        rows.setdefault(text, []).append(name)
    from .definitions import TABLE, registry  # functions (or spellings) s2sad defines
    registry.load_all()  # (scipy.stats' too)
    for fn, text in TABLE:
        rows.setdefault(text, []).append(_qualified(fn))
    lines = ["| functions | parameters (and the values each rule implements) |", "|---|---|"]
    for text, names in sorted(rows.items(), key=lambda r: sorted(r[1])[0]):
        lines.append(f"| {', '.join(f'`{n}`' for n in sorted(names))} | {text} |")
    return "\n".join([START] + lines + [END])


def main(argv):
    if "--write" in argv:
        raise SystemExit("the README no longer holds the rule table: the documentation site "
                         "makes it from the registry when it is built (docs/accepts.md; "
                         "python -m s2sad.support_table prints it)")
    print(table())


if __name__ == "__main__":
    main(sys.argv[1:])
