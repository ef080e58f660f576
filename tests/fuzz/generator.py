"""Random programs in the language s2sad differentiates, as hypothesis
strategies.

A program is a module-level source text (helpers, then `fuzzed`), the
argument kinds and values, and the arguments to differentiate: straight-line
scalar and broadcasting array code, if/elif/else on differentiated values
and on integers, counted loops, `for row in A`, while loops (counted, with a
float counter, data-dependent, `while True`), break/continue/early return,
subscript reads and writes into local buffers and arguments, helpers
(returning values or tuples), conditional expressions, and the markers;
and calls bound to their callee's signature (`calls`, a few of these forms
per program): helpers called by keyword, relying on defaults, with
keyword-only parameters; reductions over axes (by position or keyword,
negative, tuples) with keepdims, as functions or methods; np.cumsum,
np.transpose, np.clip and np.linalg.norm with their optional parameters;
np.array of nested lists; repeated fancy indices.

`programs()` is the hypothesis strategy (every choice drawn from hypothesis,
so failures shrink); `program(seed)` and `collect(n, seed)` drive the same
generator with random.Random, which is faster and never repeats a program.

Programs are valid by construction:

* every variable has one kind (float, int, array of a shape) for its whole
  life, is defined before it is used and only used in the block that
  defined it (or a nested one);
* subscripts are in range (loop bounds are known numbers);
* loops terminate (every `while` has an iteration cap);
* values stay moderate (updates inside loops are damped and squashed;
  `exp`, `log`, `sqrt`, `**` and division only see safe arguments);
* no array is written in place (`b[i] = ...`, `v += ...`) while another name
  may share its memory: s2sad does not track writes through a second name;
* functions calling `reset_recording` do not write their arguments (whether
  an argument written before the reset is "computed before" is left open);
* what numba itself cannot compile is left out: `np.clip` of a scalar,
  rebinding a 2-D variable (a transpose is F-ordered and numba cannot then
  compute with a variable that is sometimes C-ordered); in programs checked
  with jit, reductions but np.sum over an axis, norms over an axis and list
  indices (see calls).

Kinks (branches, `abs`/`min`/`max`/`np.where`/`%`... on differentiated
values) are allowed: `reference` traces them so that finite differences are
only trusted where no kink is crossed.

`KNOWN_BUGS` names features that trigger a known, open compiler bug (each
with an xfail test in tests/test_fuzz_regressions.py). Avoiding one either
changes what is generated (no array bound in a branch, no early return of a
tuple, ...) or rewrites a spelling (`t = s` becomes `t = 1.0 * s`); the
in-suite run and the long run avoid them, so that they stay green and keep
looking for new bugs (`--all-features` does not).
"""
import ast

from hypothesis import strategies as st

from .model import MAIN, Program, Tree, _HypothesisChoices, _RandomChoices, _Var  # noqa: F401
from .spellings import _postprocess
from .containers import ContainerStatements
from .everyday import EVERYDAY_HELPERS, MODES, EverydayForms
from .forms import MoreForms
from .nested import NestedFunctions
from .statements import Statements


HEADER = ("import functools\nimport math\n\nimport numpy as np\n\nimport s2sad\n"
          "from s2sad import reset_recording, stop_gradient, stop_recording\n")

# feature name -> regression test documenting the bug (see test_fuzz_regressions.py)
KNOWN_BUGS = {
    # (features of the loops family, loops.py)
    "parallel_array_tape": "test_compiled_parallel_derivative_recording_arrays_in_a_loop",
}

