"""The README's table of gradient rules, made from the registry so it cannot
drift: each rule with the parameters it implements and, for each optional
one, the values. `python -m s2sad.rule_table --write` rewrites the README's
table; the tests check that it is current."""
import math
import operator
import pathlib
import sys

import numpy as np
import scipy.linalg
import scipy.special

from . import rules  # noqa: F401  (registers the rules)
from .registry import REGISTRY

START, END = "<!-- rule table: made by python -m s2sad.rule_table --write -->", "<!-- end of rule table -->"
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
    from .definitions import TABLE  # functions (or spellings) s2sad defines
    for fn, text in TABLE:
        rows.setdefault(text, []).append(_qualified(fn))
    lines = ["| functions | parameters (and the values each rule implements) |", "|---|---|"]
    for text, names in sorted(rows.items(), key=lambda r: sorted(r[1])[0]):
        lines.append(f"| {', '.join(f'`{n}`' for n in sorted(names))} | {text} |")
    return "\n".join([START] + lines + [END])


def readme_path():
    return pathlib.Path(__file__).resolve().parent.parent / "README.md"


def current(readme_text):
    a, b = readme_text.find(START), readme_text.find(END)
    return readme_text[a:b + len(END)] if a >= 0 and b >= 0 else None


def main(argv):
    text = table()
    if "--write" in argv:
        path = readme_path()
        old = path.read_text()
        found = current(old)
        if found is None:
            raise SystemExit(f"{path} has no rule table between the markers {START!r} and "
                             f"{END!r}: add them where the table goes")
        path.write_text(old.replace(found, text))
    else:
        print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
