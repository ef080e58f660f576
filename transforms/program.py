"""Assemble the generated module for one derivative: the derivative itself,
a `vjp_<name>` for every helper it differentiates through, and a copy of
every helper the forward sweep calls."""
import inspect

import gast

from .optimise import cleanup
from .optimise.adjoints_into import calls_into, into_variant
from .optimise.pipeline import OPTIMISATIONS, check_indices, optimise_reverse
from .analysis import kinds as K
from .analysis.objects import drop_prints, refuse_draws_run_again
from .analysis.activity import analyse
from .call_kinds import call_kind_of
from .reverse.argument_copies import copy_written_args, copying, with_aliases, written_in_place
from .reverse.checkpoint_loops import place_memory_checks, refine_choices
from .frontend.containers.aux import check_pair, gradients_and_aux
from .emit.unparse import function_source, stmt_source
from .emit import tuple_adjoints
from .reverse.markers import complete_early_returns, mark_stopped
from .names import RUNTIME_NAMES, Namer
from .reverse.reverse_mode import ReverseMode
from .frontend.specialise import Specialised
from .analysis.differentiable import check_float_output, check_wrt_arguments, defined_once
from .reverse.split_recursion import sweep_marker, split_recursion
from .module_parts import ModuleParts
from .syntax import (assign, call, clone, const, name, names_loaded, names_stored,
                    subscript, walk, walk_stmts)
from .errors import S2sadTypeError