FEATURES = (
    "kinks",            # abs, min, max, np.maximum, np.where, np.clip, ...
    "active_if",        # branches on differentiated values
    "inactive_if",      # branches on loop counters and int arguments
    "for",              # counted loops
    "triangular",       # for j in range(i + 1), for j in range(i, n)
    "counter_index",    # t = 0; for ...: ... t += 1 (t indexes inside)
    "sum_loop",         # acc = 0.0; for ...: ... acc += e, maybe nested (fused sweeps)
    "while",            # while loops (counted, float counter, data-dependent, while True)
    "break", "continue", "return",   # early exits
    "buffers",          # local arrays written through subscripts
    "slice_write",      # buf[1:] = ..., B[i] = row, B[:, j] = column
    "view_rewrite",     # w = B[i]; B[i] = f(w) (the view read after the write, in reverse)
    "view_write",       # for rw in B: rw *= ..., rw = B[i]; rw[0] = ... (writes through a view)
    "arg_write",        # writes into argument arrays
    "helpers",          # calls to other generated functions
    "tuple_helper",     # helpers returning a tuple
    "stop_gradient", "stop_recording", "reset_recording",
    "matrix",           # 2-D arrays, @, outer, axis reductions
    "ifexp",            # conditional expressions
    "tuple_assign",     # a, b = ..., swaps
    "iter_array",       # for row in A / for e in v
    "vector_output", "tuple_output",
    "mod",              # % on differentiated values
    "helper_keywords",  # h(u=a), h(2.0, v=a), h(a) with defaults, def h(u, *, p1=2.0)
    "axis_reductions",  # np.sum/mean/max/min/prod/cumsum over axes (by position or keyword,
                        # negative, tuples), x.sum(axis=0), np.sum(A, axis=1)
    "keepdims",         # keepdims=True reductions broadcast against arrays
    "transpose_axes",   # np.transpose(A, axes=(1, 0))
    "clip_keywords",    # np.clip(v, a_min=..., a_max=...) (at times a differentiated bound)
    "norm_ord",         # np.linalg.norm with ord (p-norms), axis, keepdims
    "nested_literal",   # np.array([[a, 2 * a], [a ** 2, c]])
    "fancy_index",      # x[[0, 0, 2]], x[idx] with repeated indices
    "tuple_argument",   # pair_product((a, b)), a tuple or list given to a helper (PAIRS)
    "hidden_writes",    # b.fill(e), np.copyto(b, e), out=b, b[...] = e, helpers writing
                        # into their parameter (p += e, p.fill(s): UPDATERS)
    "nested_functions",  # def g(u): / g = lambda u: ... closing over locals, called (nested.py)
    "containers",       # list/tuple literals, comprehensions, sum() of generators (comprehensions.py)
    # (forms.py:)
    "container_param",  # def fuzzed(p, x) with a dict p (or a tuple/list t): p["w"], p.get("b"),
                        # loops over p.items(), predict(p, x) (CONTAINER_HELPERS)
    "container_call",   # a local dict, tuple or list passed whole to a helper
    "function_imports",  # import numpy as np / import math among the first statements
    "ellipsis",         # M[..., j], M[i, ...], v[...], b[..., j] = e, b[...] += e
    "numpy_keywords",   # np.sum(a=v), np.dot(v, b=w), np.clip(v, a_min=None, a_max=0.8), ...
    # (everyday.py:)
    "chained_writes",   # B[i][j] = v, B[i][j] += v, B[i][a:b] = row on a local matrix; a list of
                        # lists from a comprehension or appended rows written L[i][j] op= v
    "list_stack",       # appends in a loop, then balanced pops (and L[-1]); appends then
                        # np.array(L) / sum(L) / L[-1]
    "string_options",   # fuzzed(..., mode) and local strings picking a branch, scaled(u, "square"),
                        # np.pad(v, 1, mode="edge") (also mode=mode, a helper's `how`)
    "function_tools",   # functools.partial(affine, w, scale=s), map(lambda/np.sin/helper), np.r_
    "literal_loops",    # for c in (0.5, 2.0) / (a, s1 * 2.0), for w, b in params (enumerate too)
    "any_all",          # any(e > c for e in v) / all([...]) in conditions
    "max_of_list",      # max([a, b, c]), min((a, b))
    "chained_assign",   # a = b = value
    "array_loops",      # for c in x.flat / x.ravel() / np.sin(x) / np.linspace(0, 1, n)
    "effect_refusal",   # np.putmask, np.put, np.fill_diagonal, b.resize, out=b[0]...: must be
                        # refused naming the line (refusals.py), a few programs
    "stack_refusal",    # (of those) stk.reverse(), stk.pop(0), stk.insert/extend/clear
    "broadcast_write",  # b[:, 1:] -= c[:, None], b[:] = row, b[1:] = s (statements.py)
    "matrix_transpose",  # A.mT
    "recursion",        # recursive helpers: two self-calls, a tuple, halves of an array,
                        # mutual recursion (everyday.py)
    # finer features, named after the bugs they trigger (see KNOWN_BUGS)
    "branch_local_array",   # an array bound where the code may not run (a branch, after an exit)
    "tuple_early_return",   # an early return in a function returning a tuple
    "neg_const_pow",        # (-1.5) ** 2
    "stop_gradient_attr",   # s2sad.stop_gradient(...) rather than stop_gradient(...)
    "copy_after_loop",      # t = s, w = np.copy(v), a, b = b, a (plain copies)
    "tuple_output_subscript",   # return x[i], v
    "array_output_restored",    # return b, b written through subscripts
    "element_self_copy",    # b[i] = b[j] (i == j at run time)
    "chained_subscript",    # A[:, j][i]
    "constant_condition",   # if 0.5 > 1.0: (numba prunes the branch)
    "tuple_helper_array",   # a helper returning (scalar, array)
    "reset_in_helper",      # reset_recording() in a helper (its locals become constants)
    "recording_subscript_write",    # b[i] = ... inside `with stop_recording():`
    "self_subscript_rebind",    # v = v[3] * x (an array rebound from its own elements)
)


