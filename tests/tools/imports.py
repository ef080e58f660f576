"""The import graph of the package, read from its source with `ast` (module
level and imports inside functions alike), and its cycles.

`s2sad.transforms` lives in transforms/ (pyproject.toml's package-dir), so
the graph maps both folders itself; an import of a package counts as an
import of its __init__, and `from pkg import mod` as one of the module.

    python tests/tools/imports.py              # every cycle, smallest first
    python tests/tools/imports.py --packages   # the cycle between s2sad and s2sad.transforms
"""
import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDERS = {"s2sad": os.path.join(ROOT, "s2sad"),
           "s2sad.transforms": os.path.join(ROOT, "transforms")}


def modules():
    """{module name: its file}."""
    out = {}
    for package, folder in FOLDERS.items():
        for dirpath, _, files in os.walk(folder):
            if "__pycache__" in dirpath:
                continue
            for f in files:
                if not f.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), folder)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join([package] + rel)] = os.path.join(dirpath, f)
    return out


def imports_of(name, path, known):
    """The modules of `known` that module `name` (file `path`) imports."""
    tree = ast.parse(open(path).read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            for alias in node.names:
                if f"{target}.{alias.name}" in known:  # from pkg import module
                    out.add(f"{target}.{alias.name}")
                elif target in known:
                    out.add(target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
    out.discard(name)
    return out


def graph():
    """{module: the package's modules it imports}."""
    found = modules()
    return {m: imports_of(m, path, found) for m, path in found.items()}


def cycles(edges):
    """The strongly connected components of more than one module (Tarjan),
    each sorted, smallest first."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(edges):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(out, key=lambda c: (len(c), c))


def within(edges, prefix):
    """The graph of the modules under `prefix` only."""
    def inside(m):
        return m == prefix or m.startswith(prefix + ".")
    return {m: {t for t in ts if inside(t)} for m, ts in edges.items() if inside(m)}


def packages(edges):
    """The graph between s2sad (outside transforms) and s2sad.transforms."""
    def package(m):
        return "s2sad.transforms" if m.startswith("s2sad.transforms") else "s2sad"
    out = {}
    for m, ts in edges.items():
        out.setdefault(package(m), set()).update(package(t) for t in ts if package(t) != package(m))
    return out


if __name__ == "__main__":
    g = graph()
    for c in cycles(packages(g) if "--packages" in sys.argv else g):
        print(len(c), " ".join(c))
