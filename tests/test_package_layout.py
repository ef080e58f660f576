"""The package side's layout: one topic name per numpy function across
s2sad/rules/, s2sad/runtime/ and s2sad/definitions/, rule modules written
against s2sad.extend alone, the runtime's face re-exporting every helper,
and the numba forms and definitions tables filled by registration."""
import ast
import importlib
import pathlib
import pkgutil

import numpy as np

import s2sad
import s2sad.generate  # noqa: F401  (registers the rules, forms and definitions, as the first derivative does)
from s2sad import export_runtime, forms, libraries, runtime
from s2sad.definitions import registry as definitions
from s2sad.registry import REGISTRY

libraries.load_all()  # (the tables below hold scipy's registrations too)

PACKAGE = pathlib.Path(s2sad.__file__).parent
# what a rule module may import from s2sad: the facade, and the helpers its templates name
RULE_IMPORTS = {"extend", "runtime"}


def _modules(package):
    return [importlib.import_module(f"{package.__name__}.{m.name}")
            for m in pkgutil.iter_modules(package.__path__)]


def test_rule_modules_import_only_the_facade_and_the_runtime():
    for path in sorted((PACKAGE / "rules").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                if node.level == 1:  # (the package's __init__ imports its modules)
                    assert path.name == "__init__.py", f"{path.name}: from .{node.module}"
                    continue
                target = (node.module or "").split(".")[0] or node.names[0].name
                assert target in RULE_IMPORTS, \
                    f"rules/{path.name} imports ..{node.module or node.names[0].name}: use s2sad.extend"


def test_the_runtime_face_reexports_every_helper():
    from s2sad import checkpointing
    for module in _modules(runtime) + [checkpointing]:
        for name in module.__all__:
            assert name in runtime.__all__, f"{module.__name__}.{name} is not in s2sad.runtime"
            assert getattr(runtime, name) is getattr(module, name)
    assert len(set(runtime.__all__)) == len(runtime.__all__), "two helpers of one name"
    assert set(runtime.MAY_RETURN_FIRST_ARGUMENT) <= set(runtime.__all__)


def test_runtime_modules_need_numpy_and_numba_only():
    # (and the standard library's modules these name: threading holds the
    # handles of Python objects per thread, runtime/objects.py; ast and os
    # read the names of the module runtime/__init__.py loads late)
    allowed = {"numpy", "numba", "scipy", "llvmlite", "math", "itertools", "operator",
               "threading", "ast", "os", "importlib"}
    for path in sorted((PACKAGE / "runtime").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            if names == ["s2sad.lazy_numba"]:
                # numba's names, registered when numba loads; an exported
                # derivative imports numba's own (export_runtime.NUMBA_NAMES)
                assert {a.name for a in node.names} <= set(export_runtime.NUMBA_NAMES), \
                    f"runtime/{path.name}: {ast.unparse(node)}"
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"runtime/{path.name} imports {name}"


def test_each_numba_form_is_a_runtime_helper_with_its_functions_rule():
    assert forms.FORMS, "no numba form registered"
    for fn, test, helper, passing in forms.FORMS:
        assert helper in runtime.__all__, helper
        assert passing in ("same", "tuple") and callable(test)
    for helper, fn in forms.STANDS_FOR:
        assert REGISTRY.lookup(helper) is REGISTRY.lookup(fn) is not None, helper
    # a form of np.mean over an axis takes np.mean's rule
    assert REGISTRY.lookup(runtime.mean_axis) is REGISTRY.lookup(np.mean)


def test_definitions_live_in_the_definitions_package():
    defined = list(definitions.DEFINITIONS.values()) + list(definitions.DECIDED)
    assert defined
    for definition in defined:
        assert definition.__module__.startswith("s2sad.definitions."), definition
    for fn, text in definitions.TABLE:
        assert fn in definitions.DEFINITIONS or fn in definitions.BY_CALL, fn
        assert text.startswith("definition"), text


def test_no_package_module_is_over_600_lines():
    for folder in ("rules", "runtime", "definitions"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            n = len(path.read_text().splitlines())
            assert n <= 600, f"{folder}/{path.name} has {n} lines"
