"""The front end, in the order it runs: one line per pass, naming the idiom
it lowers.

Two lists, because the phases are real:

- READ runs once per function (its tree is kept for the next read of the
  same lines): from the source to a tree with no nested function, no
  statement form and no spelling the passes after it do not follow;
- SPECIALISE runs per argument kinds (container arguments, has_aux,
  checkpointed loops and the kinds themselves change it): from that tree to
  normalised code (one primitive operation per statement) with the kinds of
  its variables, which the reverse and forward passes differentiate.

A helper's primal copy (the forward sweep calls it) takes HELPER_COPY, a
short list of the same passes.

Every pass is a module of a family folder with one entry point,
`run(tree, ctx)` (context.py), importing no other pass: it returns the tree
when it changed it (or a new tree), None when it left it as it was. A pass
that may change the kinds says so (`retypes`): they are inferred again when
it changed the tree. `after` names the passes that must run before it
(tests/frontend/test_pipeline.py checks the lists keep them). A Group runs
its passes only when its test finds something for them to do.

    python -m s2sad.transforms.internals

prints the lists, and what runs after them, as a page (docs/internals.md)."""
import inspect
from dataclasses import dataclass, field

from . import steps
from .calls import (array_attributes, bind, builtin_forms, builtin_reductions, callable_forms,
                    missing_attributes, read_respellings, star_forms, tensordot_forms, zip_forms)
from .containers import (added_keys, assigned_keys, aux_output, aux_pairs, comprehensions,
                         dict_comprehensions, dicts, flatten_args, growing_lists, list_appends,
                         list_reads, literal_loops, literals, materialised_lists,
                         module_containers, nested_literals, records, sequence_args, tuples)
from .containers.common import has_containers
from .context import Context, Restart
from .effects import (arrays_written, calls_for_effect, hidden_writes, mutated_args, own_copies,
                      view_copies, view_writes, whole_slices, written_args)
from .functions import (closures, drawing_helpers, function_attributes, inline_generators,
                        inline_nested, made_function_names, markers, module_function_args,
                        module_varargs, nested_function_args, nested_varargs, object_methods,
                        passed_lambdas, returned_closures, returned_dicts,
                        returned_function_pairs, returned_functions, returned_lists,
                        returned_slices, small_helpers, unused_returned_functions)
from .functions.lifted import lifts_nested
from .read import fence, imports, module_attributes, read
from .read.read import ParsedFunction
from .statements import (array_loops, chained_assignments, chained_writes, changing_kinds, desugar,
                         loop_else, nested_unpacking, none_tests, normalize, number_starts,
                         python_blocks, slice_names, range_values, rebound_counters,
                         rebound_iterables, rebound_names, statement_forms, stored_ranges,
                         value_bools)
from ..syntax import clone


@dataclass(frozen=True)
class Pass:
    run: object              # run(tree, ctx) -> tree or None
    idiom: str               # what it lowers (or checks), as the user writes it
    name: str
    after: tuple = ()        # passes that must have run before it
    retypes: bool = False    # kinds inferred again after it changed the tree


def step(entry, idiom, after=(), retypes=False):
    """A Pass for a pass module (its `run`) or a step function of steps.py."""
    if inspect.ismodule(entry):
        return Pass(entry.run, idiom, entry.__name__.rpartition(".")[2], tuple(after), retypes)
    return Pass(entry, idiom, entry.__name__, tuple(after), retypes)


@dataclass(frozen=True)
class Group:
    name: str
    when: object             # when(ctx): whether there is anything for the passes to do
    passes: list = field(default_factory=list)


NESTED_FUNCTIONS = Group("nested functions", lifts_nested, [
    step(nested_varargs, "def h(*args, **kw) inside: the arguments each call passes"),
    step(passed_lambdas, "apply(lambda u: u * w, x): the lambda bound to a name first"),
    step(nested_function_args, "apply_twice(scale, a), both nested: a copy per function passed"),
    step(inline_nested, "def add(v): out.append(v): inlined where it is called"),
    step(closures, "def / lambda inside the function: a helper taking what it captures",
         after=("passed_lambdas", "inline_nested")),
])

