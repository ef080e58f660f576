"""Markers a differentiated function can use. Outside a differentiated
function they do nothing: `stop_gradient(x)` is `x`."""


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


MARKERS = {stop_gradient: "stop_gradient", stop_recording: "stop_recording",
           reset_recording: "reset_recording"}
