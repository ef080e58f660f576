"""Tuple assignments in reverse mode: `a, b = h(x, w)` (a helper's results,
a tuple-valued primitive, the rows of an array) unpacked into names."""
import gast

from . import checkpoint_sweeps
from ..syntax import assign, call, name


class Unpacking:
    """Mixed into ReverseMode, whose `record`, `d`, `active`, `zero_of`,
    `zero_stmt`, `contributions`, `accumulate_all`, `atom_kind`, `namer` and
    `generated` it uses."""

    def assign_tuple(self, s, target, frames):
        lifted = checkpoint_sweeps.reverse_call(self, s, frames)
        if lifted is not None:
            return lifted
        names_ = [e.id for e in target.elts]
        saves, afters, restores = [], [], []
        for e in target.elts:
            sv, af, rs = self.record(e, s, frames)
            saves += sv
            afters += af
            restores += rs
        if not any(n in self.active for n in names_):
            return saves + [s] + afters, restores
        parts = [name(self.d(n)) if n in self.active else self.zero_of(n) for n in names_]
        # `a, b = h(b, w)` reads a value it overwrites: the adjoint of the call
        # reads the values as they were before it, so they are restored first,
        # and the targets' adjoints, taken beforehand, restart at zero before
        # the operands (the targets among them) receive their contributions
        held = []
        if set(names_) & self.operand_names(s.value):
            for k, part in enumerate(parts):
                if isinstance(part, gast.Constant):
                    continue
                keep = self.namer.fresh(self.d(names_[k]) + "_out")
                self.generated.add(keep)
                held.append(assign(keep, part))
                parts[k] = name(keep)
        g = gast.Tuple(elts=parts, ctx=gast.Load())
        unpacked = self.atom_kind(s.value)
        if unpacked.is_array:  # u, v = P[k]: the cotangent is an array too (numba adds no tuple)
            g = call("np.array" if unpacked.ndim == 1 else "np.stack", g)
        prelude, pairs = self.contributions(s, None, s.value, g=g)
        if getattr(s, "s2sad_constant", False):
            prelude, pairs = [], []
        zeros = [self.zero_stmt(n) for n in names_ if n in self.active]
        if held:
            rev = held + restores + zeros + prelude + self.accumulate_all(pairs, None)
        else:
            rev = prelude + self.accumulate_all(pairs, None) + restores + zeros
        return saves + [s] + afters, rev

