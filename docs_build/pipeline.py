"""The "How it works" page's lists, made from the compiler's code: its stages
(the folders of transforms/, with their docstrings) and the optimisation
passes in the order transforms/optimise/pipeline.py runs them."""
import ast
import importlib
import inspect

# the folders of transforms/ in the order transforms/program.py runs them
STAGES = ["frontend", "analysis", "reverse", "forward", "optimise", "checks", "emit"]


def _first_paragraph(doc):
    return " ".join((doc or "").split("\n\n")[0].split())


def stages_markdown():
    out = []
    for k, stage in enumerate(STAGES, 1):
        module = importlib.import_module(f"s2sad.transforms.{stage}")
        out.append(f"{k}. **`{stage}/`**: {_first_paragraph(module.__doc__)}")
    return "\n".join(out) + "\n"


def _called(call, namespace, locals_):
    """The function or class a call statement of the pipeline runs (resolved
    in the pipeline module's namespace; `x.run(...)` of a local `x = C(...)`
    is C), or None."""
    func = call.func
    while isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Call):  # cleanup.ZeroPropagation(...).run
            func = func.value.func
            break
        if isinstance(func.value, ast.Name) and func.value.id in locals_:  # dead_stores.run
            return locals_[func.value.id]
        if isinstance(func.value, ast.Name) and func.value.id not in namespace:
            return None
        break
    try:
        return eval(compile(ast.Expression(func), "<pass>", "eval"), namespace)  # noqa: S307
    except Exception:  # noqa: BLE001 - a local callable: not a pass
        return None


def optimisation_passes():
    """(name, module, description) of each pass optimise_reverse runs (a call
    made as a statement of its own; a value it computes is an analysis), in
    order, a pass run twice listed once. The description is the module's
    docstring the first time a module comes, else the function's."""
    pipeline = importlib.import_module("s2sad.transforms.optimise.pipeline")
    namespace = vars(pipeline)
    tree = ast.parse(inspect.getsource(pipeline.optimise_reverse)).body[0]
    locals_, found, seen, modules = {}, [], set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and isinstance(node.targets[0], ast.Name):
            called = _called(node.value, namespace, {})
            if inspect.isclass(called):
                locals_[node.targets[0].id] = called
    statements = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Expr)
                         and isinstance(n.value, ast.Call)), key=lambda n: n.lineno)
    for node in statements:
        fn = _called(node.value, namespace, locals_)
        module = inspect.getmodule(fn) if fn is not None else None
        if module is None or not module.__name__.startswith("s2sad.transforms."):
            continue
        name = fn.__qualname__
        if name in seen:
            continue
        seen.add(name)
        own = module is pipeline or module.__name__ in modules
        if own:  # (a function's first sentence; a class without one: its run method's)
            doc = _first_paragraph(inspect.getdoc(fn) or inspect.getdoc(getattr(fn, "run", None)))
            doc = doc.split(". ")[0].rstrip(".") + "." if doc else ""
        else:
            doc = _first_paragraph(module.__doc__)
        modules.add(module.__name__)
        found.append((name, module.__name__.removeprefix("s2sad.transforms."), doc))
    return found


def passes_markdown():
    lines = []
    for k, (name, module, doc) in enumerate(optimisation_passes(), 1):
        path = module.replace(".", "/") + ".py"
        lines.append(f"{k}. `{name}` (`transforms/{path}`): {doc}")
    return "\n".join(lines) + "\n"
