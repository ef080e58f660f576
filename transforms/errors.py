"""Errors a user can cause; each names the function, file and line."""
import os
import re


class S2sadError(Exception):
    """Base class of the errors s2sad raises for problems in user code."""


class NoGradientError(S2sadError, LookupError):
    """No gradient is defined for an operation, or for this use of it (a
    LookupError, as TensorFlow raises)."""


class S2sadTypeError(S2sadError, TypeError):
    """An argument or construct of the wrong type (a TypeError too)."""


class S2sadValueError(S2sadError, ValueError):
    """An argument or option with a value s2sad cannot take (a ValueError too)."""


class NotImplementedArgument(Exception):
    """A call of a function s2sad defines, with an argument (or a value of
    one) its definition does not implement; the binder names the line."""


class SourceLocation:
    """Where a node of the user's function came from."""

    def __init__(self, filename, first_line, func_name):
        self.filename = filename
        self.first_line = first_line  # line of the `def` in the file
        self.func_name = func_name

    @property
    def is_generated(self):
        """Code s2sad generated (a derivative differentiated again: hessian,
        hvp, grad of grad), whose list tapes are balanced stacks of atoms;
        s2sad/backend.py names its modules' files so."""
        return self.filename.startswith("<s2sad s2sad_")

    def line_of(self, node):
        lineno = getattr(node, "lineno", None)
        return None if lineno is None else self.first_line + lineno - 1

    def describe(self, node=None):
        line = self.line_of(node) if node is not None else self.first_line
        where = f"{self.filename}:{line}" if line else self.filename
        return f"{where}, in {self.func_name}"


class UnsupportedSyntaxError(S2sadError, SyntaxError):
    """The function uses a construct s2sad cannot differentiate."""

    def __init__(self, construct, location, node=None, hint=""):
        self.construct = construct
        msg = f"{location.describe(node)}: {construct} is not supported in a differentiated function"
        if hint:
            msg += f". {hint}"
        super().__init__(msg)


class NoForwardModeError(NoGradientError):
    """Forward mode of a function with a part that defines only reverse
    mode (a custom vjp); jacobian(mode="auto") takes reverse mode then."""


class SourceUnavailableError(S2sadError, TypeError):
    """The function's source code cannot be found."""


def missing_gradient(callee_name, location, node, obj=None):
    """TensorFlow's error for an operation without a gradient; `obj`, the
    callee, when known (a library's Python function is named as such)."""
    from .libraries import describe_library_function, is_library_function
    library = ""
    if is_library_function(obj):
        library = (f": {describe_library_function(obj)} is a function of an installed package, "
                   f"whose source s2sad does not differentiate")
    return NoGradientError(
        f"No gradient defined for operation '{callee_name}' "
        f"({location.describe(node)}){library}. Give it a rule with s2sad.register_gradient, "
        f"declare it s2sad.non_differentiable, or wrap its result in s2sad.stop_gradient.")


def in_definition(exc, helper_fn, location, node):
    """`exc` (a LookupError raised while differentiating `helper_fn`) as the
    user's error when `helper_fn` is one of s2sad's own definitions of a
    numpy function (np.linalg.svd through svd_reduced): it names the user's
    call, not the line of s2sad's source that made it. Otherwise None."""
    module = getattr(helper_fn, "__module__", "") or ""
    if module.split(".")[0] != "s2sad" or not isinstance(exc, LookupError):
        return None
    name = getattr(helper_fn, "__name__", "a definition")
    text = str(exc)
    # the definition's own file and line say nothing to the user: dropped
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = re.sub(r"^(.*?)(?:" + re.escape(package) + r"|[^:]*[/\\]s2sad[/\\])[^:]*\.py:\d+, in \w+",
                  r"\1here", text, count=1)
    text = text[len("here: "):] if text.startswith("here: ") else text
    return NoGradientError(f"{location.describe(node)}: through s2sad's definition {name} of the "
                       f"numpy function called here: {text}")