# helpers that write into the array they are given (the "hidden_writes" feature)
UPDATERS = """def update_add(p, q):
    p += 0.5 * q


def update_fill(p, s):
    p.fill(s)


def update_scale(p, s):
    p *= s


def update_through(p, s):
    q = p
    q *= s


def update_rows(p, s):
    for r in p:
        r *= s
"""


# helpers given a tuple or list (the "tuple_argument" feature)
PAIRS = """def pair_product(t):
    return t[0] * t[1]


def pair_unpacked(t):
    a, b = t
    return a * math.sin(b) + b


def pair_loop(t):
    total = 0.0
    for v in t:
        total = total + v * v
    return total
"""


# helpers given a container whole (the "container_param" and "container_call" features)
CONTAINER_HELPERS = {
    "predict": """def predict(params, u):
    return np.sum(np.tanh(params["w"] * u)) + params["b"]
""",
    "predict_get": """def predict_get(params, u, scale=1.0):
    return np.sum(params.get("w") * u) * scale + params.get("b", 0.0)
""",
    "predict_pair": """def predict_pair(t, u):
    w, b = t
    return np.sum(np.sin(w * u)) * b + b
""",
}
CONTAINER_PARAMS = ("p", "t")   # the names of container arguments


# the forms of calls bound to the callee's signature (see calls.py)
CALL_FORMS = ("helper_keywords", "axis_reductions", "keepdims", "transpose_axes",
              "clip_keywords", "norm_ord", "nested_literal", "fancy_index")


