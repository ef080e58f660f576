"""Reverse mode: the forward sweep that records what it overwrites and the
reverse sweep of adjoint statements from the gradient templates, with its
tapes, recomputation, fused sweeps of loops that only add to totals,
checkpointed loops and split-mode recursion."""