class Program(ModuleParts):
    def __init__(self, registry, markers=None, index_checks=True, definitions=None):
        self.registry = registry
        self.markers = markers or {}  # marker object -> "stop_gradient", ...
        # numpy functions defined as Python (numpy_definition, definition_arguments)
        self.definitions = definitions
        # generated functions check their own indices (bounds.py) where they
        # can; those that do are compiled without numba's bounds checks
        self.index_checks = index_checks
        self.checks_own_indices = set()
        self.module_names = set(RUNTIME_NAMES)
        # runtime helpers -> whether the result may be the first argument (or a view)
        self.runtime_helpers = {n: True for n in RUNTIME_NAMES}
        self.runtime_objects = {}  # name -> runtime helper, for calls the front end writes
        self.functions = []        # (name, source) in definition order
        self.python_functions = []  # (name, source) of those kept as Python (not compiled)
        self.names_used = set()    # every name their code mentions (for the imports)
        self.local_names = set()   # every name the functions differentiated bind or read
        self.helpers = {}          # helper function -> module name of its copy
        self.helper_vjps = {}      # (function, kinds) -> (name, mask)
        # a helper vjp -> (its variant adding into the caller's adjoint, the
        # position of that argument) (optimise/adjoints_into.py)
        self.into_variants = {}
        self._finished_vjps = {}  # helper vjp -> what adjoints_into reads of it
        self.globals = {}          # free name -> object the module must provide
        self._kind_stack = set()
        self._assumed = {}  # recursive (function, argument kinds) -> its kind assumed this round
        self._recursed = set()  # those whose computation met a recursive call
        self._customs = {}
        self._customs_open = set()  # custom_pair's keys being made
        self._return_kinds = {}
        self.written_arguments = {}  # generated function -> positions of arguments it copies
        self._derivative_calls = {}  # function -> {call position: generated function}
        self.call_forms = []  # calls the backend cannot compile, as helpers (numba_forms.py)
        # the backend's module (numba), whose object mode runs what it cannot
        # compile (emit/objmode.py); None: no such blocks
        self.backend_module = None  # () -> the module numba.objmode blocks name (numba)
        self.memory_budget = None  # bytes a loop's tape may take (checkpoint_loops.py)
        self.split_recursion = True  # recursive helpers in split mode (split_recursion.py)
        self.parallel = False  # grad(..., parallel=True): every safe loop as prange (parallel.py)
        # the optimisations applied (optimise/pipeline.py); none: the plain adjoint
        self.optimisations = frozenset(OPTIMISATIONS)
        # why the gradient may rightly differ from the function's derivative
        # (markers, custom gradients): the self-checks do not assume it is one
        self.surrogates = set()
        self.chunks = 2  # chunks of a parallel loop with accumulators (numba's thread count)
        self.memory_guard = None   # the default budget: checked, not lifted (same module)
        self.copies_writing_arguments = []  # helper copies that write into a parameter
        # has_aux: the functions returning (output, aux), and their aux's structure
        self.aux_functions = set()
        self.aux_structure = None

    # ---- custom gradients and user rules -------------------------------
    def provide(self, obj, parsed=None):
        """A module-level name for `obj` in the generated module: a copy of a
        plain Python function, or the object itself."""
        preferred = getattr(obj, "__name__", "function")
        if not preferred.isidentifier():  # a lambda's "<lambda>"
            preferred = "lambda_fn"
        if inspect.isfunction(obj):
            if obj in self.helpers:
                return self.helpers[obj]
            n = preferred if preferred not in self.module_names else \
                self._fresh_module_name(preferred)
            self._copy_helper(n, obj)
            return n
        for n, o in self.globals.items():
            if o is obj:
                return n
        n = self._fresh_module_name(preferred)
        self.globals[n] = obj
        return n

    def custom_pair(self, obj, arg_kinds):
        """(forward name, backward name, kind of the value, whether the
        backward always returns a tuple) for a custom-gradient callee."""
        key = (obj, tuple(arg_kinds))
        if key in self._customs:
            return self._customs[key]
        self._customs_open.add(key)
        try:
            result = self._custom_pair(obj, arg_kinds)
        finally:
            self._customs_open.discard(key)
        self._customs[key] = result
        return result

    def _custom_pair(self, obj, arg_kinds):
        style = getattr(obj, "__s2sad_custom__", None)
        self.surrogates.add(f"the custom gradient of {getattr(obj, '__name__', obj)}")
        if style == "vjp":
            if obj.fwd is None:
                raise S2sadTypeError(f"{obj.__name__} is a custom_vjp without a rule: call "
                                f"{obj.__name__}.defvjp(fwd, bwd) before differentiating it")
            fwd, bwd = self.provide(obj.fwd), self.provide(obj.bwd)
            kind = self.helper_return_kind(obj.fwd, arg_kinds)
            result = (fwd, bwd, kind.items[0] if kind.tag == "tuple" else K.UNKNOWN,
                      self._vjp_returns_tuple(obj, kind, len(arg_kinds)))
        else:
            from .frontend.functions.custom import split_custom_gradient
            fwd = self._fresh_module_name(obj.__name__ + "_fwd")
            bwd = self._fresh_module_name(obj.__name__ + "_bwd")
            parsed, fwd_tree, bwd_tree, tuple_cots = split_custom_gradient(obj.fn, fwd, bwd)
            for tree in (fwd_tree, bwd_tree):
                self._late_forms(tree, parsed)
                self._add_function(tree.name, stmt_source(tree) + "\n", tree, first=True)
                self._collect_globals(tree, parsed)
            kinds = K.KindInference(self.call_kind(parsed)).run(fwd_tree, list(arg_kinds))
            kind = kinds.get("<return>", K.UNKNOWN)
            if kind.tag == "tuple" and len(kind.items) == 2:
                # a backward returning a tuple however it is written (`return
                # grads` of a tuple): one cotangent per input, even for one
                back = K.KindInference(self.call_kind(parsed)).run(
                    bwd_tree, [kind.items[1], kind.items[0]])
                tuple_cots = tuple_cots or back.get("<return>", K.UNKNOWN).tag == "tuple"
            result = (fwd, bwd, kind.items[0] if kind.tag == "tuple" else K.UNKNOWN,
                      tuple_cots)
        return result

    def _vjp_returns_tuple(self, obj, fwd_kind, n_inputs):
        """Whether a custom_vjp's bwd returns a tuple (one cotangent per
        input). A bwd returning one array or number is that cotangent when
        there is one input (JAX asks for a tuple: it would be taken apart
        instead, a wrong shape or an unpacking error); with several it is
        refused."""
        if fwd_kind.tag != "tuple" or len(fwd_kind.items) != 2:
            return True
        back = self.helper_return_kind(obj.bwd, [fwd_kind.items[1], fwd_kind.items[0]])
        if back.tag == "tuple" or not back.known:
            return True
        if n_inputs == 1:
            return False
        code = getattr(obj.bwd, "__code__", None)
        where = f"{code.co_filename}:{code.co_firstlineno}: " if code is not None else ""
        raise S2sadTypeError(f"{where}the bwd of custom_vjp {obj.__name__} returns one value, but "
                        f"{obj.__name__} takes {n_inputs} arguments: return a tuple with one "
                        f"cotangent per argument, as in JAX")

    def name_derivative_calls(self, tree, parsed, kinds):
        """`g = s2sad.grad(loss)(x, W)` calls the generated gradient of loss
        for these argument kinds, under a module-level name."""
        inference = K.KindInference(lambda *a: K.UNKNOWN)
        inference.env = kinds
        for s in walk_stmts(tree.body):
            value = getattr(s, "value", None)
            if not isinstance(value, gast.Call):
                continue
            obj = parsed.resolve(value.func)
            if getattr(obj, "__s2sad_derivative__", False):
                fn = obj.generated_function([inference.expr(a) for a in value.args])
                n = self.provide(fn)
                parsed.namespace[n] = fn
                # the primal copy of this function (if it is a helper) calls it too
                self._derivative_calls.setdefault(parsed.fn, {})[_position(value)] = n
                _call_generated(value, obj, n)

    def _name_derivative_calls_in_copy(self, tree, parsed):
        """A helper's primal copy calls the generated functions its
        specialisation chose (numba cannot call a derivative object)."""
        chosen = self._derivative_calls.get(parsed.fn, {})
        for node in walk(tree):
            if isinstance(node, gast.Call) and _position(node) in chosen:
                obj = parsed.resolve(node.func)
                if getattr(obj, "__s2sad_derivative__", False):
                    _call_generated(node, obj, chosen[_position(node)])

    def marker_resolver(self, parsed):
        def marker_of(node):
            obj = parsed.resolve(node)
            try:
                marker = self.markers.get(obj)
            except TypeError:
                return None
            if marker in ("stop_gradient", "stop_recording", "reset_recording"):
                self.surrogates.add(marker)
            return marker
        return marker_of

    # ---- kinds of calls -----------------------------------------------
    def call_kind(self, parsed):
        """kind_of(call_node, arg_kinds, kw_kinds): the kind of a call's
        result in `parsed` (call_kinds.py)."""
        return call_kind_of(self, parsed)

    def helper_return_kind(self, fn, arg_kinds):
        key = (fn, tuple(arg_kinds))
        if key in self._return_kinds:
            return self._return_kinds[key]
        if key in self._kind_stack:
            # recursion: the kind assumed for this round (first: none, so the
            # other return paths decide)
            self._recursed.add(key)
            return self._assumed.get(key, K.BOTTOM)
        # A recursive function's kind is a fixed point: `return 1` on one path
        # and `return n * f(n - 1)` on the other is a float, not an int, once
        # the call's own kind is taken into account (assuming the first
        # round's int made every result a constant: a zero gradient).
        known = set(self._return_kinds)
        assumed = K.BOTTOM
        for _ in range(8):
            self._kind_stack.add(key)
            self._assumed[key] = assumed
            try:
                spec = Specialised(fn, arg_kinds, self)
                kind = spec.kinds.get("<return>", K.UNKNOWN)
            finally:
                self._kind_stack.discard(key)
                del self._assumed[key]
            if key not in self._recursed or kind == assumed:
                break
            assumed = K.join(assumed, kind)
            for k in set(self._return_kinds) - known:  # found under a wrong assumption
                del self._return_kinds[k]
        else:
            kind = K.UNKNOWN
        self._recursed.discard(key)
        self._return_kinds[key] = kind
        return kind

    # ---- derivatives ------------------------------------------------------
    def derivative(self, fn, arg_kinds, wrt, mode, fn_name=None, single=None,
                   stop_gradients=(), split=None, has_aux=False):
        """Generate the derivative of `fn` w.r.t. argument positions `wrt`.

        mode "grad": `(args) -> (value, gradients)` seeded with ones;
        mode "vjp": `(args, seed) -> (value, gradients)`;
        mode "helper": `(args, seed) -> gradients` for every float argument;
        mode "gradient": `(args) -> gradients` (what `grad` returns, as a
        function that can itself be differentiated).
        Returns the generated function's name.
        `split` (a dict, mode "helper"): the function is not added to the
        module but left in `split` for split_recursion.py, returning its
        value too, with a marker between its forward and reverse sweeps."""
        # (a checkpointed loop's step function is not split again)
        spec = Specialised(fn, arg_kinds, self,
                           "marked" if getattr(fn, "__s2sad_step__", False) else "budget",
                           stop_gradients)
        parsed, tree = spec.parsed, spec.tree
        if mode == "helper":
            refuse_draws_run_again(tree, spec.kinds, parsed)
            if split is None:  # (the caller ran the helper's primal copy, which printed)
                drop_prints(tree.body, spec.kinds, parsed.resolve)
        args = parsed.arg_names
        wrt_names = [args[w] if isinstance(w, int) else w for w in wrt]
        check_wrt_arguments(spec, wrt_names)
        captures = {w: spec.namer.fresh("grad_" + w)
                    for w in wrt_names if w not in args and defined_once(tree, w, parsed)}
        mark_stopped(tree, set(stop_gradients))
        # has_aux: the aux is returned, never seeded (aux_output.py)
        outputs = check_pair(spec, parsed) if has_aux else spec.outputs
        if has_aux:
            self.aux_structure = spec.aux_structure
        returns_tuple = spec.returns_tuple and not has_aux
        output_names = [o.id for o in outputs if isinstance(o, gast.Name)]
        active = analyse(tree, wrt_names, output_names, spec.kinds, parsed, self.registry)
        gen_name = fn_name or self._fresh_module_name(
            {"grad": "grad_", "gradient": "grad_", "vjp": "vjp_", "helper": "vjp_"}[mode]
            + parsed.name)
        rev = ReverseMode(parsed, tree, spec.kinds, active, spec.namer, self, spec.temporaries)
        rev.helper = mode == "helper"
        # (a helper's vjp: the caller's forward sweep ran the helper itself,
        # raising its errors there; the value computed again here may go)
        rev.primal_ran_before = rev.helper and split is None
        rev.parallel = self.parallel and not rev.helper
        rev.captures = captures
        seed_param = None
        if mode in ("grad", "gradient"):
            seeds = [self._ones(o, spec.kinds) for o in outputs]
        else:
            seed_param = spec.namer.fresh("seed" if returns_tuple else
                                          "d" + (output_names[0] if output_names else "out"))
            if returns_tuple:
                seeds = [subscript(seed_param, const(k)) for k in range(len(outputs))]
            else:
                seeds = [name(seed_param)]
                if output_names:
                    rev.adjoints[output_names[0]] = seed_param
                    rev.generated.add(seed_param)
        fwd, rev_stmts = rev.build(outputs, seeds)
        if mode in ("grad", "gradient"):  # (after the sweep's own refusals, which say more)
            check_float_output(spec, parsed, outputs)
        if seed_param in rev.subscript_updated:  # never write into the caller's seed
            rev_stmts.insert(0, assign(seed_param, call(gast.Attribute(
                value=name(seed_param), attr="copy", ctx=gast.Load()))))
        grads = []
        for w in wrt_names:
            if w in captures:
                grads.append(name(captures[w]) if w in active else self._zero(w, spec.kinds))
            else:
                grads.append(name(rev.adjoints[w]) if w in rev.adjoints and w in active
                             else self._zero(w, spec.kinds))
        copies = copy_written_args(tree, args)
        # the arguments the derivative copies because it writes into them
        # (s2sad.guards.check_written_aliases: not one array passed twice)
        self.written_arguments[gen_name] = tuple(
            args.index(c.targets[0].id) for c in copies if c.targets[0].id in args)
        body = copies + fwd
        value = tree.body[-1].value
        # (the fused sweeps of fusion.py compute values within the reverse sweep)
        restoring = _not_deferred(rev_stmts)
        written = with_aliases(written_in_place(restoring), fwd)
        if names_loaded(value) & (names_stored(restoring) | written):
            # the reverse sweep restores earlier values of these names, and
            # of elements of these arrays: keep the value (a copy of such arrays)
            kept = spec.namer.fresh("value")
            body.append(assign(kept, copying(value, written, spec.kinds)))
            value = name(kept)
        if split is not None:
            body.append(sweep_marker())
        body += rev_stmts
        single = len(grads) == 1 if single is None else single
        grad_value = grads[0] if single else gast.Tuple(elts=grads, ctx=gast.Load())
        if mode == "gradient" and has_aux:
            result = gradients_and_aux(grad_value, value)
        elif mode in ("helper", "gradient") and split is None:
            result = grad_value
        else:
            result = gast.Tuple(elts=[value, grad_value], ctx=gast.Load())
        body.append(gast.Return(value=result))
        complete_early_returns(body, result)
        params = args + ([seed_param] if seed_param else [])
        fdef = gast.FunctionDef(name=gen_name, args=gast.arguments(
            args=[name(p, gast.Param()) for p in params], posonlyargs=[], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None)
        optimise_reverse(fdef, rev, spec, args, self)
        if not parsed.location.is_generated:  # (numba has no list of mixed kinds; code
            # s2sad generated keeps the form its own front end reads again: grad of grad)
            tuple_adjoints.run(fdef, spec.kinds, spec.namer)
        # the default budget's check lines (checkpoint_loops.py), once the rest is final
        place_memory_checks(fdef.body, args, spec.parsed.memory_checks, spec.kinds, parsed.location,
                            rev.tapes.names, rev.shape_classes)
        refine_choices(fdef.body, args, getattr(spec.parsed, "budget_choices", ()), spec.kinds,
                       parsed.location, rev.tapes.names, rev.shape_classes)
        self._collect_globals(fdef, parsed)
        doc = self._docstring(parsed, wrt_names, mode)
        self._late_forms(fdef, parsed, [spec.kinds])
        if split is not None:
            split.update(fdef=fdef, kinds=spec.kinds, source_line=parsed.source_line, doc=doc,
                         seed=seed_param)
            return gen_name
        if mode == "helper":
            self._finished_vjps[gen_name] = (fdef, rev.adjoints, spec.kinds, parsed, wrt_names)
        self._add_function(gen_name, function_source(fdef, parsed.source_line, doc), fdef)
        return gen_name

    def jvp(self, fn, arg_kinds, wrt, fn_name=None, single=None, has_aux=False):
        """Generate `jvp_<f>(args, tangents) -> (value, tangent)`: forward mode
        w.r.t. the arguments `wrt` (positions or names). `has_aux`: `fn`
        returns `(output, aux)`, the value is the pair, the tangent the
        output's."""
        from .forward.forward_mode import ForwardMode
        spec = Specialised(fn, arg_kinds, self)
        parsed, tree = spec.parsed, spec.tree
        args = parsed.arg_names
        wrt_names = [args[w] if isinstance(w, int) else w for w in wrt]
        outputs = check_pair(spec, parsed) if has_aux else spec.outputs
        if has_aux:
            self.aux_structure = spec.aux_structure
        output_names = [o.id for o in outputs if isinstance(o, gast.Name)]
        active = analyse(tree, wrt_names, output_names, spec.kinds, parsed, self.registry)
        fm = ForwardMode(parsed, tree, spec.kinds, active, spec.namer, self)
        tangent_params = [fm.d(w) for w in wrt_names]
        copies = copy_written_args(tree, args)
        written = {c.targets[0].id for c in copies}
        copies += [assign(fm.d(w), call(gast.Attribute(value=name(fm.d(w)), attr="copy",
                                                       ctx=gast.Load())))
                   for w in wrt_names if w in written]  # nor the caller's tangents
        # an argument not differentiated but later given an active value
        # (`a = a ** b` w.r.t. b) starts with a zero tangent
        copies += [assign(fm.d(a), fm.zero_like(name(a)))
                   for a in args if a in active and a not in wrt_names]
        body = copies + fm.block(tree.body[:-1])
        value = tree.body[-1].value
        outs = [fm.tangent_atom(o) or fm.zero_like(o) for o in outputs]
        tangent = gast.Tuple(elts=outs, ctx=gast.Load()) if spec.returns_tuple and not has_aux \
            else outs[0]
        body.append(gast.Return(value=gast.Tuple(elts=[value, tangent], ctx=gast.Load())))
        gen_name = fn_name or self._fresh_module_name("jvp_" + parsed.name)
        fdef = gast.FunctionDef(name=gen_name, args=gast.arguments(
            args=[name(p, gast.Param()) for p in args + tangent_params], posonlyargs=[],
            vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None)
        if "dead_stores" in self.optimisations:
            cleanup.DeadStores(lambda v: v not in args).run(fdef.body, names_loaded(fdef.body[-1]))
        if "inline_temporaries" in self.optimisations:
            cleanup.refuse(fdef.body, spec.temporaries)
        kinds = {**spec.kinds, **{d: spec.kinds[v] for v, d in fm.tangents.items()
                                  if v in spec.kinds}}
        check_indices(fdef, kinds, fm.tangents, parsed.location, self)
        self._collect_globals(fdef, parsed)
        doc = (f"Value of {parsed.name} and its directional derivative (forward mode) "
               f"along tangents of {', '.join(wrt_names)} ({parsed.location.describe()}).")
        self._late_forms(fdef, parsed, [kinds])
        self._add_function(gen_name, function_source(fdef, parsed.source_line, doc), fdef)
        return gen_name

    def helper_jvp(self, helper, arg_kinds, active):
        """The helper's jvp for these argument kinds, with tangents only for the
        arguments `active` at the call (a constant's tangent is not a zero to
        multiply: 0 * log(b) is nan at a negative base)."""
        fn = helper.function_for(arg_kinds)
        mask = tuple(k.differentiable and a for k, a in zip(arg_kinds, active))
        key = ("jvp", fn, tuple(arg_kinds), mask)
        if key not in self.helper_vjps:
            gen = self._fresh_module_name("jvp_" + helper.name)
            self.helper_vjps[key] = (gen, mask)
            self.jvp(fn, list(arg_kinds), [i for i, m in enumerate(mask) if m], gen)
        return self.helper_vjps[key]

    def helper_vjp(self, helper, arg_kinds, stmt, caller):
        fn = helper.function_for(arg_kinds)
        key = (fn, tuple(arg_kinds))
        if key not in self.helper_vjps:
            mask = [k.differentiable for k in arg_kinds]
            if not any(mask):
                self.helper_vjps[key] = (None, mask)
                return self.helper_vjps[key]
            gen = self._fresh_module_name("vjp_" + helper.name)
            self.helper_vjps[key] = (gen, mask)  # before recursing: recursive helpers
            self.derivative(fn, list(arg_kinds), [i for i, m in enumerate(mask) if m],
                            "helper", fn_name=gen)
            # (split mode: a recursion in O(primal), not O(depth x primal))
            split = self.split_recursion and split_recursion(self, fn, list(arg_kinds), gen, mask)
            finished = self._finished_vjps.pop(gen, None)
            if finished and not split and "adjoints_into" in self.optimisations:
                self._add_into_variant(gen, *finished)
        return self.helper_vjps[key]

    def _add_into_variant(self, vjp, fdef, adjoints, kinds, parsed, wrt_names):
        """The variant of the helper vjp `vjp` that adds into its caller's
        adjoint (optimise/adjoints_into.py), when its body allows; the vjp's
        own recursive calls then call it too."""
        into = self._fresh_module_name(vjp + "_into")
        made = into_variant(fdef, vjp, into, adjoints.get, kinds)
        if made is None:
            return
        variant, position = made
        self.into_variants[vjp] = (into, position)
        doc = self._docstring(parsed, wrt_names, "helper")
        if calls_into(fdef.body, {vjp: (into, position)}, adjoints.get, kinds, False):
            at = next(k for k, (n, _) in enumerate(self.functions) if n == vjp)
            self.functions[at] = (vjp, function_source(fdef, parsed.source_line, doc))
        doc = doc[:-1] + f", added into {variant.args.args[-1].id} (what {vjp} returns)."
        self._add_function(into, function_source(variant, parsed.source_line, doc), variant)
        if vjp in self.checks_own_indices:
            self.checks_own_indices.add(into)

    # ---- pieces ---------------------------------------------------------
    def _fresh_module_name(self, base):
        n = Namer(self.module_names | self.local_names).fresh(base)
        self.module_names.add(n)
        return n

    @staticmethod
    def _ones(out, kinds):
        if isinstance(out, gast.Name):
            k = kinds.get(out.id, K.UNKNOWN)
            if k.is_array:
                return call("np.ones_like", name(out.id))
            if not k.known:
                return call("ones_like", name(out.id))
            return const(1.0)
        return None

    @staticmethod
    def _zero(var, kinds):
        k = kinds.get(var, K.UNKNOWN)
        if k.is_array:
            return call("np.zeros_like", name(var))
        if k.tag == "tuple":  # (a tuple parameter: the caller reads its items' gradients)
            return gast.Tuple(elts=[call("zeros_like", subscript(var, const(i)))
                                    for i in range(len(k.items))], ctx=gast.Load())
        return const(0.0) if k.known else call("zeros_like", name(var))

    @staticmethod
    def _docstring(parsed, wrt_names, mode):
        where = parsed.location.describe()
        wrt = ", ".join(wrt_names)
        if mode == "grad":
            return f"Value of {parsed.name} and its gradient w.r.t. {wrt} ({where})."
        if mode == "gradient":
            return f"Gradient of {parsed.name} w.r.t. {wrt} ({where})."
        if mode == "vjp":
            return f"Value of {parsed.name} and the vector-Jacobian product w.r.t. {wrt} ({where})."
        return f"Vector-Jacobian product of {parsed.name} w.r.t. {wrt} ({where})."


def _position(node):
    return (getattr(node, "lineno", None), getattr(node, "col_offset", None))


def _call_generated(call_node, derivative, fname):
    """Make `call_node`, a call of an s2sad derivative, call the generated
    function `fname`; a jvp's tuple of tangents becomes trailing arguments."""
    call_node.func = name(fname)
    if derivative.mode == "jvp" and not derivative.single:
        tangents = call_node.args[-1]
        if isinstance(tangents, gast.Tuple):
            items = list(tangents.elts)
        else:
            items = [gast.Subscript(value=clone(tangents), slice=const(k),
                                    ctx=gast.Load()) for k in range(len(derivative.wrt))]
        call_node.args[-1:] = items


def _not_deferred(stmts):
    """The statements of a reverse sweep that may restore earlier values:
    not those computing values after it began (fused sweeps, in the
    branches of `if`s too)."""
    out = []
    for s in stmts:
        if getattr(s, "s2sad_deferred", False):
            continue
        if isinstance(s, gast.If):
            out += _not_deferred(s.body) + _not_deferred(s.orelse)
        else:
            out.append(s)
    return out