class _Gen(Statements, NestedFunctions, ContainerStatements, MoreForms, EverydayForms):
    def __init__(self, choices, avoid=frozenset(), jit=False):
        self.choices = choices
        self.avoid = frozenset(avoid)
        self.jit = jit                # leave out what numba cannot compile (see calls)
        self.used = set()
        self.count = 0
        self.helpers = []             # (name, params (calls._Param), out shape or tuple)
        self.fn = None
        self.containers = []          # (name, Tree) of fuzzed's container arguments
        self.leaf_get = {}            # p["w"] -> p.get("w")
        self.container_helpers = set()    # CONTAINER_HELPERS used
        self.refuse = self.refused = False    # write (wrote) a call s2sad must refuse
        self.seq_kind = None          # "tuple" or "list": what predict_pair is given
        self.everyday_helpers = set()     # EVERYDAY_HELPERS used
        self.mode_text = None         # fuzzed's string argument `mode`, when it has one
        self.in_while_test = False    # writing a while loop's condition

    # ---- choices ---------------------------------------------------------------
    def int(self, lo, hi):
        return self.choices.int(lo, hi)

    def p(self, prob):
        """True with probability `prob` (shrinks to False)."""
        return self.choices.int(0, 999) >= 1000 - int(prob * 1000)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def weighted(self, options):
        """options: [(weight, value)], weight 0 = unavailable; the first
        available option is what it shrinks to."""
        options = [(w, v) for w, v in options if w > 0]
        total = sum(w for w, _ in options)
        r = self.int(0, total - 1)
        for w, v in options:
            if r < w:
                return v
            r -= w
        raise AssertionError

    def ok(self, feature):
        return feature not in self.avoid

    def use(self, feature):
        self.used.add(feature)

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"


