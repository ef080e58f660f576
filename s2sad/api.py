"""The public API: grad, value_and_grad and vjp."""
import copy
import functools
import inspect
import threading


from . import (background, backend, cache, guards, precision, pytrees, self_check,
               source_cache, travel)
from .checkpointing import (MemoryBudgetExceeded, budget_off, default_budget, memory_budget,
                            warn_switch)
from .arguments import (as_value as _as_value, cast as _cast, has_loops as _has_loops,
                        innermost as _innermost, resolve_wrt as _resolve_wrt,
                        sequences as _sequences, structured_like as _structured_like,
                        types_of as _types_of, with_trailing as _with_trailing)
from .guessed_kinds import generate_for_guess, guess_kinds as _guess_kinds  # noqa: F401 (cli.py)
from .partials import unpartial
from .primitives import as_function
from .transforms.analysis import kinds as K
from .transforms.frontend.containers.aux import rebuild_aux
from .transforms.optimise.pipeline import enabled_optimisations
from .transforms.errors import S2sadTypeError, S2sadValueError

_JIT_CHOICES = (True, False, "require", "auto")


def generate(*args, **kwargs):
    """s2sad.generate.generate: the compiler, loaded at the first derivative
    that is not read back from the source cache (s2sad/source_cache.py)."""
    from .generate import generate as generate_now
    return generate_now(*args, **kwargs)


# Called as hook(derivative, kinds) before a derivative is generated for
# argument kinds it has not seen (tests count generations).
GENERATE_HOOKS = []


def grad(fn=None, wrt=0, *, jit="auto", stop_gradients=(), boundscheck=True,
         memory=None, parallel=False, has_aux=False, optimise=None, check=None):
    """Gradient of `fn` with respect to `wrt`.

    `wrt` is an argument position or name, or the name of a variable
    assigned once in `fn`, or a tuple of them (then a tuple of gradients is
    returned). A non-scalar output is summed first, as in `tf.gradients`.
    `stop_gradients` names variables no gradient flows through (partial
    derivatives, as in `tf.gradients`). `jit="auto"` compiles with numba,
    except that a derivative without loops runs its numpy operations directly
    on big arrays (see backend.Entry); `jit=True` always compiles, `jit=False`
    never, `jit="require"` raises when numba cannot. `boundscheck=False` lets compiled
    code index without checking bounds (faster; an index out of range then
    reads or writes memory that is not the array's). `memory` (bytes, or a
    string like "64MB"; default: the S2SAD_MEMORY environment variable, and
    without it half the physical memory) is what a top-level loop's tape may
    take: a loop that would record more is reversed by binomial checkpointing
    (see README, "Memory at scale"), and the default budget's switch warns
    (s2sad.MemoryBudgetWarning). `memory="off"` never checkpoints.
    `parallel=True` runs the derivative's loops that s2sad proves
    independent as numba prange loops (a `prange` in `fn` does so for that
    loop anyway). `has_aux=True` (as in JAX): `fn` returns a pair
    `(output, aux)`, only the output is differentiated, and the result is
    `(gradient, aux)`. `optimise=False` builds the plain derivative (every
    optimisation pass off; "-gather,-fusion" switches off those named, see
    s2sad.OPTIMISATIONS; default: the S2SAD_OPTIMISE environment variable,
    else all on). `check=True` (default: the S2SAD_CHECK environment
    variable) makes the first call for each kind of arguments check the
    derivative against its plain twin, by a Taylor test and forward against
    reverse mode, raising s2sad.GradientCheckError when a check fails.
    Usable as `@grad` or `@grad(...)`."""
    return _derivative(fn, "grad", False, wrt=wrt, jit=jit, stop_gradients=stop_gradients,
                       boundscheck=boundscheck, memory=memory, parallel=parallel,
                       has_aux=has_aux, optimise=optimise, check=check)


