"""Binomial checkpointing (Griewank and Walther, "Algorithm 799: revolve",
ACM TOMS 26, 2000) for the reverse sweep of long loops.

Reversing `n` steps of a loop by recording every step costs memory in
proportion to n. With `s` snapshots of the loop-carried state, revolve
reverses up to C(s + r, s) steps running each step forward at most `r`
times (besides the once it is run, recording, for its adjoint), which is
optimal. The schedule is an online state machine: `revolve(schedule)`
returns the next action for the generated code to carry out:

    ADVANCE   run the steps revolve_from(schedule) .. revolve_to(schedule) - 1
    TAKESHOT  copy the state into snapshot slot revolve_slot(schedule)
    RESTORE   copy the state back from snapshot slot revolve_slot(schedule)
    FIRSTURN, YOUTURN
              the adjoint of step revolve_step(schedule) (its forward,
              recorded, and its reverse), from the state before it
    TERMINATE every step is reversed

The split points follow the recursive binomial partition: to reverse `l`
steps whose first state is held in a snapshot, with `d` snapshots for them
(that one included) and `r` the least number of repetitions with
C(d + r, d) >= l, advance by max(1, l - C(d - 1 + r, d - 1), C(d + r - 2, d))
steps, take a snapshot, reverse the part after it with d - 1 snapshots,
then the part before it with d. tests/test_checkpointing.py checks that this
reverses every step once, uses at most `s` snapshots and runs the minimal
number of forward steps, r * n - C(s + r, s + 1) (the paper's Theorem).

Functions here are numba-compatible (register_jitable) and plain Python
for `jit=False`.
"""
import numpy as np
from s2sad.lazy_numba import overload, register_jitable, types
from .transforms.errors import S2sadTypeError, S2sadValueError

ADVANCE, TAKESHOT, RESTORE, FIRSTURN, YOUTURN, TERMINATE = 1, 2, 3, 4, 5, 6

# the schedule's state, in one int64 array: these fields, then the step
# index held by each snapshot slot
_CHECK, _CAPO, _FINE, _SNAPS, _TURNED, _FROM, _ACTION = range(7)
_FIELDS = 7
_LIMIT = 1 << 62  # binomials past any trip count are capped here


@register_jitable
def binomial_steps(snapshots, repetitions):
    """C(snapshots + repetitions, snapshots): how many steps `snapshots`
    snapshots reverse with at most `repetitions` forward runs of a step
    (capped at 2**62)."""
    if snapshots < 0 or repetitions < 0:
        return 0
    k = min(snapshots, repetitions)
    n = snapshots + repetitions
    c = 1
    for i in range(k):
        c = c * (n - i) // (i + 1)
        if c >= _LIMIT:
            return _LIMIT
    return c


@register_jitable
def repetitions(steps, snapshots):
    """The least r with C(snapshots + r, snapshots) >= steps."""
    r = 0
    while binomial_steps(snapshots, r) < steps:
        r += 1
    return r


@register_jitable
def revolve_start(steps, snapshots):
    """A schedule reversing `steps` steps with `snapshots` snapshot slots
    (at most `steps` of them are used)."""
    s = max(1, min(snapshots, max(steps, 1)))
    schedule = np.zeros(_FIELDS + s, dtype=np.int64)
    schedule[_CHECK] = -1
    schedule[_CAPO] = 0
    schedule[_FINE] = steps
    schedule[_SNAPS] = s
    return schedule


@register_jitable
def revolve_slots(schedule):
    """How many snapshots the schedule may hold at once."""
    return schedule[_SNAPS]


@register_jitable
def _split(length, free):
    """How far to advance before the next snapshot (see the module doc)."""
    if free <= 1:
        return length - 1
    r = repetitions(length, free)
    ahead = max(1, length - binomial_steps(free - 1, r))
    if r >= 2:
        ahead = max(ahead, binomial_steps(free, r - 2))
    return min(ahead, length - 1)


@register_jitable
def revolve(schedule):
    """The next action of the schedule (and its state moved past it)."""
    check, capo, fine = schedule[_CHECK], schedule[_CAPO], schedule[_FINE]
    if fine == capo:  # everything from capo on is reversed: back to a snapshot
        if check < 0:
            action = TERMINATE
        else:
            schedule[_CAPO] = schedule[_FIELDS + check]
            action = RESTORE
    elif fine - capo == 1:  # the step at capo: its adjoint
        schedule[_FINE] = fine - 1
        if check >= 0 and schedule[_FIELDS + check] == capo:
            schedule[_CHECK] = check - 1  # its snapshot is no longer needed
        action = YOUTURN if schedule[_TURNED] else FIRSTURN
        schedule[_TURNED] = 1
    elif check < 0 or schedule[_FIELDS + check] != capo:
        schedule[_CHECK] = check + 1
        schedule[_FIELDS + check + 1] = capo
        action = TAKESHOT
    else:
        schedule[_FROM] = capo
        schedule[_CAPO] = capo + _split(fine - capo, schedule[_SNAPS] - check)
        action = ADVANCE
    schedule[_ACTION] = action
    return action


