"""The documentation's table of the Python constructs s2sad differentiates:
one row per construct, with its status and the front-end pass that handles it.

The rows are data (CONSTRUCTS); what the table checks against the code:
- every `handled_by` names a module of transforms/frontend/ (or another stage
  of the compiler), so a row cannot point at a pass that is gone;
- every syntax the front end refuses (transforms/frontend/refused_syntax.py's
  `UNSUPPORTED`, what is left once the passes before it have rewritten the
  forms they take) is either covered by a row that says which forms are taken
  (`syntax=`), or gets a row of its own, generated, with the refusal's hint.
The tests also check that every module of transforms/frontend/ is named by a
row or listed in INTERNAL. To generate the rows from an ordered list of the
front-end passes, `rows()` is the one place to change: join that list with
CONSTRUCTS by `handled_by`.

Status: "compiled" (numba compiles the derivative), "Python" (the derivative
runs as Python: s2sad warns with NumbaFallbackWarning under jit="auto"),
"refused" (an error naming the file, line and construct, saying what to
write instead); "compiled; some forms refused" where the guide says which.

`python -m s2sad.construct_table` prints the table as Markdown."""
import dataclasses
import importlib
import sys

COMPILED, PYTHON, REFUSED = "compiled", "Python", "refused"
PARTLY = "compiled; some forms refused"


@dataclasses.dataclass(frozen=True)
class Construct:
    section: str
    construct: str
    example: str
    status: str
    handled_by: str  # a module of the compiler, relative to transforms/ ("frontend.statements.desugar")
    guide: str  # the page (and anchor) of the user guide that says more
    syntax: tuple = ()  # the gast node names of UNSUPPORTED whose accepted forms this row is


