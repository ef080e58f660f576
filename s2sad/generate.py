"""Generate the source of a derivative module: header, imports, the
helpers' copies and vjps, and the derivative itself."""
import collections.abc
import gc
import inspect
import numbers
import re
import types

import numpy as np

from . import cache, checkpointing, definitions, libraries, runtime
from . import rules  # noqa: F401  (registers the gradient templates)
from .markers import MARKERS
from .precision import to_float32
from .forms import FORMS
from .generated import Generated
from .registry import REGISTRY
from .transforms.emit import gast_unparse
from .transforms.program import Program
from .version import __version__

# whether emit's direct printer agrees with Python's: checked once per installation
gast_unparse.remember_check_with(
    lambda check: cache.remembered("direct_printer", check, gast_unparse.gast.__version__))


def generate(fn, arg_kinds, wrt, mode, single, stop_gradients=(), boundscheck=True, flat=None,
             dtype=None, memory=None, memory_guard=None, parallel=False, split_recursion=True,
             has_aux=False, optimisations=None):
    """`boundscheck`: generated functions check their indices themselves where
    they can, numba the others; False: nobody checks. `flat`: container
    arguments flattened to their leaves (s2sad.pytrees.Flat), whose kinds
    `arg_kinds` and positions `wrt` are. `dtype` "float32": the module
    computes in float32 (s2sad.precision). `memory`: bytes a loop's tape
    may take before the loop is checkpointed (s2sad.checkpointing).
    `memory_guard` (without `memory`): the default budget, which a loop's
    tape is checked against before it runs (MemoryBudgetExceeded).
    `parallel`: every loop proven independent runs as a prange
    (transforms/optimise/parallel.py). `split_recursion` False: recursive helpers in
    joint mode, for code s2sad differentiates again (split_recursion.py's
    record stacks have no derivative). `has_aux`: `fn` returns `(output,
    aux)` and only the output is differentiated (the module returns the
    aux as a tuple; `gen.aux_structure` rebuilds its dicts and lists).
    `optimisations`: the names of the optimisations to apply
    (transforms/optimise/pipeline.py; None: all, an empty set: the plain
    derivative)."""
    # The passes make and drop hundreds of thousands of tree nodes; the
    # cyclic collector, triggered by them, would scan every object of the
    # process each time (with jax or torch loaded, most of the time taken).
    # Nodes are freed by reference counting; cycles wait for the next
    # collection.
    libraries.load_imported()  # (the rules of scipy's functions, when the process uses scipy)
    enabled = gc.isenabled()
    gc.disable()
    try:
        gen = _generate(fn, arg_kinds, wrt, mode, single, stop_gradients, boundscheck, flat,
                        memory, memory_guard, parallel, split_recursion, has_aux, optimisations)
        if gen.writes_through_helpers and memory_guard is not None:
            # a helper writing into what it is given may change the caller's
            # arrays before a loop, so a call stopped by check_memory could not
            # be repeated: no default budget for this derivative
            gen = _generate(fn, arg_kinds, wrt, mode, single, stop_gradients, boundscheck,
                            flat, memory, None, parallel, split_recursion, has_aux, optimisations)
        if dtype == "float32":
            gen.source = to_float32(gen.source)
        return gen
    finally:
        if enabled:
            gc.enable()


class _RuntimeObjects(collections.abc.Mapping):
    """The runtime helpers by name, each taken from s2sad.runtime at its first
    lookup (scipy.special's load only then), and `others`."""
    def __init__(self, others):
        self._others = others

    def __getitem__(self, name):
        if name in self._others:
            return self._others[name]
        if name in _RUNTIME_NAMES:
            return getattr(runtime, name)
        raise KeyError(name)

    def __iter__(self):
        return iter(_RUNTIME_NAMES | set(self._others))

    def __len__(self):
        return len(_RUNTIME_NAMES | set(self._others))


_RUNTIME_NAMES = frozenset(runtime.__all__)


def _numba():
    import numba
    return numba


def new_program(boundscheck=True):
    """A compiler's Program given what the package defines: the gradient
    rules, the markers, the numpy definitions and the runtime helpers (the
    compiler imports none of them)."""
    program = Program(REGISTRY, MARKERS, index_checks=boundscheck, definitions=definitions)
    program.module_names.update(runtime.__all__)
    program.runtime_objects = _RuntimeObjects(
        # the memory checks and step functions of loops (reverse/checkpoint_loops.py)
        {n: getattr(checkpointing, n) for n in ("check_memory", "trip_count", "state_nbytes")})
    program.runtime_helpers.update(
        {n: n in runtime.MAY_RETURN_FIRST_ARGUMENT for n in runtime.__all__})
    # numpy forms numba lacks, scipy.special and scipy.linalg, as helpers (forms.py)
    program.call_forms = FORMS
    # numba.objmode blocks (transforms/emit/objmode.py): numba, imported for them
    program.backend_module = _numba
    return program