READ = [
    step(loop_else, "for ... else, while ... else: a flag the loop's breaks set"),
    step(rebound_counters, "for i in range(n): ... i -= 3: for i_loop in range(n): i = i_loop"),
    step(rebound_iterables, "for row in A: A = A * 0.9: A_iterated = A; for row in A_iterated:"),
    step(inline_generators, "for v in gen(x) of a generator yielding values: its body, the"
         " loop's body where it yields"),
    step(imports, "from scipy.special import erf inside the def: a name of the function"),
    step(module_attributes, "physics.force(x), config.DT of a user's module: names of the "
         "function, as from physics import force binds them"),
    step(callable_forms, "functools.partial(h, W), map(f, xs): lambdas and comprehensions"),
    step(builtin_forms, "math.fsum, divmod, functools.reduce, max(key=), np.ndenumerate"),
    step(chained_assignments, "a = b = v: a = v; b = a"),
    step(returned_closures, "make(a, b)(g) of a make returning its nested function: one "
         "function doing both"),
    step(function_attributes, "f.count = 0 in f, f.count += 1 in a nested def: a local "
         "variable, nonlocal there"),
    NESTED_FUNCTIONS,
    step(object_methods, "LAYER.forward(p, x), LAYER.scale of a module-level object: a copy of"
         " the method; the values it holds", after=("closures",)),
    step(module_varargs, "cat(w, a, b) of a module-level def cat(w, *args): a copy taking"
         " args_0, args_1", after=("closures",)),
    step(module_function_args, "fixed_point(step, a, x0) of a module-level step: a copy of"
         " fixed_point calling step", after=("closures",)),
    step(made_function_names, "step = step_of(a); step(x) of a helper returning a function:"
         " step_of(step_a)(x)", after=("closures", "module_function_args")),
    step(returned_functions, "make_grad(ans, x)(g) of a helper returning a function: a copy"
         " returning its call", after=("closures",)),
    step(unused_returned_functions, "flat, _ = flatten(p) of a helper returning (vector,"
         " unflatten): a copy returning the vector alone", after=("closures",)),
    step(returned_function_pairs, "flat, unflat = flatten(p); unflat(v) of a helper returning"
         " (vector, unflatten): the values unflatten captures returned, unflatten lifted",
         after=("unused_returned_functions",)),
    step(module_containers, "S[0], for W, b in LAYERS of a module-level tuple, list or dict of"
         " arrays: S = (S_0, S_1), its elements module-level names",
         after=("closures", "object_methods")),
    step(returned_dicts, "r = terms(u); r['kin'] of a helper returning a dict literal: its body"
         " inlined, the dict the caller's",
         after=("closures", "module_varargs", "module_function_args", "returned_functions")),
    step(assigned_keys, "d = {}; d['y'] = ...: the key made with the dict",
         after=("closures",)),
    step(python_blocks, "try ... except computing nothing that needs a gradient: a "
         "function kept as Python", after=("closures",)),
    step(statement_forms, ":=, del, global, nonlocal, try ... finally, assert, with"),
    step(star_forms, "f(*args), a, *rest = xs, [*xs, y]: written out", after=("closures",)),
    step(dict_comprehensions, "{k: v for k, v in d.items()}: a dict literal",
         after=("assigned_keys",)),
    step(records, "p = P(a=x, b=y); p.a (NamedTuple, dataclass): p_a = x; p_a"),
    step(nested_unpacking, "a, (b, c) = h(x): level by level"),
    step(stored_ranges, "r = range(n); for t in r: for t in range(n)", after=("closures",)),
    step(drawing_helpers, "noise = sample(params, rs) of a helper drawing random numbers: its"
         " body inlined, so the derivative uses the numbers the call drew",
         after=("closures", "module_varargs", "module_function_args", "returned_functions")),
    step(returned_lists, "hs = states(W, xs) of a helper returning a list it grows: its body"
         " inlined, the list the caller's", after=("drawing_helpers",)),
    step(returned_slices, "idx = batch(i) of a helper returning slice(a, b): its body inlined",
         after=("returned_lists",)),
    step(slice_names, "idx = slice(a, b); x[idx]: x[idx_start:idx_stop]",
         after=("returned_slices",)),
    step(fence, "anything no pass above lowered: refused with its line"),
]

CONTAINERS = Group("containers", has_containers, [
    step(list_appends, "xs = []; xs.append(a); xs.append(b): xs = [a, b]"),
    step(literal_loops, "for w in (a, b), for k, v in d.items(): the body once per element"),
    step(comprehensions, "[e for i in seq], sum(e for ...), any(...): loops filling arrays"),
    step(nested_literals, "M = [[a, b], [c, d]] used as an array: np.array(M)"),
    step(materialised_lists, "a comprehension's list used as a list: refused",
         after=("comprehensions",)),
    step(growing_lists, "hs = [h0]; hs.append(f(hs[t])) in a loop: hs = []; hs.append(h0);"
         " np.stack(hs): stack_list(hs)", after=("list_appends", "comprehensions")),
    step(dicts, "d = {'w': x}; d['w']: a variable per key"),
    step(literals, "v = [1.0, a]; v[1], sum([a, b]): a variable per element, 0 + a + b"),
])

