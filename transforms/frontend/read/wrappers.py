"""Which function's source s2sad reads for a wrapped function.

A numba dispatcher (`@njit`) given to s2sad runs its Python function:
s2sad reads that (`py_func`). (Called from a differentiated function, a
numba kernel is a primitive: it needs a registered gradient.) A
`functools.wraps` wrapper is another function: `inspect.unwrap` would
skip the wrapper's own code, and the derivative of `@scaled def g` (a
wrapper returning `2 * f(x)`) would be g's alone, a wrong gradient with no
error. The wrapper is skipped only when it passes its arguments and its
result through unchanged (`return f(*args, **kwargs)`, or a timing or
logging wrapper that keeps the result in a name it returns); any other
wrapper is differentiated from its own source, where `f` is a closure
variable naming the wrapped function."""
import ast
import inspect
import textwrap


def plain_callable(obj):
    """A numba dispatcher's Python function; anything else unchanged."""
    py_func = getattr(obj, "py_func", None)
    if inspect.isfunction(py_func) and type(obj).__module__.startswith("numba"):
        return py_func
    return obj


def source_function(fn):
    """The function whose source stands for `fn` (see the module's text)."""
    seen = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        plain = plain_callable(fn)
        if plain is not fn:
            fn = plain
            continue
        inner = getattr(fn, "__wrapped__", None)
        if inner is None or (inspect.isfunction(fn) and not _passes_through(fn, inner)):
            return fn
        fn = inner
    return fn


def _passes_through(wrapper, inner):
    """Does `wrapper` call `inner` (a closure variable) once with its own
    parameters unchanged and return that call's value unchanged, reading
    its parameters and that value nowhere else?"""
    try:
        # (of the code: inspect.getsource(wrapper) would read the wrapped function's)
        tree = ast.parse(textwrap.dedent(inspect.getsource(wrapper.__code__)))
    except (OSError, TypeError, SyntaxError):
        return False
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, ast.FunctionDef):
        return False
    cells = dict(zip(wrapper.__code__.co_freevars, wrapper.__closure__ or ()))
    callee = {v for v, cell in cells.items() if _contents(cell) is inner}
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    params = set(positional) | {a.arg for a in args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id in callee]
    if len(calls) != 1 or not _forwards(calls[0], positional, args):
        return False
    call = calls[0]
    body = fn.body
    if isinstance(body[-1], ast.Return) and body[-1].value is call:
        result, rest = None, body[:-1]
    elif isinstance(body[-1], ast.Return) and isinstance(body[-1].value, ast.Name):
        result = body[-1].value.id
        binding = [s for s in body if isinstance(s, ast.Assign) and s.value is call
                   and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                   and s.targets[0].id == result]
        if len(binding) != 1:
            return False
        rest = [s for s in body[:-1] if s is not binding[0]]
    else:
        return False
    for s in rest:  # nothing else reads the parameters or writes the result
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and (n.id in params or n.id == result):
                return False
    return True


def _forwards(call, positional, args):
    """f(a, b, *args, **kwargs) with the wrapper's own parameters in order."""
    expected = [ast.Name] * len(positional)
    given = call.args
    if args.vararg is not None:
        if not given or not isinstance(given[-1], ast.Starred) \
                or not isinstance(given[-1].value, ast.Name) \
                or given[-1].value.id != args.vararg.arg:
            return False
        given = given[:-1]
    if len(given) != len(expected) or any(
            not isinstance(g, ast.Name) or g.id != p for g, p in zip(given, positional)):
        return False
    kws = call.keywords
    if args.kwarg is not None:
        if not kws or kws[-1].arg is not None or not isinstance(kws[-1].value, ast.Name) \
                or kws[-1].value.id != args.kwarg.arg:
            return False
        kws = kws[:-1]
    return all(k.arg == a.arg and isinstance(k.value, ast.Name) and k.value.id == a.arg
               for k, a in zip(kws, args.kwonlyargs)) and len(kws) == len(args.kwonlyargs)


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return None
