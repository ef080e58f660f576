"""Every node mark (`s2sad_*` attribute) the compiler uses is declared, with
its meaning, in transforms/marks.py."""
import os
import re

from s2sad.transforms.marks import MARKS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `.s2sad_x`, or the name given to getattr/setattr/hasattr or a list of marks
_USE = re.compile(r"""(?:\.|["'])(s2sad_[a-z][a-z_]*[a-z])\b(?!__)""")


def _uses():
    found = {}
    for folder in ("transforms", "s2sad"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in files:
                if f.endswith(".py") and f != "marks.py":
                    path = os.path.join(dirpath, f)
                    for name in _USE.findall(open(path).read()):
                        found.setdefault(name, path)
    return found


# names of that form that are not node marks: a generated parameter (recursion.py)
NOT_MARKS = {"s2sad_depth"}


def test_every_mark_is_declared():
    undeclared = {n: p for n, p in _uses().items() if n not in MARKS and n not in NOT_MARKS}
    assert not undeclared, f"declare these in transforms/marks.py: {undeclared}"


def test_every_declared_mark_is_used():
    assert set(MARKS) <= set(_uses()), set(MARKS) - set(_uses())