@register_jitable
def revolve_current(schedule):
    """The action `revolve` returned last."""
    return schedule[_ACTION]


@register_jitable
def revolve_from(schedule):
    """First step of an ADVANCE."""
    return schedule[_FROM]


@register_jitable
def revolve_to(schedule):
    """End (exclusive) of an ADVANCE: the step the state is then before."""
    return schedule[_CAPO]


@register_jitable
def revolve_slot(schedule):
    """Snapshot slot of a TAKESHOT or RESTORE."""
    return schedule[_CHECK]


@register_jitable
def revolve_step(schedule):
    """The step a FIRSTURN or YOUTURN reverses."""
    return schedule[_FINE]


@register_jitable
def trip_count(start, stop, stride):
    """len(range(start, stop, stride))."""
    if stride > 0:
        return max(0, (stop - start + stride - 1) // stride)
    return max(0, (start - stop - stride - 1) // (-stride))


@register_jitable
def checkpoint_slots(snapshots, budget, steps, state_bytes, step_bytes):
    """Snapshots for a checkpointed loop: `snapshots` if given (> 0), else
    as many copies of the state as fit in `budget` bytes besides one step's
    tape (0 if not one does), else (no budget either) about sqrt(steps);
    at most one per step."""
    # (bytes as ints: a float32 module writes the estimate's factors as float32)
    state, step = int(state_bytes), int(step_bytes)
    if snapshots <= 0 and budget <= 0:
        snapshots = int(np.sqrt(steps)) + 1
    if snapshots <= 0:
        # a slot: a copy of the state, and the step it holds (8 bytes)
        snapshots = (budget - step) // (state + 8)
        if snapshots < 1:
            return 0
    return max(1, min(snapshots, max(steps, 1)))


def schedule_actions(steps, snapshots):
    """The whole schedule as a list of (action, argument) pairs (for tests
    and for reading): ADVANCE's argument is (from, to), TAKESHOT's and
    RESTORE's the slot, a turn's the step."""
    schedule = revolve_start(steps, snapshots)
    out = []
    while True:
        a = revolve(schedule)
        if a == ADVANCE:
            out.append((a, (int(revolve_from(schedule)), int(revolve_to(schedule)))))
        elif a in (TAKESHOT, RESTORE):
            out.append((a, int(revolve_slot(schedule))))
        elif a in (FIRSTURN, YOUTURN):
            out.append((a, int(revolve_step(schedule))))
        else:
            return out


class MemoryBudgetExceeded(Exception):
    """Raised by a derivative generated under the default budget (no
    `memory=`, no S2SAD_MEMORY) before a loop records a tape larger than
    the budget; args: (the loop's line, the estimated bytes). The
    Derivative catches it and calls again a variant that checkpoints the
    loop (s2sad/api.py). Nothing before the loop changes the caller's
    arguments (the derivative copies arrays it writes), so the call is
    simply repeated."""

    def __str__(self):
        line, tape = (tuple(self.args) + (None, None))[:2]
        return (f"the loop at line {line} would record about {tape} bytes, more than the "
                f"default memory budget (half the physical memory). s2sad.grad/vjp catch this "
                f"and call a variant that checkpoints the loop; to run such a call elsewhere, "
                f"differentiate with memory=... (see README, 'Memory at scale')")


@register_jitable
def check_memory(tape_bytes, budget, line):
    """Raise MemoryBudgetExceeded(line, tape_bytes) if a loop's estimated
    tape exceeds the default budget."""
    if tape_bytes > budget:
        raise MemoryBudgetExceeded(line, tape_bytes)


# the default budget in bytes (None: half the physical memory); tests set it
DEFAULT_MEMORY = None


def default_budget():
    """The budget of a derivative given no `memory=` and no S2SAD_MEMORY:
    DEFAULT_MEMORY, or half the machine's physical memory (None if the
    system does not say)."""
    if DEFAULT_MEMORY is not None:
        return int(DEFAULT_MEMORY)
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, ValueError, OSError):
        return None


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def budget_off(memory):
    """Whether `memory` (None: the S2SAD_MEMORY environment variable) is
    "off": no budget, not even the default one (loops always record)."""
    import os
    if memory is None:
        memory = os.environ.get("S2SAD_MEMORY")
    return isinstance(memory, str) and memory.strip().lower() == "off"


def describe_bytes(n):
    """`n` bytes for a message: "130.4 GB", "512 bytes"."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} bytes"


def warn_switch(fn, code_of, mode, exceeded, stacklevel):
    """Warn (MemoryBudgetWarning) that `mode` of `fn` switched a loop to
    checkpointing: the loop's line (in `fn`'s file when it is `code_of`'s,
    else in a function it calls), the estimate, the budget, what to do."""
    import warnings
    from .errors import MemoryBudgetWarning
    line, tape = (tuple(exceeded.args) + (None, None))[:2]
    code = getattr(code_of, "__code__", None)
    name = getattr(fn, "__qualname__", repr(fn))
    lines = [ln for _, _, ln in code.co_lines() if ln is not None] if code is not None else []
    if lines and code.co_firstlineno <= (line or 0) <= max(lines):
        where = f"the loop at {code.co_filename}:{line}"
    else:
        where = f"the loop at line {line} of a function {name} calls"
    budget = default_budget()
    warnings.warn(MemoryBudgetWarning(
        f"{mode} of {name}: {where} would record about {describe_bytes(tape or 0)} "
        f"(estimated), more than the memory budget of {describe_bytes(budget or 0)} (half "
        f"the physical memory), so it is reversed by binomial checkpointing from now on for "
        f"arguments of these kinds: exact, but its steps run again and it may be much "
        f"slower. To record it, raise the budget (S2SAD_MEMORY=64GB in the environment, or "
        f"memory=\"64GB\" when differentiating) or turn checkpointing off "
        f"(S2SAD_MEMORY=off, or memory=\"off\")."), stacklevel=stacklevel)


def memory_budget(memory):
    """Bytes of a `memory=` option: an int, or a string such as "64MB",
    "1.5 GiB"; None takes the S2SAD_MEMORY environment variable, and without
    it there is no explicit budget (None: the default budget applies, checked
    lazily: `default_budget`, MemoryBudgetExceeded)."""
    import os
    import re
    if memory is None:
        memory = os.environ.get("S2SAD_MEMORY") or None
        if memory is None:
            return None
    if isinstance(memory, (int, np.integer)) and not isinstance(memory, bool):
        if memory <= 0:
            raise S2sadValueError(f"memory must be positive, not {memory}")
        return int(memory)
    if isinstance(memory, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]i?b|b)?\s*", memory.lower())
        if m and float(m.group(1)) > 0:
            return int(float(m.group(1)) * _UNITS[m.group(2) or ""])
    raise S2sadValueError(f"memory must be a positive number of bytes, a string such as "
                          f"'64MB' or '2GiB', or 'off', not {memory!r}")


def checkpointed(iterable, snapshots=None):
    """Mark a loop for binomial checkpointing in a differentiated function:

        for t in s2sad.checkpointed(range(n), snapshots=k):
            ...

    Its reverse sweep keeps `k` copies of the loop-carried state instead of
    a tape of every iteration, and runs iterations again from them (revolve).
    Without `snapshots`, as many as the derivative's memory budget holds, or
    (no budget) about sqrt(n). Called outside a derivative it is `iterable`
    itself."""
    if snapshots is not None and (not isinstance(snapshots, (int, np.integer))
                                  or isinstance(snapshots, bool) or snapshots < 1):
        raise S2sadValueError(f"snapshots must be a positive int, not {snapshots!r}")
    return iterable


def checkpoint(fn):
    """JAX's `jax.checkpoint` (`torch.utils.checkpoint`): calls of `fn` in a
    differentiated function record nothing inside `fn`; the reverse sweep
    runs `fn`'s forward again, recording, and then its reverse. This is how
    s2sad differentiates every call of a plain Python helper (the caller's
    forward sweep calls the helper itself, the reverse sweep its
    `vjp_<helper>`), so `checkpoint` returns `fn` unchanged; it states the
    intent, and keeps code written for JAX working. One exception: a
    recursive helper is reversed in split mode (its activations record, and
    none runs forward twice); marked, it stays in joint mode, where memory
    grows with the recursion's depth, not its size
    (transforms/reverse/split_recursion.py)."""
    import inspect
    if not callable(fn):
        raise S2sadTypeError(f"s2sad.checkpoint takes a function, not {fn!r}")
    if not (inspect.isfunction(fn) or getattr(fn, "__s2sad_derivative__", False)):
        raise S2sadTypeError(f"s2sad.checkpoint takes a Python function s2sad can read; {fn!r} "
                        f"has a gradient rule or no source, and is not recomputed")
    if inspect.isfunction(fn):
        fn.__s2sad_checkpoint__ = True
    return fn


__all__ = ["ADVANCE", "TAKESHOT", "RESTORE", "FIRSTURN", "YOUTURN", "TERMINATE",
           "revolve_start", "revolve", "revolve_current", "revolve_from", "revolve_to",
           "revolve_slot", "revolve_step", "revolve_slots", "trip_count", "checkpoint_slots",
           "state_nbytes", "check_memory", "MemoryBudgetExceeded"]


def state_nbytes(x):
    """Bytes of one value of a loop-carried variable."""
    return np.asarray(x).nbytes


@overload(state_nbytes)
def _state_nbytes(x):
    if isinstance(x, types.Array):
        return lambda x: x.size * x.itemsize
    return lambda x: 8