def value_and_grad(fn=None, wrt=0, *, jit="auto", stop_gradients=(), boundscheck=True,
                   memory=None, parallel=False, has_aux=False, optimise=None, check=None):
    """Like `grad`, but returns `(value, gradient)`; with `has_aux=True`,
    `((output, aux), gradient)` as in JAX."""
    return _derivative(fn, "grad", True, wrt=wrt, jit=jit, stop_gradients=stop_gradients,
                       boundscheck=boundscheck, memory=memory, parallel=parallel,
                       has_aux=has_aux, optimise=optimise, check=check)


def vjp(fn=None, wrt=0, *, jit="auto", stop_gradients=(), boundscheck=True, memory=None,
        parallel=False, has_aux=False, optimise=None, check=None):
    """Vector-Jacobian product: `vjp(f)(*args, seed)` weights the outputs of
    `f` by `seed` (shape of the output; a tuple for a tuple output), like
    `grad_ys` in `tf.gradients`. `has_aux=True`: `f` returns `(output,
    aux)`, the seed weights the output, and the result is `(vjp, aux)`.
    `optimise` and `check` as for `grad`."""
    return _derivative(fn, "vjp", False, wrt=wrt, jit=jit, stop_gradients=stop_gradients,
                       boundscheck=boundscheck, memory=memory, parallel=parallel,
                       has_aux=has_aux, optimise=optimise, check=check)


def jvp(fn=None, wrt=0, *, jit="auto", boundscheck=True, has_aux=False, optimise=None,
        check=None):
    """Forward mode: `jvp(f)(*args, tangent)` returns `(value, jvp)`, the
    derivative of `f` along `tangent` (a tuple of tangents for a tuple
    `wrt`), like `jax.jvp`; with `has_aux=True`, `(output, jvp, aux)`.
    `optimise` and `check` as for `grad`."""
    return _derivative(fn, "jvp", True, wrt=wrt, jit=jit, boundscheck=boundscheck,
                       has_aux=has_aux, optimise=optimise, check=check)


def _objects(gen):
    """The positions of the object arguments of generated code that holds
    Python objects (backend.Entry), else None."""
    return gen.object_arguments if getattr(gen, "uses_objects", False) else None


def _derivative(fn, mode, with_value, **options):
    """A Derivative of `fn`, or (fn None: used as `@grad(...)`) a decorator."""
    if fn is None:
        return lambda f: Derivative(f, mode=mode, with_value=with_value, **options)
    return Derivative(fn, mode=mode, with_value=with_value, **options)


