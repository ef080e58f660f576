"""Checks of an exported derivative (s2sad.export) shared by the tests: what
it imports, read from its code, and running it where s2sad cannot be
imported."""
import ast
import importlib.util
import json
import os
import subprocess
import sys
import textwrap


def imported_modules(path):
    """Every module the file's code imports (at any depth), as written;
    a relative import as '.name'."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append("." * node.level + (node.module or ""))
    return out


def imports_no_s2sad(path):
    """No import of s2sad, and no relative import (the module is no package's)."""
    bad = [m for m in imported_modules(path)
           if m.startswith(".") or m == "s2sad" or m.startswith("s2sad.")]
    return not bad


_RUN = textwrap.dedent('''
    import importlib.abc, json, sys

    class NoS2sad(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "s2sad" or name.startswith("s2sad."):
                raise ImportError("s2sad is not importable here")
            return None

    sys.meta_path.insert(0, NoS2sad())
    sys.path.insert(0, {folder!r})
    import numpy as np
    import {module} as exported
    args = [np.array(a) if isinstance(a, list) else a for a in json.loads({args!r})]
    value, grad = getattr(exported, {entry!r})(*args)
    assert not [m for m in sys.modules if m == "s2sad" or m.startswith("s2sad.")]
    print(json.dumps({{"value": float(value), "grad": np.asarray(grad).tolist()}}))
''')


def run_without_s2sad(path, entry, args, jit=True):
    """(value, gradient) of the exported module's `entry` at `args`, run by
    a fresh Python (-I: no PYTHONPATH, no user site) that cannot import s2sad."""
    folder, name = os.path.split(os.path.abspath(path))
    encoded = json.dumps([a.tolist() if hasattr(a, "tolist") else a for a in args])
    code = _RUN.format(folder=folder, module=name[:-3], args=encoded, entry=entry)
    env = dict(os.environ, S2SAD_EXPORT_JIT="1" if jit else "0")
    out = subprocess.run([sys.executable, "-I", "-c", code], cwd=folder, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return got["value"], got["grad"]


def load(path, name):
    """The exported module, imported in this process."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (numba's cache finds a module by its name)
    spec.loader.exec_module(module)
    return module