SPECIALISE = [
    step(flatten_args, "dict / NamedTuple / list arguments: one parameter per leaf"),
    step(zip_forms, "a, b = zip(*t), for p, q in zip(u, v) of sequences of known length: the"
         " tuples zip makes", after=("flatten_args",)),
    step(read_respellings, "sorted(x), list(x), x.tolist(): comprehensions",
         after=("flatten_args",)),
    step(steps.lift_loops, "s2sad.checkpointed(range(n)), or a memory budget: step functions"),
    step(steps.copy_tree, "(the tree read stays the function's: the passes below change a copy)"),
    step(small_helpers, "slse += logsumexp(beta) in a loop, of a small helper with a loop: its"
         " body inlined (optimisation inline_helpers)", after=("copy_tree",)),
    step(own_copies, "a helper's writing copy differentiated: without its w = w.copy()"),
    step(aux_output, "has_aux: return loss, {'acc': a}: the aux as a tuple"),
    step(hidden_writes, "u.fill(v), np.copyto(u, v), out=u, u.sort(), np.add.at: stores"),
    step(bind, "every call bound to its callee's signature; keepdims=True, np.r_, x.item()",
         after=("hidden_writes",)),
    step(added_keys, "d = {}; fill(d, x) adding d['y']: the key made with the dict",
         after=("bind",)),
    step(written_args, "step(u, out) writing into out: out[:] = step_writing(u, out)",
         after=("bind", "added_keys")),
    step(sequence_args, "list and tuple arguments: isinstance folded, list-only uses refused"),
    step(mutated_args, "a helper appending to a list it is given: refused"),
    step(none_tests, "x is None, x is not None: folded"),
    step(value_bools, "if x:, not x, x and y of numbers and arrays: comparisons"),
    step(steps.new_names, "(fresh names from here on avoid every name the function uses)"),
    CONTAINERS,
    step(array_attributes, "x.flat, x.mT: np.ravel(x), np.swapaxes(x, -1, -2)"),
    step(array_loops, "for t in np.linspace(...): a counted loop over the array"),
    step(desugar, "break, continue, early return, for row in A, ternaries: flags and counted"
         " loops", after=("comprehensions",)),
    step(range_values, "r = range(a, b); r[k], len(r): range_item(a, b, 1, k), len(range(a, b))",
         after=("desugar", "none_tests")),
    step(steps.mark_accesses, "(array accesses marked, for the index checks)"),
    step(normalize, "one primitive operation per statement; a += b; x.sum(): np.sum(x)",
         after=("desugar",)),
    step(steps.infer_kinds, "(the kinds of every variable, from the argument kinds)",
         after=("normalize",)),
    step(list_reads, "np.sin(hs[t]), range(len(hs)) of a grown list: each read its own statement",
         after=("infer_kinds", "growing_lists"), retypes=True),
    step(number_starts, "res = 0; res = res + a: res = 0 + a", after=("infer_kinds",),
         retypes=True),
    step(rebound_names, "x = np.atleast_2d(x) of a 1-d x: x2 = np.atleast_2d(x), a name per"
         " kind", after=("number_starts",), retypes=True),
    step(aux_pairs, "has_aux: return pair of a tuple of two values, checked",
         after=("infer_kinds",)),
    step(missing_attributes, "x.ptp() of an array: numpy 2's AttributeError",
         after=("infer_kinds",)),
    step(chained_writes, "`a[i][j] = v`: the write checked to reach a", after=("infer_kinds",)),
    step(changing_kinds, "sum(res) of a number made an array in a loop: refused",
         after=("number_starts",)),
    step(builtin_reductions, "sum(x), max(x) of an array: np.sum(x, axis=0)",
         after=("infer_kinds",), retypes=True),
    step(tensordot_forms, "np.tensordot(a, b, axes) of known ranks: np.einsum of its subscripts",
         after=("infer_kinds",)),
    step(tuples, "r = h(x) of a tuple: r_0, r_1 = h(x)", after=("infer_kinds",),
         retypes=True),
    step(steps.unliftable, "(under a budget: a loop a step cannot carry, recorded instead)",
         after=("lift_loops", "infer_kinds")),
    step(arrays_written, "h(u) with h doing p += e of an array: rewritten as a write into u",
         after=("written_args", "infer_kinds")),
    step(view_writes, "for row in X: row /= s: row a copy, X[i] = row after each write through"
         " it; C = B; C += 1.0: B += 1.0",
         after=("arrays_written",), retypes=True),
    step(steps.aliased_writes, "b = a; b[0] = v while a is read: refused",
         after=("infer_kinds",)),
    step(view_copies, "row = b[i]; b[i] = f(row): row = np.copy(b[i]), which the reverse"
         " sweep reads after the write", after=("aliased_writes",), retypes=True),
    step(calls_for_effect, "np.put(u, ...), u.resize(...), a kernel given u: refused",
         after=("hidden_writes", "infer_kinds")),
    step(whole_slices, "u[...] of an array: u[:]", after=("infer_kinds",)),
    step(steps.independent_loops, "s2sad.parallel loops: their independence proven",
         after=("whole_slices",)),
    step(steps.derivative_calls, "g = s2sad.grad(loss)(x): the generated gradient called",
         after=("infer_kinds",)),
]