class Derivative:
    """A derivative of a Python function, generated and compiled for the
    kinds of arguments it is called with (float or array, ndim, dtype)."""

    __s2sad_derivative__ = True
    # without memory=: the default budget, checked lazily (False: none, for a
    # gradient that is differentiated again, as by hvp)
    lazy_budget = True
    split_recursion = True  # False for code differentiated again (transforms/reverse/split_recursion.py)

    def __init__(self, fn, wrt, jit, mode, with_value, stop_gradients=(), boundscheck=True,
                 memory=None, parallel=False, has_aux=False, optimise=None, check=None):
        if jit not in _JIT_CHOICES:
            raise S2sadValueError(f"jit must be one of {_JIT_CHOICES}, not {jit!r}")
        if optimise is not None:
            enabled_optimisations(optimise)  # (refuses unknown names now)
        # None: the S2SAD_OPTIMISE and S2SAD_CHECK environment variables, read
        # when a specialisation is made
        self.optimise, self.check = optimise, check
        given, fn = fn, as_function(unpartial(fn))  # np.sin itself: through its rule; a partial
        functools.update_wrapper(self, fn)
        del self.__wrapped__  # a derivative is not its function (inspect.unwrap)
        self._given = given  # what a pickle refers to (s2sad.travel)
        self.fn, self.jit, self.mode, self.with_value = fn, jit, mode, with_value
        self.boundscheck = bool(boundscheck)
        # bytes, or None: the default budget, checked before each long loop
        # (MemoryBudgetExceeded switches those kinds to the checkpointing variant)
        self._memory_option = memory  # (what a pickle passes on)
        if budget_off(memory):  # no budget at all: every loop records
            self.memory, self.lazy_budget = None, False
        else:
            self.memory = memory_budget(memory)
        self._switched = set()  # entry keys whose calls exceeded the default budget
        self._warned_budget = False  # (MemoryBudgetWarning: once per derivative)
        self.parallel = bool(parallel)  # every loop proven independent as a prange
        self.has_aux = bool(has_aux)  # fn returns (output, aux): only the output differentiated
        self.signature = inspect.signature(fn)  # what the function's arguments bind to
        params = self.signature.parameters.values()
        self._names = [p.name for p in params]
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        self._positional = len(self._names) if plain else -1  # calls that need no binding
        self._defaults = {p.name: p.default for p in params if p.default is not p.empty}
        self.wrt, self.single = _resolve_wrt(fn, self.signature, wrt)
        self.__signature__ = self.signature
        if mode in ("vjp", "jvp"):
            self.__signature__ = _with_trailing(self.signature,
                                                "seed" if mode == "vjp" else "tangent")
        if isinstance(stop_gradients, str):
            stop_gradients = (stop_gradients,)
        self.stop_gradients = tuple(stop_gradients)
        self._entries = {}
        self._by_types = {}  # argument types -> entry, for calls like one already made
        self._deps = None  # what the entries were generated from (guards.snapshot)
        self._last = None
        self._lock = threading.RLock()
        code = getattr(_innermost(fn), "__code__", None)
        name = getattr(fn, "__qualname__", repr(fn))
        self.label = f"{name} ({code.co_filename}:{code.co_firstlineno})" if code else name
        self._where = f"{mode} of {self.label}"  # what error messages name

    def __reduce__(self):
        """Pickles as a reference to the function plus the options; the
        receiving process generates (or loads from its cache) its own."""
        # wrt by name: a position may count a partial's bound values differently
        names = tuple(self._names[w] if isinstance(w, int) else w for w in self.wrt)
        options = dict(wrt=names[0] if self.single else names, jit=self.jit,
                       mode=self.mode, with_value=self.with_value,
                       stop_gradients=self.stop_gradients, boundscheck=self.boundscheck,
                       memory="off" if budget_off(self._memory_option) else self.memory,
                       parallel=self.parallel, has_aux=self.has_aux,
                       optimise=self.optimise, check=self.check)
        return travel.rebuild, (Derivative, travel.reference(self._given), options)

    def __repr__(self):
        return f"<s2sad {self.mode} of {self.fn.__qualname__} wrt {self.wrt}>"

    def _repr_markdown_(self):
        """In a notebook: what it is and its generated source, highlighted."""
        names = ", ".join(self._names[w] if isinstance(w, int) else str(w) for w in self.wrt)
        head = f"**s2sad {self.mode}** of `{self.label}` w.r.t. `{names}`"
        try:
            body = "```python\n" + self.source.rstrip() + "\n```"
        except Exception as exc:  # noqa: BLE001 - the display must not raise
            body = f"(no source yet: {type(exc).__name__}: {exc})"
        when = "for the kinds of its last call" if self._last is not None else \
            "for argument kinds guessed from the source (call it to see the real ones)"
        return f"{head}, generated {when}:\n\n{body}\n"

    def __call__(self, *args, **kwargs):
        if kwargs and self.mode in ("grad", "gradient"):
            args, kwargs = self._as_positional(args, kwargs)
        if not kwargs and len(args) == self._positional + (self.mode in ("vjp", "jvp")):
            result = self._call_like_before(args)
            if result is not None:
                return result
        extra = []
        if self.mode in ("vjp", "jvp"):
            what = "seed" if self.mode == "vjp" else "tangent"
            if len(args) < 1:
                raise S2sadTypeError(f"a {self.mode} takes the function's arguments and then a {what}")
            *args, last = args
            if self.mode == "jvp" and not self.single:
                if not isinstance(last, (tuple, list)) or len(last) != len(self.wrt):
                    raise S2sadValueError(f"{self._where}: wrt has {len(self.wrt)} arguments, so "
                                     f"the tangent must be a tuple of {len(self.wrt)} tangents")
            extra = [last] if self.mode == "vjp" or self.single else list(last)
        if not kwargs and len(args) == self._positional:  # the common call: no binding
            names, given = self._names, args
        else:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            names, given = list(bound.arguments), list(bound.arguments.values())
        values = [_as_value(v) for v in given]
        sequences = _sequences(names, given)
        flat = self._flatten(names, values)
        wrt = self.wrt
        if flat is not None:  # containers: their leaves are the arguments
            names, values, wrt = flat.names, flat.values, flat.wrt
        guards.check_arguments(self._where, names, values, wrt)
        if flat is not None and self.mode == "jvp":
            extra = flat.tangents(self._where, extra)  # of the leaves
        extra = [_as_value(v) for v in extra]
        dtype = precision.working_dtype(values)  # "float32", or None for float64
        kinds = tuple(K.sequence_of(K.of_value(v), sequences.get(n))
                      for n, v in zip(names, values))
        entry = self._entry(kinds, flat, dtype)
        guards.check_written_aliases(self._where, names, values,
                                     getattr(entry.generated, "written_arguments", ()))
        if self.mode == "vjp":
            guards.check_seed(self._where, entry.generated.output_kind, extra[0])
        elif self.mode == "jvp":
            guards.check_tangents(self._where, names, values, wrt, extra)
        try:
            try:
                value, grads = entry(*values, *extra)
            except MemoryBudgetExceeded as exceeded:
                # a loop's tape would exceed the default budget (raised before
                # it is recorded): from now on these kinds take the variant
                # that checkpoints such loops, and the call runs again (the
                # derivative copies the arguments it writes: nothing changed)
                self._warn_budget(exceeded)
                entry = self._entry(kinds, flat, dtype, switch=True)
                value, grads = entry(*values, *extra)
        except Exception as exc:
            if self.mode == "vjp" and self.fn is _innermost(self.fn) and flat is None:
                # a seed shorter than the output: say so
                guards.seed_after_failure(self._where, self.fn, values, extra[0], exc)
            raise
        if entry.check_report is None and self_check.wanted(self.check):
            with self._lock:
                if entry.check_report is None:  # the first call of these kinds checks itself
                    budgeted = entry is not self._entries.get(self._key(kinds, flat, dtype))
                    entry.check_report = self_check.verify(
                        self, entry, names, values, extra, (value, grads), wrt,
                        (kinds, flat, dtype, budgeted),
                        primal=functools.partial(_run_primal, self.fn, tuple(args), kwargs))
        if flat is not None and self.mode != "jvp":
            grads = flat.gradients(grads)
            grads = grads[0] if self.single else tuple(grads)
        elif self.mode != "jvp":  # each gradient in its argument's dtype
            grads = _cast(grads, self.wrt, self.single, values)
            # ... and in its structure: a tuple or list of numbers given gets one
            grads = _structured_like(grads, self.wrt, self.single, given)
        if dtype is not None:  # numba returns a float32 scalar as a Python float
            value = precision.scalars_as(value, dtype)
            grads = precision.scalars_as(grads, dtype) if self.mode == "jvp" else grads
        if self.mode == "vjp":
            guards.check_seed_shape(self._where, value[0] if self.has_aux else value, extra[0])
        if flat is None and dtype is None and not kwargs and len(args) == self._positional \
                and (self.mode != "jvp" or self.single):
            types = _types_of(tuple(args) + tuple(extra))  # (a vjp's seed, a jvp's tangent)
            if types is not None:
                with self._lock:
                    self._by_types[types] = entry
        return self._result(entry, value, grads)

    def _warn_budget(self, exceeded):
        """MemoryBudgetWarning, once per derivative (checkpointing.warn_switch)."""
        with self._lock:
            if self._warned_budget:
                return
            self._warned_budget = True
        warn_switch(self.fn, _innermost(self.fn), self.mode, exceeded, stacklevel=4)

    def _result(self, entry, value, grads):
        """What a call returns: with has_aux, JAX's forms, the aux rebuilt
        (its dicts and lists come back from the compiled code as tuples)."""
        if not self.has_aux:
            return (value, grads) if self.with_value else grads
        out, aux = value[0], rebuild_aux(entry.generated.aux_structure, value[1])
        if self.mode == "jvp":
            return out, grads, aux
        return ((out, aux), grads) if self.with_value else (grads, aux)

    def _call_like_before(self, args):
        """A call whose arguments (and seed or tangent) have the types of an
        earlier one (same dtypes and ranks, no containers) skips the checks
        that follow from types, and the kinds: the earlier call passed them.
        The checks that depend on values run: aliases of an argument the
        function writes, the shape of a tangent or a seed. None when there
        was no such call, or the call must take the general path (the
        helpers changed, a memory budget switch)."""
        types = _types_of(args)
        if types is None:
            return None
        with self._lock:
            self._check_fresh()
            entry = self._by_types.get(types)
            if entry is None:
                return None
            self._last = entry
        values = args[:-1] if self.mode in ("vjp", "jvp") else args
        written = getattr(entry.generated, "written_arguments", ())
        if written:
            guards.check_written_aliases(self._where, self._names, values, written)
        if self.mode == "jvp":
            guards.check_tangents(self._where, self._names, values, self.wrt, args[-1:])
        try:
            value, grads = entry(*args)
        except MemoryBudgetExceeded:
            return None  # (raised before anything ran: the general path switches variants)
        except Exception as exc:
            if self.mode == "vjp" and self.fn is _innermost(self.fn):
                # a seed shorter than the output: say so
                guards.seed_after_failure(self._where, self.fn, values, args[-1], exc)
            raise
        if self.mode == "vjp":
            guards.check_seed_shape(self._where, value[0] if self.has_aux else value, args[-1])
        if self.mode != "jvp":
            grads = _cast(grads, self.wrt, self.single, values)
        return self._result(entry, value, grads)

    def _as_positional(self, args, kwargs):
        """A call's keyword arguments as positional ones where that binds
        them as the signature would (each names a parameter after the
        positional ones given; the missing ones have defaults): the common
        call's path. Else (args, kwargs) as given, for the binder."""
        names = self._names
        later = names[len(args):]
        if self._positional < 0 or len(args) > len(names) or any(k not in later for k in kwargs):
            return args, kwargs
        values = list(args)
        for name in later:
            if name in kwargs:
                values.append(kwargs[name])
            elif name in self._defaults:
                values.append(self._defaults[name])
            else:
                return args, kwargs  # (the binder says which one is missing)
        return tuple(values), {}

    def _flatten(self, names, values):
        """The call's arguments with their containers flattened, or None
        when it has none."""
        if not any(pytrees.is_container(v) for v in values):
            return None
        if getattr(self.fn, "__s2sad_derivative__", False):
            raise S2sadTypeError(f"{self._where}: differentiating a derivative of a function that "
                            f"takes containers (dicts, NamedTuples, lists of arrays) is not "
                            f"supported. Pass their leaves as separate arguments.")
        return pytrees.Flat(self._where, names, values, self.wrt)

    @staticmethod
    def _key(kinds, flat, dtype):
        return kinds if flat is None and dtype is None else (flat and flat.key, dtype, kinds)

    def _entry(self, kinds, flat=None, dtype=None, switch=False):
        key = self._key(kinds, flat, dtype)
        with self._lock:  # threads asking for the same kinds generate and compile once
            self._check_fresh()
            if switch:
                self._switched.add(key)
                self._by_types.clear()
            budgeted = key in self._switched
            if budgeted:  # (the two variants never share an entry)
                key = ("default budget", key)
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = self._build(kinds, flat, dtype, budgeted)
            self._last = entry
            return entry

    def _check_fresh(self):
        """A helper (or a constant, or a gradient rule) redefined since the
        derivative was generated: generate it again, as calling the
        function itself would run the new helper."""
        if self._deps is not None and not guards.fresh(self._deps):
            self._entries.clear()
            self._by_types.clear()
            self._switched.clear()
            self._deps = None
        if self._deps is None:  # (compiled: the global arrays' values too)
            self._deps = guards.snapshot(self.fn, contents=self.jit is not False)

    def _target(self, kinds):
        """The function to differentiate: for grad(grad(f)), the generated
        gradient of f for these argument kinds."""
        if getattr(self.fn, "__s2sad_derivative__", False):
            return self.fn.generated_function(kinds)
        return self.fn

    def _generate(self, kinds, mode=None, flat=None, dtype=None, budgeted=False,
                  optimisations=None):
        wrt, single = (self.wrt, self.single) if flat is None else (flat.wrt, False)
        if optimisations is None:
            optimisations = enabled_optimisations(self.optimise)
        memory, guard = self.memory, None
        if memory is None and self.mode != "jvp" and self.lazy_budget \
                and not getattr(self.fn, "__s2sad_derivative__", False):  # (not grad(grad(f)))
            # the default budget: only checked (check_memory), unless a call
            # exceeded it (`budgeted`): then applied as a memory= budget is
            memory, guard = (default_budget(), None) if budgeted else (None, default_budget())
        options = dict(wrt=wrt, mode=mode or self.mode, single=single,
                       stop_gradients=self.stop_gradients, boundscheck=self.boundscheck,
                       dtype=dtype, memory=memory, memory_guard=guard, parallel=self.parallel,
                       split_recursion=self.split_recursion, has_aux=self.has_aux,
                       optimisations=optimisations)
        if self._given is not self.fn or getattr(self.fn, "__s2sad_derivative__", False):
            # (a partial's values, grad of grad: not read back from disk)
            return generate(self._target(kinds), kinds, flat=flat, **options)
        return source_cache.generated(generate, self.fn, kinds, flat, options,
                                      verify=self_check.wanted(self.check))

    def _module(self, gen):
        extra = gen.key_extra + ";" + backend.options_key(gen.source, gen.functions,
                                                          self.boundscheck, gen.checks_own_indices)
        name = "s2sad_" + cache.module_key(gen.source, extra)
        return backend.CompiledModule.get(name, gen.source, gen.functions, gen.namespace,
                                          self.boundscheck, gen.checks_own_indices)

    def _build(self, kinds, flat=None, dtype=None, budgeted=False):
        for hook in list(GENERATE_HOOKS):
            hook(self, kinds)
        gen = self._generate(kinds, flat=flat, dtype=dtype, budgeted=budgeted)
        module = self._module(gen)
        jit = self.jit
        if jit == "auto" and _has_loops(gen.source):
            jit = True  # loops run in numba; whole-array code is chosen per call (backend.Entry)
        hint = "A vjp's seed must have the shape of the output." if self.mode == "vjp" else ""
        # the default (jit="auto"): compiled off the caller's path, running as Python meanwhile
        entry = backend.Entry(module, gen.entry, jit, self.label, hint, _objects(gen),
                              background=self.jit == "auto" and background.enabled())
        entry.generated = gen
        entry.check_report = None  # (s2sad/self_check.py, at its first call)
        return entry

    def _variant(self, kinds, flat=None, dtype=None, budgeted=False, optimisations=None,
                 mode=None, jit=False):
        """An entry for these kinds built otherwise (other optimisations,
        forward or reverse mode), not kept: what the self-checks compare."""
        gen = self._generate(kinds, mode=mode, flat=flat, dtype=dtype, budgeted=budgeted,
                             optimisations=optimisations)
        # (as Python: a module of its own, not kept among the loaded ones)
        module = self._module(gen) if jit else backend.CompiledModule(
            "s2sad_check_" + cache.module_key(gen.source, gen.key_extra), gen.source,
            gen.functions, gen.namespace, self.boundscheck, gen.checks_own_indices)
        entry = backend.Entry(module, gen.entry, jit, self.label, objects=_objects(gen))
        entry.generated = gen
        return entry

    def wait_compiled(self):
        """Wait until the compiled code of every specialisation made so far
        is in use. With jit="auto" (the default) the first calls run the
        generated derivative as Python while numba compiles it in another
        process; call this before timing (S2SAD_BACKGROUND_COMPILE=0, or
        jit=True, compiles at the first call instead). Returns self."""
        with self._lock:
            entries = list(self._entries.values())
        for entry in entries:
            if isinstance(entry, backend.Entry):
                entry.wait_compiled()
        return self

    @property
    def check_report(self):
        """What the self-checks of the last call's specialisation found
        (check=True or S2SAD_CHECK=1; None before they ran)."""
        return None if self._last is None else self._last.check_report

    def generated_function(self, call_kinds):
        """The generated function computing what a call of this derivative
        returns, for arguments of `call_kinds` (a jvp's tangents included), as
        plain Python with source: what s2sad differentiates for
        grad(grad(f)), or for a grad/value_and_grad/jvp call inside a
        differentiated function. A jvp's function takes its tangents as
        trailing arguments, one per `wrt`."""
        if self.mode == "vjp":
            raise S2sadTypeError("a vjp cannot be differentiated again: differentiate a function "
                            "that calls s2sad.grad, value_and_grad or jvp instead")
        arg_kinds = tuple(call_kinds)
        if self.mode == "jvp":
            arg_kinds = arg_kinds[:-1]  # the function's arguments, without the tangents
            mode = "jvp"
        else:
            mode = "grad" if self.with_value else "gradient"
        key = (mode,) + arg_kinds
        with self._lock:
            self._check_fresh()
            if key not in self._entries:
                # (no budget: this code is differentiated again, or called from
                # differentiated code)
                gen = generate(self._target(arg_kinds), arg_kinds, self.wrt, mode, self.single,
                               self.stop_gradients, self.boundscheck, split_recursion=False,
                               has_aux=self.has_aux,
                               optimisations=enabled_optimisations(self.optimise))
                if gen.aux_structure is not None:
                    raise S2sadTypeError(f"{self._where}: a derivative with has_aux=True whose aux "
                                    f"holds a dict or a list cannot be called inside a "
                                    f"differentiated function or differentiated again; "
                                    f"return the aux as a tuple there")
                self._entries[key] = self._module(gen).python.__dict__[gen.entry]
            return self._entries[key]

    def specialisation_for(self, values):
        """The compiled entry for these (bound, converted) argument values."""
        return self._entry(tuple(K.of_value(v) for v in values), None,
                           precision.working_dtype(values))

    def specialisation(self, kinds=None):
        """The compiled entry for argument `kinds` (transforms.kinds), or of
        the last call (before any call: of the kinds guessed from the source)."""
        if kinds is not None:
            return self._entry(tuple(kinds))
        if self._last is None:
            return generate_for_guess(_innermost(self.fn), self._where, self._entry,
                                      "Call the derivative once with your arguments first.")
        return self._last

    @property
    def source(self):
        """The generated derivative module, for the kinds of the last call
        (before any call: for kinds guessed from how the arguments are used,
        an indexed argument being an array of that many dimensions)."""
        if self._last is not None:
            return self._last.generated.source
        return generate_for_guess(
            _innermost(self.fn), self._where, lambda kinds: self._generate(kinds).source,
            "Call the derivative once with your arguments, then read .source (it is the code "
            "generated for their kinds), or read .source_for(*args).")

    def source_for(self, *args, **kwargs):
        """The generated derivative module for arguments like these."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = [_as_value(v) for v in bound.arguments.values()]
        sequences = _sequences(list(bound.arguments), list(bound.arguments.values()))
        flat = self._flatten(list(bound.arguments), values)
        names = list(bound.arguments) if flat is None else flat.names
        values = values if flat is None else flat.values
        return self._generate([K.sequence_of(K.of_value(v), sequences.get(n))
                               for n, v in zip(names, values)], flat=flat,
                              dtype=precision.working_dtype(values)).source


def _run_primal(fn, args, kwargs):
    """The user's function on copies of a call's arguments (the self-check's
    reference value)."""
    return fn(*copy.deepcopy(args), **copy.deepcopy(kwargs))
