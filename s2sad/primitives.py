"""A numpy or math function passed to s2sad directly (`s2sad.grad(np.sin)`,
`s2sad.jacobian(np.outer)`): differentiated through its gradient rule, as
the one-line Python function that calls it. s2sad reads source, so that
function is written to a module in the cache directory and imported."""
import importlib.util
import inspect
import os
import sys
import tempfile

import numpy as np

from . import cache
from .registry import REGISTRY
from .transforms.libraries import of_package

_WRAPPERS = {}  # primitive -> its Python function


def as_function(obj):
    """`obj` itself, or for a primitive with a gradient rule (and no Python
    source of its own to read), a Python function calling it; for a custom
    gradient (`custom_gradient`, `custom_vjp`), a function calling it, so that
    `grad(f)` of a custom f goes through its rule, as `jax.grad(f)` does."""
    if getattr(obj, "__s2sad_custom__", None) and not hasattr(obj, "__code__"):
        if obj not in _WRAPPERS:
            _WRAPPERS[obj] = _custom_wrapper(obj)
        return _WRAPPERS[obj]
    if getattr(obj, "__s2sad_derivative__", False) or (
            hasattr(obj, "__code__") and not of_package(obj, "numpy")):
        return obj
    rule = REGISTRY.lookup(obj)
    if rule is None:
        return obj
    if rule.signature is not None:
        params = rule.required
    elif rule.nondiff and isinstance(obj, np.ufunc):
        # np.floor, np.sign: flat (or integer-valued), so their gradient is 0,
        # as JAX gives it
        params = ["x"] if obj.nin == 1 else [f"x{i + 1}" for i in range(obj.nin)]
    else:
        return obj
    if obj not in _WRAPPERS:
        _WRAPPERS[obj] = _wrapper(obj, params)
    return _WRAPPERS[obj]


def _custom_wrapper(obj):
    """`def f(x, y): return f_custom(x, y)`, with `f_custom` the custom
    gradient object in the module's namespace (it is called with positional
    arguments only, as the object itself is)."""
    name = obj.fn.__name__
    params = ", ".join(inspect.signature(obj.fn).parameters)
    source = (f'"""{obj.fn.__qualname__} ({obj.fn.__module__}), a custom gradient as a '
              f'function s2sad reads (s2sad.primitives)."""\n\n\n'
              f"def {name}({params}):\n    return {name}_custom({params})\n")
    loaded = _load(f"s2sad_custom_{cache.module_key(source)}", source, name + "_custom", obj)
    return getattr(loaded, name)


def _wrapper(obj, required):
    from .rule_table import _qualified
    qualified = _qualified(obj)
    if qualified is None:
        return obj
    name = qualified.rsplit(".", 1)[-1]
    params = ", ".join(required)
    module = qualified.rpartition(".")[0]  # np.linalg, math, operator, scipy.special
    if not module:  # abs, pow: `def abs(x): return abs(x)` would call itself
        module, qualified = "builtins", "builtins." + qualified
    imports = ("import numpy as np\n" if module.split(".")[0] == "np" else
               f"import {module}\n" if module else "")
    source = (f'"""{qualified}, as a function s2sad reads (s2sad.primitives)."""\n'
              f"{imports}\n\n"
              f"def {name}({params}):\n    return {qualified}({params})\n")
    return getattr(_load("s2sad_primitive_" + cache.module_key(source), source), name)


def _load(module, source, global_name=None, value=None):
    """Write `source` to the cache directory as `module`, import it (a module
    object of its own, `global_name` bound to `value` in it first)."""
    try:
        path = cache.write_module(module, source)
    except OSError:  # an unwritable cache: a directory of this process
        path = os.path.join(tempfile.mkdtemp(prefix="s2sad-"), module + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    if global_name is not None:
        setattr(loaded, global_name, value)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded
