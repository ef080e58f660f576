"""What the values of module-level names are, for the passes that read them
where the function is read (object_methods.py, module_function_args.py,
containers/module_containers.py): an object of a user's class, and data (a
number, an array, a container of them)."""
import inspect
import numbers
import types

import numpy as np

from ...libraries import is_library_class, is_library_function

NUMBERS = (numbers.Number, np.ndarray, np.generic)


def plain_object(obj):
    """An instance of a user's class (not a module, function, number, array,
    container or library object), a NamedTuple, or a user's class itself."""
    if obj is None or isinstance(obj, (types.ModuleType, types.FunctionType,
                                       types.BuiltinFunctionType, types.MethodType, str, bytes,
                                       list, dict, set, frozenset) + NUMBERS):
        return False
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return False  # (a NamedTuple's fields are attributes)
    return not is_library_class(obj if isinstance(obj, type) else type(obj))


def data(value):
    """A number, a numeric array, or a tuple, list or dict of them."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biufc"
    if isinstance(value, NUMBERS):
        return True
    if type(value) in (tuple, list):
        return all(data(v) for v in value)
    if type(value) is dict:
        return all(isinstance(k, (str, int)) and data(v) for k, v in value.items())
    return False


def method_of_plain_object(obj):
    """Whether `obj` is a method bound to an object of a user's class (or a
    classmethod bound to the class), whose function s2sad can read."""
    return inspect.ismethod(obj) and plain_object(obj.__self__) and \
        inspect.isfunction(obj.__func__) and not is_library_function(obj.__func__)