G = "guide/python-forms.md"
CONSTRUCTS = [
    # ---- control flow
    Construct("Control flow", "`if` / `elif` / `else`, also on differentiated values",
              "`if x[i] > 0.0: ...`", COMPILED, "frontend.statements.desugar", G + "#control-flow"),
    Construct("Control flow", "`for` over `range(...)`, an array's rows, `enumerate`, `zip`, "
              "`reversed`", "`for i, (u, v) in enumerate(zip(a, b)):`", COMPILED,
              "frontend.statements.desugar", G + "#control-flow"),
    Construct("Control flow", "`while` with a data-dependent end", "`while err > tol: ...`",
              COMPILED, "frontend.statements.desugar", G + "#control-flow"),
    Construct("Control flow", "`break`, `continue`, `return` anywhere", "`if done: break`",
              COMPILED, "frontend.statements.desugar", G + "#control-flow"),
    Construct("Control flow", "`for ... else`, `while ... else`", "`for ...: ... else: ...`",
              COMPILED, "frontend.statements.loop_else", G + "#control-flow"),
    Construct("Control flow", "A loop's target rebound in its body", "`for i in range(n): ... "
              "i -= 3`", COMPILED, "frontend.statements.rebound_counters", G + "#control-flow"),
    Construct("Control flow", "The array a loop runs over, rebound in its body", "`for row in A: "
              "A = A * 0.9`", COMPILED, "frontend.statements.rebound_iterables", G + "#control-flow"),
    Construct("Control flow", "`for` over a tuple or list written out, or a local dict's "
              "`items()`", "`for w in (a, b, c):`", COMPILED, "frontend.containers.literal_loops",
              G + "#lists-tuples-and-dicts"),
    Construct("Control flow", "`for` over a computed array", "`for t in np.linspace(0, 1, n):`",
              COMPILED, "frontend.statements.array_loops", G + "#control-flow"),
    Construct("Control flow", "a `range` stored and looped over later",
              "`r = range(1, n); for t in r:`", COMPILED, "frontend.statements.stored_ranges",
              G + "#control-flow"),
    Construct("Control flow", "`numba.prange` loops", "`for i in prange(n):`", COMPILED,
              "optimise.parallel", "guide/parallel.md"),
    Construct("Control flow", "`raise`, `assert`", "`if x < 0: raise ValueError(...)`",
              COMPILED, "frontend.read.fence", G + "#statements"),
    Construct("Control flow", "`try ... finally` (no `return`/`break` inside)",
              "`try: ... finally: ...`", PARTLY, "frontend.statements.statement_forms",
              G + "#statements", syntax=("Try",)),
    Construct("Control flow", "`try ... except` around code that computes nothing needing a "
              "gradient (runs as Python, in numba's object mode; a value needing one refused)",
              "`try: n = int(s) except ValueError: n = 0`", PARTLY,
              "frontend.statements.python_blocks", G + "#statements", syntax=("Try",)),
    Construct("Control flow", "`match`", "`match mode: ...`", REFUSED, "frontend.read.fence",
              G + "#statements", syntax=("Match",)),
    # ---- assignments and operators
    Construct("Assignments and operators", "Assignment, augmented assignment, tuple unpacking, "
              "swapping", "`a, b = b, a`", COMPILED, "frontend.statements.normalize",
              G + "#assignments-and-operators"),
    Construct("Assignments and operators", "Chained assignment", "`a = b = 0.0`", COMPILED,
              "frontend.read.fence", G + "#assignments-and-operators"),
    Construct("Assignments and operators", "Nested unpacking", "`a, (b, c) = h(x)`", COMPILED,
              "frontend.statements.nested_unpacking", G + "#assignments-and-operators"),
    Construct("Assignments and operators", "Star-unpacking of a known length",
              "`a, *rest = (p, q, r)`, `f(*args)`", PARTLY, "frontend.calls.star_forms",
              G + "#assignments-and-operators", syntax=("Starred",)),
    Construct("Assignments and operators", "`zip` of tuples of known length, unpacked or "
              "looped over (a tuple argument's `zip(*t)`)", "`a, b = zip(*pairs)`", COMPILED,
              "frontend.calls.zip_forms", G + "#assignments-and-operators"),
    Construct("Assignments and operators", "`+ - * / ** % //`, unary minus, `@`, with numpy "
              "broadcasting", "`y = W @ x + b`", COMPILED, "frontend.statements.normalize",
              G + "#assignments-and-operators"),
    Construct("Assignments and operators", "Comparisons, `and` / `or` / `not`, conditional "
              "expressions", "`w = y or 1.0`, `a if c else b`", COMPILED,
              "frontend.statements.value_bools", G + "#assignments-and-operators"),
    Construct("Assignments and operators", "The walrus operator", "`if (y := e) > 1:`", PARTLY,
              "frontend.statements.statement_forms", G + "#statements", syntax=("NamedExpr",)),
    Construct("Assignments and operators", "Annotated assignment", "`y: float = e`", COMPILED,
              "frontend.statements.statement_forms", G + "#statements"),
    Construct("Assignments and operators", "Assignment through an attribute",
              "`a.flat[i] = v`, `obj.w = v`", REFUSED, "frontend.read.fence",
              "sharp-bits.md#writes-s2sad-cannot-follow"),
    # ---- arrays and indexing
    Construct("Arrays and indexing", "Reads and writes of elements and slices, on arguments "
              "and local arrays", "`u[i + 1] = u[i] * k`", COMPILED, "reverse.tapes",
              "guide/numpy-scipy.md#indexing"),
    Construct("Arrays and indexing", "Index arrays and boolean masks",
              "`x[idx]`, `logp[np.arange(n), labels]`, `x[x > 0]`", COMPILED,
              "reverse.contributions", "guide/numpy-scipy.md#indexing"),
    Construct("Arrays and indexing", "A tuple of index arrays: triangles, diagonals, "
              "nonzero positions", "`A[np.triu_indices(n)]`, `A[np.diag_indices(n)] = v`",
              PARTLY, "analysis.distinct_indices", "guide/numpy-scipy.md#indexing"),
    Construct("Arrays and indexing", "Chained subscript writes", "`A[i][j] = v`", PARTLY,
              "frontend.statements.chained_writes", "guide/numpy-scipy.md#indexing"),
    Construct("Arrays and indexing", "Array attributes and methods",
              "`x.T`, `x.shape`, `x.sum(axis=1)`, `x.flat`", COMPILED,
              "frontend.calls.array_attributes", "guide/numpy-scipy.md#indexing"),
    Construct("Arrays and indexing", "Writes numpy hides in a call",
              "`u.fill(v)`, `np.copyto(u, v)`, `out=u`, `np.add.at(u, i, v)`", PARTLY,
              "frontend.effects.numpy_writes", "sharp-bits.md#writes-s2sad-cannot-follow"),
    Construct("Arrays and indexing", "Writing through a view of a row, column, element or "
              "slice, or through another name of the whole array", "`for row in X: row /= row.sum()`, "
              "`b = a[1:4]; b[:] = v`, `C = B; C += 1.0`", COMPILED, "frontend.effects.view_writes",
              "sharp-bits.md#writes-s2sad-cannot-follow"),
    Construct("Arrays and indexing", "A view read where its array is written",
              "`row = b[i]; b[i] = np.sin(row) * row`", COMPILED, "frontend.effects.view_copies",
              "sharp-bits.md#writes-s2sad-cannot-follow"),
    Construct("Arrays and indexing", "Writing through another second name of an array's memory",
              "`s = B[1:]; s[0] = v` while `B` is read", REFUSED, "analysis.aliases",
              "sharp-bits.md#writes-s2sad-cannot-follow"),
    Construct("Arrays and indexing", "Complex values computed from differentiated ones",
              "`z = x + 1j * y`", REFUSED, "analysis.kinds", "sharp-bits.md#complex-numbers"),
    # ---- functions and calls
    Construct("Functions and calls", "Calls of your own Python functions (helpers), "
              "with keywords and defaults", "`step(u, k, dt=0.1)`", COMPILED, "frontend.calls.bind",
              G + "#functions-and-calls"),
    Construct("Functions and calls", "A helper writing into an array it is given",
              "`step(u, out, k)` filling `out`", COMPILED, "frontend.effects.written_args",
              G + "#functions-and-calls"),
    Construct("Functions and calls", "Recursion", "`return n * f(n - 1)`", COMPILED,
              "reverse.split_recursion", "guide/memory.md#recursion"),
    Construct("Functions and calls", "Nested `def` and `lambda` (closures)",
              "`sq = lambda u: u * w`", PARTLY, "frontend.functions.closures", G + "#functions-and-calls",
              syntax=("FunctionDef", "Lambda")),
    Construct("Functions and calls", "A function passed to a helper", "`apply(lambda u: u * u, x)`",
              COMPILED, "frontend.functions.passed_functions", G + "#functions-and-calls"),
    Construct("Functions and calls", "A for loop over a generator you wrote (`yield` of "
              "values)", "`for v in squares(x):`", PARTLY, "frontend.functions.inline_generators",
              G + "#functions-and-calls", syntax=("Yield",)),
    Construct("Functions and calls", "A module-level function passed to a helper",
              "`fixed_point(step, a, 1.0)`, `integrate(np.cos, 0.0, a)`", COMPILED,
              "frontend.functions.module_function_args", G + "#functions-and-calls"),
    Construct("Functions and calls", "A function a helper makes, called at once",
              "`make_grad(ans, x)(g)`", COMPILED, "frontend.functions.returned_functions",
              G + "#functions-and-calls"),
    Construct("Functions and calls", "Methods and attributes of a module-level object (its "
              "values constants)", "`LAYER.forward(p, x)`, `model(x)`, `CONFIG.alpha`", COMPILED,
              "frontend.functions.object_methods", G + "#functions-and-calls"),
    Construct("Functions and calls", "Functions and values of the user's own modules (read "
              "as names of the function)", "`physics.force(x)`, `config.DT`", COMPILED,
              "frontend.read.module_attributes", G + "#functions-and-calls"),
    Construct("Functions and calls", "`functools.partial`, `map`, `functools.reduce`, "
              "`np.vectorize(otypes=[float])`", "`sum(map(f, xs, ys))`", COMPILED,
              "frontend.calls.callable_forms", G + "#builtins-and-folds"),
    Construct("Functions and calls", "`*args` / `**kwargs` of nested functions",
              "`def h(*args): return sum(args)`", PARTLY,
              "frontend.functions.nested_varargs", G + "#functions-and-calls"),
    Construct("Functions and calls", "`*args` / `**kwargs` of module-level helpers (a copy "
              "per form of call)", "`def cat(w, *xs): return np.hstack(xs) @ w`", PARTLY,
              "frontend.functions.module_varargs", G + "#functions-and-calls"),
    Construct("Functions and calls", "Decorated functions, `functools.wraps` wrappers",
              "`@timed def f(x): ...`", COMPILED, "frontend.read.wrappers", G + "#functions-and-calls"),
    Construct("Functions and calls", "Imports among the function's first statements",
              "`from scipy.special import erf`", PARTLY, "frontend.read.fence", G + "#statements",
              syntax=("Import", "ImportFrom")),
    Construct("Functions and calls", "A function of an installed package or a C extension "
              "without a rule", "`scipy.optimize.rosen(x)`", REFUSED, "libraries",
              "guide/control.md#functions-s2sad-cannot-read"),
    Construct("Functions and calls", "A derivative called inside a differentiated function",
              "`s2sad.grad(loss)(x, W)` inside a loss", COMPILED, "program",
              "guide/higher-order.md#nesting-derivatives"),
    Construct("Functions and calls", "`if w is None:`, `isinstance(x, np.ndarray)` on a "
              "parameter", "`if weights is None: ...`", COMPILED, "frontend.statements.none_tests",
              G + "#functions-and-calls"),
    Construct("Functions and calls", "A random generator given, read from the module or made "
              "in the function, drawn from (constants; object mode when compiled)",
              "`noise = rng.normal(size=n)`", COMPILED, "emit.objmode", G + "#statements"),
    Construct("Functions and calls", "A helper drawing random numbers (inlined where it is "
              "called: the gradient is that of the numbers the call drew)",
              "`eps = sample(params, rs)` with `def sample(p, rs): return rs.randn(3) * p`",
              COMPILED, "frontend.functions.drawing_helpers", G + "#statements"),
    Construct("Functions and calls", "A helper returning a list it grows (inlined where it is "
              "called: the caller indexes and iterates the list)",
              "`hs = states(W, xs); hs[-1]` with `out.append(h)` in `states`", COMPILED,
              "frontend.functions.returned_lists", G + "#statements"),
    Construct("Functions and calls", "A helper returning a slice object (inlined where it is "
              "called)", "`idx = batch_indices(i); X[idx]`", COMPILED,
              "frontend.functions.returned_slices", G + "#statements"),
    Construct("Functions and calls", "A helper returning a dict of results (inlined where it "
              "is called: a variable per key)", "`r = terms(u); r['kin'] - r['pot']` with "
              "`return {'kin': k, 'pot': p}` in `terms`", COMPILED,
              "frontend.functions.returned_dicts", G + "#statements"),
    Construct("Arrays and indexing", "A slice object bound to a name, used as an index",
              "`rows = slice(a, b); x[rows]`", COMPILED, "frontend.statements.slice_names",
              G + "#statements"),
    Construct("Functions and calls", "A function a helper makes, bound to a name and called "
              "later (the helper called again where it is called)",
              "`step = step_of(a); x = step(x)`", COMPILED,
              "frontend.functions.made_function_names", G + "#statements"),
    Construct("Functions and calls", "`print` with keywords (object mode when compiled)",
              "`print(i, end=\" \")`", COMPILED, "emit.objmode", G + "#statements"),
    Construct("Functions and calls", "The function's own attribute as a counter, changed in a "
              "nested function", "`f.k = 0; def g(): f.k += 1`", PARTLY,
              "frontend.functions.function_attributes", G + "#statements"),
    Construct("Functions and calls", "A helper returning its nested function, called at once",
              "`make_grad(ans, a, b)(g)`", COMPILED, "frontend.functions.returned_closures",
              G + "#statements"),
    Construct("Arrays and indexing", "`np.tensordot` of arrays of known rank, constant axes "
              "(the einsum it computes)", "`np.tensordot(a, b, axes=((0, 2), (1, 0)))`", COMPILED,
              "frontend.calls.tensordot_forms", "guide/numpy-scipy.md"),
    Construct("Control flow", "A range stored in a name, read by index or `len()`",
              "`r = range(1, n); x[r[0]]`", COMPILED, "frontend.statements.range_values",
              G + "#control-flow"),
    Construct("Functions and calls", "A helper returning a value and a nested function, the "
              "function discarded or called", "`flat, unflatten = flatten(params)`", COMPILED,
              "frontend.functions.returned_function_pairs", G + "#statements"),
    Construct("Functions and calls", "A returned nested function the caller never reads",
              "`flat, _ = flatten(params)`", COMPILED,
              "frontend.functions.unused_returned_functions", G + "#statements"),
    Construct("Functions and calls", "String arguments (a constant of the specialisation)",
              "`if mode == \"edge\":`", COMPILED, "frontend.specialise", G + "#functions-and-calls"),
    # ---- lists, tuples, dicts
    Construct("Lists, tuples and dicts", "A list or tuple literal bound once",
              "`v = [1.0, a, 3.0]; v[1]`", COMPILED, "frontend.containers.literals",
              G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A module-level tuple, list or dict of arrays read "
              "by the function", "`x * S[0] + S[1]`, `for W, b in LAYERS:`", COMPILED,
              "frontend.containers.module_containers", G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A list built by appends (in straight-line code, or "
              "once per iteration of a loop)", "`out = []; for ...: out.append(v)`", COMPILED,
              "frontend.containers.list_appends", G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A list used as a stack", "`s.append(v)` ... "
              "`v = s.pop()`", COMPILED, "reverse.user_stacks", G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A list that grows, read by index, stacked or looped "
              "over (a time loop's tape)", "`hs = [h0]; for t ...: hs.append(f(hs[t]))`; "
              "`np.stack(hs)`", COMPILED, "frontend.containers.growing_lists",
              G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A list of lists written out", "`M = [[a, b], [c, d]]`",
              COMPILED, "frontend.containers.nested_literals", G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A local dict with constant keys",
              "`p = {\"w\": W, \"b\": b}; p[\"w\"]`", COMPILED, "frontend.containers.dicts",
              G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A helper adding keys to, or assigning into, a dict it is "
              "given", "`fill(d, x)` setting `d[\"y\"]`", PARTLY, "frontend.containers.added_keys",
              G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A helper changing a list or dict it is given through "
              "a method", "`def add(out, v): out.append(v)`", REFUSED, "frontend.effects.mutated_args",
              G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "Lists and tuples of numbers as arguments",
              "`f([0.3, 0.7])`", COMPILED, "frontend.containers.sequence_args",
              "guide/pytrees.md#lists-and-tuples-of-numbers"),
    Construct("Lists, tuples and dicts", "Containers as arguments (dicts, NamedTuples, "
              "dataclasses, lists)", "`loss(params, x)`", COMPILED, "frontend.containers.flatten_args",
              "guide/pytrees.md"),
    Construct("Lists, tuples and dicts", "A NamedTuple or dataclass made inside the function",
              "`p = P(a=x, b=y); p.a * p.b`", COMPILED, "frontend.containers.records",
              "guide/pytrees.md#dataclasses-and-namedtuples"),
    Construct("Lists, tuples and dicts", "A name started as a number, made an array by its "
              "first update", "`res = 0; for v in [a, b]: res = res + v`", COMPILED,
              "frontend.statements.number_starts", G + "#lists-tuples-and-dicts"),
    Construct("Lists, tuples and dicts", "A name bound again to a value of another rank, in "
              "straight-line code", "`x = np.atleast_2d(x)`", COMPILED,
              "frontend.statements.rebound_names", G + "#lists-tuples-and-dicts"),
    # ---- comprehensions and builtins
    Construct("Comprehensions and builtins", "List comprehensions and generators",
              "`np.array([f(x[i]) for i in range(n)])`", COMPILED, "frontend.containers.comprehensions",
              G + "#lists-tuples-and-dicts"),
    Construct("Comprehensions and builtins", "`sum(...)` of a generator",
              "`sum(x[i] ** 2 for i in range(n))`", COMPILED, "frontend.containers.comprehensions",
              G + "#lists-tuples-and-dicts"),
    Construct("Comprehensions and builtins", "Dict comprehensions over constant keys or a "
              "local dict", "`{k: v * w for k, v in d.items()}`", PARTLY,
              "frontend.containers.dict_comprehensions", G + "#lists-tuples-and-dicts", syntax=("DictComp",)),
    Construct("Comprehensions and builtins", "`sum`, `max`, `min`, `abs`, `any`, `all`, "
              "`divmod`, `math.fsum`", "`max(a, b, c)`", COMPILED,
              "frontend.calls.builtin_reductions", G + "#builtins-and-folds"),
    Construct("Comprehensions and builtins", "`sorted(x)`, `list(x)`, `x.tolist()`",
              "`s = sorted(x)`", COMPILED, "frontend.calls.sorted_forms", G + "#builtins-and-folds"),
    Construct("Comprehensions and builtins", "`max(items, key=f)`, `np.ndenumerate`",
              "`max(xs, key=abs)`", COMPILED, "frontend.calls.builtin_forms",
              G + "#builtins-and-folds"),
    # ---- statements
    Construct("Statements", "`with np.errstate(...)` (ignore or warn), "
              "`with s2sad.stop_recording()`", "`with np.errstate(divide=\"ignore\"):`", PARTLY,
              "frontend.statements.statement_forms", G + "#statements"),
    Construct("Statements", "`del` of a local", "`del t`", PARTLY, "frontend.statements.statement_forms",
              G + "#statements", syntax=("Delete",)),
    Construct("Statements", "`global` / `nonlocal` of names only read", "`global G`", PARTLY,
              "frontend.statements.statement_forms", G + "#statements", syntax=("Global", "Nonlocal")),
]

# Front-end modules that handle no construct of their own (shared code, or
# the machinery every construct goes through)
INTERNAL = {"calls.binder", "calls.vectorizers", "calls.list_spellings", "calls.missing_attributes",
            "calls.read_respellings", "calls.respellings", "containers.assigned_keys",
            "containers.aux", "containers.aux_output", "containers.aux_pairs",
            "containers.common", "containers.container_loops", "containers.dict_keys",
            "containers.list_reads",
            "containers.flatten", "containers.materialised_lists", "containers.structure",
            "containers.tuples", "context", "effects.arrays_written",
            "effects.blocks", "effects.calls_for_effect", "effects.helper_effects", "effects.hidden_writes",
            "effects.own_copies", "effects.whole_slices", "effects.writing_copies",
            "containers.container_types", "functions.bound_copies", "functions.custom",
            "functions.varargs_forms", "functions.inline_nested",
            "functions.lifted", "functions.inlining", "functions.module_values",
            "functions.small_helpers",  # (an optimisation: every helper call is in the table)
            "functions.markers", "functions.nested_function_args", "functions.passed_lambdas",
            "pipeline", "read.imports", "read.lambda_source", "read.read",
            "read.stale_source", "refused_syntax", "statements.chained_assignments",
            "statements.chains",
            "statements.changing_kinds", "steps"}


def _unsupported():
    from .transforms.frontend.refused_syntax import HINTS, UNSUPPORTED
    return {cls.__name__: (what, HINTS.get(cls, "")) for cls, what in UNSUPPORTED.items()}


def rows():
    """The table's rows: CONSTRUCTS, then a row per syntax the front end
    refuses that no row covers."""
    covered = {s for c in CONSTRUCTS for s in c.syntax}
    generated = [Construct("Refused syntax", what[0].upper() + what[1:], hint and hint + ".",
                           REFUSED, "frontend.read.fence", "sharp-bits.md#refusals")
                 for node, (what, hint) in _unsupported().items() if node not in covered]
    unique = {}
    for row in generated:  # (import and from ... import share a description)
        unique.setdefault(row.construct, row)
    return CONSTRUCTS + list(unique.values())


def check_modules():
    """The rows' `handled_by` modules that do not exist (empty when the table
    is current)."""
    missing = []
    for c in CONSTRUCTS:
        try:
            importlib.import_module(f"s2sad.transforms.{c.handled_by}")
        except ImportError:
            missing.append(c.handled_by)
    return missing


def markdown(link_prefix=""):
    """The table as Markdown, a section per kind of construct; `link_prefix`
    makes the guide links relative to the page it goes in."""
    out, section = [], None
    for row in rows():
        if row.section != section:
            section = row.section
            second = "what to write instead" if row.section == "Refused syntax" else "example"
            out += ["", f"### {section}", "", f"| construct | {second} | status | more |",
                    "|---|---|---|---|"]
        more = f"[{_page_title(row.guide)}]({link_prefix}{row.guide})"
        out.append(f"| {row.construct} | {row.example} | {row.status} | {more} |")
    return "\n".join(out).lstrip("\n") + "\n"


_TITLES = {"guide/python-forms.md": "Python forms", "guide/parallel.md": "Parallel",
           "guide/memory.md": "Memory", "guide/numpy-scipy.md": "numpy and scipy",
           "guide/pytrees.md": "Containers", "guide/control.md": "Control",
           "guide/higher-order.md": "Higher order", "sharp-bits.md": "Sharp bits"}


def _page_title(guide):
    return _TITLES[guide.split("#")[0]]


if __name__ == "__main__":
    sys.stdout.write(markdown())
