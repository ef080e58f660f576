"""A depth limit for recursive functions in numba-compiled derivatives.

Python raises RecursionError past `sys.getrecursionlimit()` calls; numba has
no such guard, and recursion that does not end overflows the C stack and
kills the interpreter. Before the generated module is compiled, every
function on a call cycle gets a hidden depth argument (default 0, so callers
outside the cycle need not pass it) and raises RecursionError past the same
limit as Python. Only the compiled copy is changed: `.source` and `jit=False`
run the generated code as written, where Python's own limit applies."""
import ast
import functools
import re

DEPTH = "s2sad_depth"


def recursive_functions(source, functions):
    """Names of the module's functions that can call themselves."""
    return set(_recursive(source, frozenset(functions)))


@functools.lru_cache(maxsize=32)  # (the backend asks twice of each module)
def _recursive(source, functions):
    textual = _textual_call_graph(source, functions)
    if textual is not None and not _cycle(textual):
        return frozenset()  # (no parse: most modules have no recursion)
    return _cycle(_call_graph(ast.parse(source), functions))


def _textual_call_graph(source, functions):
    """A call graph with every edge of _call_graph's and perhaps more, from
    the text: f -> g where `g(` occurs between `def f(` and the next
    function's `def` (None where the text cannot tell: decorators)."""
    if "\n@" in source or source.startswith("@"):
        return None
    starts = sorted((source.find(f"\ndef {f}("), f) for f in functions)
    if any(at < 0 for at, _ in starts):
        return None
    ends = [at for at, _ in starts[1:]] + [len(source)]
    graph = {}
    for (at, f), end in zip(starts, ends):
        body = source[at + len(f"\ndef {f}("):end]
        graph[f] = {g for g in functions if re.search(rf"\b{re.escape(g)}\s*\(", body)}
    return graph


def _cycle(graph):
    """The functions of `graph` on a call cycle."""
    out = set()
    for f in graph:
        seen, todo = set(), list(graph[f])
        while todo:
            g = todo.pop()
            if g == f:
                out.add(f)
                break
            if g not in seen:
                seen.add(g)
                todo.extend(graph.get(g, ()))
    return frozenset(out)


def guard(source, functions, limit):
    """`source` with the depth limit in each recursive function (unchanged
    if there is none)."""
    recursive = recursive_functions(source, functions)
    if not recursive:
        return source
    tree = ast.parse(source)
    message = (f"maximum recursion depth ({limit}, sys.getrecursionlimit()) exceeded in "
               f"compiled code: check the recursion's base case, or raise the limit with "
               f"sys.setrecursionlimit")
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name in recursive):
            continue
        node.args.args.append(ast.arg(arg=DEPTH))
        node.args.defaults.append(ast.Constant(0))
        check = ast.parse(f"if {DEPTH} > {int(limit)}:\n    raise RecursionError({message!r})").body
        docstring = 1 if ast.get_docstring(node) is not None else 0
        node.body[docstring:docstring] = check
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                    and call.func.id in recursive:
                call.keywords.append(ast.keyword(arg=DEPTH, value=ast.parse(
                    f"{DEPTH} + 1", mode="eval").body))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _call_graph(tree, functions):
    graph = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            graph[node.name] = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call)
                                and isinstance(c.func, ast.Name) and c.func.id in functions}
    return graph
