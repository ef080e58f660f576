"""Programs s2sad must refuse: a call made for its effect on an array that
s2sad does not follow (np.putmask, np.put, a.put, np.fill_diagonal,
a.resize, out= given a view, np.copyto with where=), or a list of
differentiated values used other than as a stack (stk.reverse(), stk.pop(0),
stk.insert, stk.extend, stk.clear). The property is not a
gradient but the error: `grad` raises an s2sad error whose message names
the program's file and the line of that call, never a result."""
import ast
import inspect
import re

EXPECTED = "effect_refusal"   # the feature of such programs


def _refused_call(node):
    """Whether a call is one of the effects the generator writes to be refused."""
    if not isinstance(node, ast.Call):
        return False
    f = ast.unparse(node.func)
    if f in ("np.putmask", "np.put", "np.fill_diagonal") or f.endswith((".resize", ".put")):
        return True
    # a user's stack used otherwise than by append and pop() (forms.py, _stack_misuse)
    if re.fullmatch(r"stk\d+\.(reverse|insert|extend|clear)", f) or \
            re.fullmatch(r"stk\d+\.pop", f) and node.args:
        return True
    if any(k.arg == "out" and isinstance(k.value, ast.Subscript) for k in node.keywords):
        return True
    return f == "np.copyto" and any(k.arg == "where" for k in node.keywords)


def effect_lines(f):
    """(file, the lines of refused calls in the function `f`)."""
    path = inspect.getsourcefile(f)
    with open(path) as fh:
        tree = ast.parse(fh.read())
    fdef = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == f.__name__][0]
    return path, sorted({n.lineno for n in ast.walk(fdef) if _refused_call(n)})


def check_refused(L, args, jit, res):
    """The result for a program that must be refused (see the module)."""
    import s2sad
    from s2sad.transforms.errors import S2sadError

    path, lines = effect_lines(L.f)
    if not lines:
        return dict(res, status="invalid", category="no refused call in the program")
    for mode in ([False, True] if jit else [False]):
        label = "jit" if mode else "python"
        try:
            s2sad.grad(L.f, wrt=L.prog.wrt, jit=mode)(*[_copy(a) for a in args])
        except (S2sadError, LookupError) as exc:
            text = str(exc)
            if not any(f"{path}:{n}" in text for n in lines):
                return dict(res, status="fail", category=f"refusal names no line ({label})",
                            message=f"expected {path}:{lines}; {type(exc).__name__}: {text}"[:2000])
            res = dict(res, category="refused as expected", message=text[:300])
            continue
        except Exception as exc:  # noqa: BLE001 - anything else is not a clear refusal
            return dict(res, status="fail", category=f"effect not refused clearly ({label})",
                        message=f"{type(exc).__name__}: {exc}"[:2000])
        return dict(res, status="fail", category=f"effect not refused ({label})",
                    message=f"grad returned for a call at {path}:{lines}")
    return dict(res, fd="refused")


def _copy(a):
    from .leaves import copy_value
    return copy_value(a)
