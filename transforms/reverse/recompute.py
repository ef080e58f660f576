"""Recompute cheap loop values in the reverse sweep instead of taping them.

A person writing the adjoint of

    for i in range(n):
        x = x + dt * (a * math.sin(x) - b * x * x * x + c)

stores only the states x and, going back, recomputes sin(x) and b*x*x from
them. The same here, for a scalar loop-local value (assigned once, directly
in the loop body, read only after) whose expression is arithmetic or an
elementary function of values the reverse iteration has at its top:

* names the loop does not write (invariants, or values of enclosing loops);
* the loop's counter;
* loop-locals assigned before it (themselves restored or recomputed there;
  for a function call, recomputed: rather than taping the operand of an
  exp to compute the exp again, the exp is taped);
* loop-carried scalars whose one write comes later in the body and which
  nothing after that write reads (nor the write's own adjoint, as tanh's
  reads its result): their restore can move to the top of the reverse
  iteration ("hoisted"), since no reverse statement before it needs the
  newer value.
"""
import math

import gast
import numpy as np

from ..syntax import names_loaded, names_stored, walk_stmts

_CHEAP = {getattr(mod, f) for mod in (math, np) for f in (
    "sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "expm1", "log1p",
    "fabs", "abs", "arctan", "atan") if hasattr(mod, f)}


class LoopValues:
    """The recomputation and hoisting decisions for one function's loops."""

    def __init__(self, loop_locals, kinds, resolve, reads_result, enabled=True):
        self.enabled = enabled  # False: nothing recomputed or hoisted (everything taped)
        self.loop_locals = loop_locals   # id(loop) -> names living one iteration
        self.kinds = kinds
        self.resolve = resolve           # name / attribute node -> Python object
        self.reads_result = reads_result  # value -> whether its adjoint reads the result
        self._cache = {}

    def _loop_facts(self, loop):
        facts = self._cache.get(id(loop))
        if facts is None:
            counts = {}
            for s in walk_stmts(loop.body):
                for v in names_stored([s]) if isinstance(s, gast.Assign) else ():
                    counts[v] = counts.get(v, 0) + 1
            position = {id(s): k for k, s in enumerate(loop.body)}
            facts = self._cache[id(loop)] = (names_stored([loop]), counts, position)
        return facts

    def hoistable(self, s, var, loop):
        """Whether the restore of `var`, overwritten by `s`, may move to the
        top of the reverse iteration."""
        if not self.enabled:
            return False
        _, counts, position = self._loop_facts(loop)
        k = position.get(id(s))
        if k is None or counts.get(var) != 1 or getattr(s, "s2sad_nosave", False):
            return False
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and s.targets[0].id == var):
            return False  # written inside a nested block, or through a tuple
        if not self.kinds.get(var) or not self.kinds[var].is_scalar:
            return False
        if isinstance(loop, gast.For) and var == loop.target.id:
            return False
        if self.reads_result(s.value):
            return False  # its own adjoint needs the newer value
        later = loop.body[k + 1:]
        reads_later = any(var in names_loaded(t) for t in later)
        return not reads_later and not (isinstance(loop, gast.While) and var in names_loaded(loop.test))

    def recomputable(self, s, var, loop):
        """Whether the loop-local `var` = value of `s` can be recomputed at the
        top of the reverse iteration."""
        if not self.enabled:
            return False
        key = ("recomputable", id(s))
        if key not in self._cache:
            self._cache[key] = self._recomputable(s, var, loop)
        return self._cache[key]

    def _recomputable(self, s, var, loop):
        written, counts, position = self._loop_facts(loop)
        k = position.get(id(s))
        kind = self.kinds.get(var)
        if k is None or kind is None or not kind.is_scalar or not self._cheap(s.value):
            return False
        local = self.loop_locals.get(id(loop), ())
        counter = loop.target.id if isinstance(loop, gast.For) else None
        taped = 0  # operands that are recorded themselves
        for u in names_loaded(s.value):
            if u not in written or (u == counter and counts.get(u) is None):
                continue
            earlier = [t for t in loop.body[:k] if u in names_stored([t])]
            if u in local and earlier and (not isinstance(s.value, gast.Call)
                                           or self.recomputable(earlier[0], u, loop)):
                if not self.recomputable(earlier[0], u, loop):
                    taped += 1
                    if taped > 1:
                        return False  # one value recorded instead of two
                continue
            writer = [t for t in loop.body[k + 1:] if u in names_stored([t])]
            if writer and self.hoistable(writer[0], u, loop):
                continue
            return False
        return True

    def _cheap(self, value):
        if isinstance(value, gast.BinOp):
            return isinstance(value.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)) \
                and self._operand(value.left) and self._operand(value.right)
        if isinstance(value, gast.UnaryOp):
            return isinstance(value.op, gast.USub) and self._operand(value.operand)
        if isinstance(value, gast.Call):
            try:
                cheap = self.resolve(value.func) in _CHEAP
            except Exception:  # noqa: BLE001 - unresolvable or unhashable: not known to be cheap
                return False
            return cheap and len(value.args) == 1 and not value.keywords \
                and self._operand(value.args[0])
        return False

    @staticmethod
    def _operand(atom):
        return isinstance(atom, (gast.Name, gast.Constant))
