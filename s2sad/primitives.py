"""A numpy or math function passed to s2sad directly (`s2sad.grad(np.sin)`,
`s2sad.jacobian(np.outer)`): differentiated through its gradient rule, as
the one-line Python function that calls it. s2sad reads source, so that
function is written to a module in the cache directory and imported."""
import importlib.util
import os
import sys
import tempfile

import numpy as np

from . import cache
from .registry import REGISTRY

_WRAPPERS = {}  # primitive -> its Python function


def as_function(obj):
    """`obj` itself, or for a primitive with a gradient rule (and no Python
    source of its own to read), a Python function calling it."""
    if getattr(obj, "__s2sad_derivative__", False) or (
            hasattr(obj, "__code__") and not (getattr(obj, "__module__", "") or "").startswith(
                "numpy")):
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
    module = "s2sad_primitive_" + cache.module_key(source)
    try:
        path = cache.write_module(module, source)
    except OSError:  # an unwritable cache: a directory of this process
        path = os.path.join(tempfile.mkdtemp(prefix="s2sad-"), module + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return getattr(loaded, name)
