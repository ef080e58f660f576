"""s2sad benchmark suite (a tool, not tests). Run ``python benchmarks/run.py``."""
import importlib.util
import os
import sys

# the timings are of compiled code: a derivative with jit="auto" compiles at
# its first call (as jit=True does), not in the background while its first
# calls run as Python (first_call.py measures both)
os.environ.setdefault("S2SAD_BACKGROUND_COMPILE", "0")


def bootstrap():
    """Make ``import benchmarks`` work without putting the repo root on sys.path.

    The repo root holds the s2sad source tree, whose ``s2sad.transforms`` only
    exists once installed (package-dir mapping): putting the root first on
    sys.path would shadow the installed package. Called by the entry scripts.
    """
    if "benchmarks" in sys.modules:
        return sys.modules["benchmarks"]
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "benchmarks", os.path.join(here, "__init__.py"), submodule_search_locations=[here])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["benchmarks"] = mod
    spec.loader.exec_module(mod)
    return mod


def import_s2sad():
    """Import s2sad: the installed one if any, else the source tree next door."""
    try:
        import s2sad
        return s2sad
    except ImportError:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if root not in sys.path:
            sys.path.append(root)
        for name in [m for m in sys.modules if m == "s2sad" or m.startswith("s2sad.")]:
            del sys.modules[name]
        import s2sad
        return s2sad