def _generate(fn, arg_kinds, wrt, mode, single, stop_gradients, boundscheck, flat,
              memory=None, memory_guard=None, parallel=False, split_recursion=True,
              has_aux=False, optimisations=None):
    program = new_program(boundscheck)
    if optimisations is not None:
        program.optimisations = frozenset(optimisations)
    program.split_recursion = split_recursion
    if not split_recursion:  # code s2sad differentiates again: its front end refuses
        # `vjp_f_into(..., dA)`, a call made for its effect (adjoints_into.py)
        program.optimisations = program.optimisations - {"adjoints_into"}
    program.memory_budget = memory
    program.memory_guard = memory_guard
    program.parallel = parallel
    program.flat_arguments = {fn: flat.structures} if flat else {}
    if has_aux:
        program.aux_functions.add(fn)
    if parallel:  # chunks per parallel loop with accumulators: numba's threads
        import numba
        program.chunks = numba.get_num_threads()
    if mode == "jvp":
        entry = program.jvp(fn, list(arg_kinds), list(wrt), single=single, has_aux=has_aux)
    else:
        entry = program.derivative(fn, list(arg_kinds), list(wrt), mode, single=single,
                                   stop_gradients=stop_gradients, has_aux=has_aux)
    aux_structure = program.aux_structure
    _drop_uncalled_into_variants(program)
    used = program.names_used
    lines = [f'"""{_describe(fn, wrt, mode, flat)}\n\nGenerated by s2sad {__version__}; '
             f'edit the original function, not this file."""']
    if "math" in used:
        lines.append("import math")
    if "np" in used:
        lines.append("import numpy as np")
    if "prange" in used:
        lines.append("from numba import prange")
    helpers = sorted(used & set(runtime.__all__))
    if helpers:
        lines.append("from s2sad.runtime import " + ", ".join(helpers))
    namespace, described, constants = {}, [], []
    for name, obj in sorted(program.globals.items()):
        if name not in used or (name == "prange" and "from numba import prange" in lines):
            continue
        if isinstance(obj, types.ModuleType):
            if obj.__name__ not in ("math", "numpy") or name not in ("math", "np"):
                lines.append(f"import {obj.__name__} as {name}" if obj.__name__ != name
                             else f"import {name}")
        elif isinstance(obj, (numbers.Number, np.number)) and not isinstance(obj, np.ndarray):
            constants.append(f"{name} = {obj!r}")
        else:
            namespace[name] = obj
            described.append(f"{name}={_identity(obj)}")
    if constants:
        lines += ["", "# constants of the differentiated function's module"] + constants
    if namespace:
        lines += ["", "# provided by the caller's module: " + ", ".join(sorted(namespace))]
    source = "\n".join(lines) + "\n\n\n" + "\n\n".join(
        src for _, src in program.functions + program.python_functions)
    functions = [name for name, _ in program.functions]
    output_kind = program.helper_return_kind(fn, list(arg_kinds)) if mode == "vjp" else None
    if has_aux and output_kind is not None:  # (the seed weights the output, not the aux)
        output_kind = output_kind.items[0] if output_kind.tag == "tuple" else output_kind
    gen = Generated(source, functions, entry, namespace, ";".join(described), output_kind,
                    program.checks_own_indices)
    gen.writes_through_helpers = bool(program.copies_writing_arguments)
    gen.written_arguments = program.written_arguments.get(entry, ())
    gen.aux_structure = aux_structure
    gen.optimisations = program.optimisations
    gen.surrogates = frozenset(program.surrogates)
    # Python objects (a random generator): the arguments that are, and whether
    # the code holds any (s2sad/runtime/objects.py; backend.Entry)
    gen.object_arguments = tuple(k for k, kind in enumerate(arg_kinds) if kind.tag == "object")
    gen.uses_objects = bool(gen.object_arguments) or bool({"keep", "held"} & used)
    return gen


def _identity(obj):
    if isinstance(obj, np.ndarray):
        import hashlib
        return "array:" + hashlib.sha256(obj.tobytes()).hexdigest()[:16]
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    name = f"{mod}.{qual}" if mod else repr(obj)[:80]
    # a numba kernel's machine code is linked into the derivative's, which
    # numba's cache would reuse after the kernel is edited: key on its code
    code = _code_text(getattr(obj, "py_func", obj))
    if code:
        import hashlib
        name += ":" + hashlib.sha256(code.encode()).hexdigest()[:12]
    return name


def _code_text(fn):
    if not inspect.isfunction(fn):
        return ""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return repr((fn.__code__.co_code, fn.__code__.co_consts))


def _describe(fn, wrt, mode, flat=None):
    names = list(inspect.signature(fn).parameters)
    wrt_text = flat.wrt_text if flat else ", ".join(names[w] if isinstance(w, int) else w
                                                     for w in wrt)
    what = {"grad": "Value and gradient", "vjp": "Value and vector-Jacobian product",
            "jvp": "Value and Jacobian-vector product", "gradient": "Gradient"}[mode]
    code = fn.__code__
    text = f"{what} of {fn.__name__} ({code.co_filename}:{code.co_firstlineno}) w.r.t. {wrt_text}."
    return text + (flat.describe(fn) if flat else "")


def _drop_uncalled_into_variants(program):
    """An `_into` variant of a helper's vjp (optimise/adjoints_into.py) is
    made before its callers are optimised; one that no caller came to call
    is left out of the module (a reader would look for its use)."""
    for into, _ in program.into_variants.values():
        others = [src for name, src in program.functions if name != into]
        if not any(re.search(rf"\b{into}\(", src) for src in others):
            program.functions = [(n, src) for n, src in program.functions if n != into]