def build(choices, avoid=frozenset(), max_statements=8, max_helpers=2, jit=False):
    """A random Program from a source of choices."""
    g = _Gen(choices, avoid, jit)
    g.N = g.int(3, 5)
    g.use_matrix = g.ok("matrix") and g.p(0.35)
    g.R, g.C = g.pick([(2, 3), (3, 2), (2, 4), (3, 4)])
    g.K = g.pick([0, 2, 3, 4])
    # the call forms bound to signatures: a few per program (or none), so
    # that each is exercised often and the rest of the language still is
    if g.p(0.75):
        g.avoid |= {f for f in CALL_FORMS if not g.p(0.35)}
    else:
        g.avoid |= set(CALL_FORMS)
    # arguments
    args = []   # (name, shape, int value)
    for nm, sh in (("x", (g.N,)), ("a", ()), ("y", (g.N,)), ("c", ())):
        if not args or g.p(0.5):
            args.append((nm, sh, None))
    if g.use_matrix:
        args.append(("A", (g.R, g.C), None))
    if g.ok("container_param") and g.p(0.15):
        kind = g.pick(["dict", "dict", "tuple", "list"])
        if kind == "dict":
            leaves = [("w", (g.N,)), ("b", ())]
            if g.use_matrix and g.p(0.4):
                leaves.append(("m", (g.R, g.C)))
            args.append(("p", Tree(kind, tuple(g.choices.perm(leaves))), None))
        else:
            args.append(("t", Tree(kind, ((0, (g.N,)), (1, ()))), None))
            g.seq_kind = kind
    g.refuse = g.ok("effect_refusal") and g.p(0.04)
    if g.ok("string_options") and g.p(0.06):
        g.mode_text = g.pick(MODES)
        args.append(("mode", "str", g.mode_text))
    if g.K:
        args.append(("k", None, g.K))
    args = choices.perm(args)
    writable = set()
    if g.ok("arg_write") and g.p(0.15):
        arrays = [nm for nm, sh, _ in args if sh not in (None, (), "str") and not isinstance(sh, Tree)]
        if arrays:
            writable.add(g.pick(arrays))
    # helpers
    sources = []
    for h in range(g.int(0, max_helpers) if g.ok("helpers") else 0):
        hparams = g.helper_params([g.pick([(), (), (g.N,)]) for _ in range(g.int(1, 3))])
        params = [_Var(p.name, p.shape, "param") for p in hparams]
        if g.ok("tuple_helper") and g.p(0.15):
            out = ((), g.pick([(), (g.N,)] if g.ok("tuple_helper_array") else [()]))
            if out[1]:
                g.use("tuple_helper_array")
        else:
            out = g.pick([(), (), (g.N,)])
        name = f"helper_{h}"
        sources.append(g.function(name, params, out, max(1, max_statements // 2),
                                  signature=g.signature(hparams)))
        g.helpers.append((name, hparams, out))
    # main
    params = []
    for nm, sh, iv in args:
        if isinstance(sh, Tree):   # its leaves are the variables (read only)
            g.containers.append((nm, sh))
            params += g.container_leaves(nm, sh)
        else:
            if sh != "str":   # (a string is read by the forms that use it: everyday.py)
                params.append(_Var(nm, None, "intarg", iv, iv) if sh is None else _Var(nm, sh, "arg"))
    out = ()
    if g.ok("vector_output") and g.p(0.1):
        g.use("vector_output")
        out = (g.N,)
    elif g.ok("tuple_output") and g.p(0.08):
        g.use("tuple_output")
        out = ((), (g.N,))
    sources.append(g.function(MAIN, params, out, max_statements, writable,
                              signature=", ".join(nm for nm, _, _ in args)))
    if "hidden_writes" in g.used:
        sources.insert(0, UPDATERS)
    if "tuple_argument" in g.used:
        sources.insert(0, PAIRS)
    for name in sorted(g.container_helpers):
        sources.insert(0, CONTAINER_HELPERS[name])
    for name in sorted(g.everyday_helpers):
        sources.insert(0, EVERYDAY_HELPERS[name])
    floats = [i for i, (_, sh, _) in enumerate(args) if sh not in (None, "str")]
    wrt = tuple(floats)
    if len(floats) > 1 and g.p(0.2):
        wrt = tuple(sorted(choices.perm(floats)[:g.int(1, len(floats))]))
    seed = g.int(0, 2 ** 31 - 1)
    source = _postprocess(g, ast.parse("\n\n\n".join(sources)))
    return Program(source=source, arg_names=tuple(a[0] for a in args),
                   arg_shapes=tuple(a[1] for a in args), arg_ints=tuple(a[2] for a in args),
                   wrt=wrt, value_seed=seed, features=frozenset(g.used), jit=jit)


@st.composite
def programs(draw, avoid=frozenset(), max_statements=8, max_helpers=2, jit=False):
    """The hypothesis strategy: a random Program, every choice drawn from
    hypothesis (so failures shrink). `avoid`: features not to generate."""
    return build(_HypothesisChoices(draw), avoid, max_statements, max_helpers, jit)


def program(seed, avoid=frozenset(), max_statements=8, max_helpers=2, jit=False):
    """The program for a seed: the same generator, choices from random.Random."""
    return build(_RandomChoices(seed), avoid, max_statements, max_helpers, jit)


def collect(n, seed=0, avoid=frozenset(), jit_fraction=0.0, **kwargs):
    """`n` distinct programs, reproducibly for a seed; `jit_fraction` of
    them (spread evenly) are also checked with jit=True.

    The choices come from random.Random rather than from hypothesis's
    example generation: for this strategy that repeats about 60% of the
    programs and costs 40 ms a program; `programs()` is the same generator
    as a hypothesis strategy."""
    out, seen = [], set()
    i = 0
    while len(out) < n and i < 10 * n + 100:
        jit = int((len(out) + 1) * jit_fraction) > int(len(out) * jit_fraction)
        prog = program(f"{seed}:{i}", avoid, jit=jit, **kwargs)
        i += 1
        key = (prog.source, prog.arg_shapes, prog.wrt)
        if key not in seen:
            seen.add(key)
            out.append(prog)
    return out


def from_dict(d):
    """A Program from its dataclasses.asdict form (the run's .jsonl file)."""
    d = dict(d)
    d["arg_shapes"] = tuple(s if s is None or s == "str" else Tree(s["kind"], tuple(
        (k, tuple(sh)) for k, sh in s["leaves"])) if isinstance(s, dict) else tuple(s)
        for s in d["arg_shapes"])
    for k in ("arg_names", "arg_ints", "wrt"):
        d[k] = tuple(d[k])
    d["features"] = frozenset(d.get("features", ()))
    return Program(**d)
