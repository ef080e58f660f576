"""Markers a differentiated function can use. Outside a differentiated
function they do nothing: `stop_gradient(x)` is `x`, also in a function
the user compiles with numba (`with stop_recording():` is Python only, as
numba compiles no context managers)."""
import sys

from s2sad.lazy_numba import overload

from .checkpointing import checkpointed


def stop_gradient(x):
    """`x`, through which no gradient flows (tf.stop_gradient)."""
    return x


class stop_recording:
    """`with s2sad.stop_recording():` the block's results are constants for
    differentiation (tf.GradientTape.stop_recording)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def reset_recording():
    """Everything computed before this statement is a constant for
    differentiation (tf.GradientTape.reset)."""


@overload(stop_gradient)
def _stop_gradient_numba(x):
    return lambda x: x


@overload(reset_recording)
def _reset_recording_numba():
    return lambda: None


class _Markers(dict):
    """marker object -> its name; numba.prange among them once numba is
    loaded (a function using it imported numba: s2sad need not)."""

    def get(self, obj, default=None):
        numba = sys.modules.get("numba")
        if numba is not None and obj is getattr(numba, "prange", None):
            return "prange"
        return super().get(obj, default)


MARKERS = _Markers({stop_gradient: "stop_gradient", stop_recording: "stop_recording",
                    reset_recording: "reset_recording"})
# (numba.prange: a loop over range whose iterations may run in parallel,
# transforms/optimise/parallel.py)
# for t in s2sad.checkpointed(range(n)): a loop whose tape is snapshots
# (transforms/reverse/checkpoint_loops.py)
MARKERS[checkpointed] = "checkpointed"
