"""Dead-store elimination run a second time over the same statements (as
program.py runs it after copy propagation) reuses what it found in the
first run, but for the statements a pass said it rewrote: it must remove
exactly what a fresh run removes."""
import ast

import gast

from s2sad.transforms import syntax
from s2sad.transforms.optimise import accumulate, cleanup

_BODY = """
r = a * 2.0
g = a * 3.0
t = a
u = t + 1.0
for i in range(n):
    w = t * u
    s = s + w
dv = unreduce(g, r)
e = r * dv
q = e + s
return q
"""


def _source(stmts):
    return ast.unparse(gast.gast_to_ast(gast.Module(body=stmts, type_ignores=[])))


def _second_run(kept):
    body = syntax.parse_stmts(_BODY)
    removable = lambda v: v not in {"a", "n", "s"}  # noqa: E731
    first = cleanup.DeadStores(removable)
    first.run(body, {"q"})
    changed = first.changed if kept else (lambda statements: None)
    cleanup.propagate_copies(body, {"t", "u", "w", "dv", "e"}, changed)
    accumulate.broadcast_scalar_cotangents(body, {"g"}, changed)
    before = _source(body)
    (first if kept else cleanup.DeadStores(removable)).run(body, {"q"})
    return before, _source(body)


def test_a_second_run_removes_what_a_fresh_run_removes():
    before, fresh = _second_run(kept=False)
    assert "t = a" in before and "dv = unreduce(g, r)" in before  # (both now dead)
    assert "t = a" not in fresh and "unreduce" not in fresh
    assert _second_run(kept=True) == (before, fresh)