HELPER_COPY = [
    step(zip_forms, "a, b = zip(*t), for p, q in zip(u, v) of sequences of known length: the"
         " tuples zip makes"),
    step(read_respellings, "sorted(x), list(x), x.tolist(): comprehensions"),
    step(steps.note_written_arguments, "(a helper writing into its arguments: noted)"),
    step(bind, "the calls of helpers bound by position"),
    step(added_keys, "d = {}; fill(d, x) adding d['y']: the key made with the dict"),
    step(written_args, "fill(d, x) writing into a local dict: its keys assigned back"),
    step(steps.new_names, "(fresh names from here on avoid every name the function uses)"),
    CONTAINERS,
    step(markers, "s2sad.stop_gradient(x) and other markers: the value itself"),
    step(steps.strip_checkpoint_marks, "s2sad.checkpointed(range(n)): range(n)"),
]


def run(passes, ctx):
    """Run `passes` (Pass or Group) over `ctx.tree`, in order."""
    for p in passes:
        if isinstance(p, Group):
            if p.when(ctx):
                run(p.passes, ctx)
            else:
                ctx.skipped.add(p.name)
            continue
        tree = p.run(ctx.tree, ctx)
        if tree is not None:  # changed: a new node list, and kinds again if they may differ
            ctx.tree = tree
            if p.retypes:
                ctx.infer_kinds()
    return ctx


# (code, nested_def_ok) -> (the lines read, (tree, location, source, names the
# passes bound)) of a function with no nested function or lambda: a derivative
# reads its function twice, and generating it again reads it again (~10% of
# GMM's generation time)
_READ_TREES = {}


def parse(fn, nested_def_ok=False, read_only=False):
    """`fn` read and run through READ: a ParsedFunction, or a clear error.
    `nested_def_ok` admits the `backward` of a custom gradient. `read_only`:
    the caller does not change the tree (which may then be the one kept for
    the next read of the same lines, not a copy)."""
    found = read.source_of(fn)
    key = None
    if found.tree is None:  # a def, read from its file
        key = (found.fn.__code__, nested_def_ok)
        known = _READ_TREES.get(key)
        if known is not None and known[0] is found.lines:
            tree, location, source, bound = known[1]
            return ParsedFunction(found.fn, tree if read_only else clone(tree), location,
                                  {**read.namespace_of(found.fn), **bound}, source)
        found = read.parsed(found)
    parsed = ParsedFunction(found.fn, found.tree, found.location, found.namespace, found.source)
    before = dict(parsed.namespace)
    ctx = run(READ, Context(parsed, parse, nested_def_ok=nested_def_ok))
    parsed.__dict__.pop("_locals", None)  # (the passes bind new names)
    if key is not None and not nested_def_ok and NESTED_FUNCTIONS.name in ctx.skipped \
            and not ctx.reads_values:
        # nothing was lifted out of it (which registers the lifted functions
        # anew): the same tree serves the next read of the same lines
        if len(_READ_TREES) >= 256:
            _READ_TREES.clear()
        bound = {k: v for k, v in parsed.namespace.items() if before.get(k, before) is not v}
        _READ_TREES[key] = (found.lines, (clone(parsed.tree), parsed.location, found.source,
                                          bound))
    return parsed


def specialise(fn, arg_kinds, program, loops=None, stopped=(), skip=(), arrays=frozenset()):
    """`fn` read and run through SPECIALISE for `arg_kinds`: the context
    holding its tree, kinds and names. `loops`: checkpointed loops
    ("marked": those marked s2sad.checkpointed; "budget": also the others,
    under the program's memory budget)."""
    skip, arrays = frozenset(skip), frozenset(arrays)
    while True:
        ctx = Context(parse(fn), parse, program, arg_kinds=arg_kinds, loops=loops,
                      stopped=stopped, skip=skip, arrays=arrays,
                      structures=getattr(program, "flat_arguments", {}).get(fn),
                      has_aux=fn in getattr(program, "aux_functions", ()),
                      reserved=program.module_names)
        try:
            return run(SPECIALISE, ctx)
        except Restart as again:  # more loops kept, more calls writing into arrays
            skip, arrays = skip | again.skip, arrays | again.arrays


def helper_copy(fn, program, copy_name):
    """The tree of `fn`'s primal copy, named `copy_name`, run through
    HELPER_COPY (its context)."""
    parsed = parse(fn)
    parsed.tree.name = copy_name
    return run(HELPER_COPY, Context(parsed, parse, program, helper_copy=True))
