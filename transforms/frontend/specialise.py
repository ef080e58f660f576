"""The front end for one function: parsed, its calls bound, desugared,
normalised and typed for the argument kinds a derivative is generated for
(the steps before the reverse and forward passes; see program.py)."""
import gast
import numpy as np

from ..analysis import kinds as K
from ..analysis.aliases import check_aliased_writes
from .calls.bind import CallBinder, readable_function
from ..checks.bounds_syntax import mark_accesses
from .statements.chained_writes import check_chained_writes
from .calls.builtin_reductions import reduce_arrays
from .containers.aux_output import check_pair_kinds, flatten_aux_returns
from ..reverse.checkpoint_loops import lift_loops, unliftable
from .calls.array_attributes import missing_array_attributes, respell_array_attributes
from .statements.array_loops import mark_array_loops
from .containers.comprehensions import lower_containers
from .statements.desugar import desugar
from .effects.effects import check_effects, respell_writes, whole_slices
from ..analysis.helper_results import call_shares
from .containers.flatten_args import parse_function  # container arguments flattened to their leaves
from ..names import Namer
from .statements.none_tests import fold_none_tests
from .statements.normalize import normalize
from .containers.sequence_args import check_sequence_arguments
from .statements.value_bools import write_value_bools
from .statements.number_starts import fold_number_starts, refuse_reductions_of_changing_kinds
from ..optimise.parallel import check_independent
from ..syntax import clone, names_stored, walk
from .containers.tuples import split_tuple_variables
from .effects.mutated_args import refuse_mutating_calls
from .effects.written_args import arrays_written, rewrite_writing_calls, without_own_copies


class Specialised:
    """A user function parsed, desugared, normalised and typed for given
    argument kinds."""

    def __init__(self, fn, arg_kinds, program, loops=None, stopped=(), skip=(),
                 arrays=frozenset()):
        self.parsed = parse_function(fn, getattr(program, "flat_arguments", {}).get(fn))
        # checkpointed loops (checkpoint_loops.py): "marked" lifts the loops
        # marked s2sad.checkpointed, "budget" also the others under a budget
        # (without a budget, the default's: a check_memory line before such loops)
        budget = program.memory_budget if loops == "budget" else None
        guard = program.memory_guard if loops == "budget" else None
        lift_loops(self.parsed, budget, lift=loops is not None, stopped=stopped, skip=skip,
                   guard=guard)
        binder = CallBinder(self.parsed, program.registry, program.runtime_objects)
        tree = without_own_copies(clone(self.parsed.tree), fn)
        self.aux_structure, aux_pairs = None, ()  # has_aux: the returned aux (aux_output.py)
        if fn in getattr(program, "aux_functions", ()):
            self.aux_structure, aux_pairs = flatten_aux_returns(tree, self.parsed.location,
                                                                self._resolve)
        tree = binder.bind_tree(respell_writes(tree, self.parsed))
        rewrite_writing_calls(tree, self.parsed, readable_function, arrays)
        tree = check_sequence_arguments(tree, arg_kinds, self._resolve, self.parsed.location)
        refuse_mutating_calls(tree, self.parsed, readable_function)  # add(out, v): out.append
        tree = fold_none_tests(tree, arg_kinds, self.parsed.resolve)
        tree = write_value_bools(tree, self.parsed.location, self._resolve)
        self.namer = Namer.for_function(tree, extra=program.module_names)
        before = set(self.namer.taken)
        marker_of = program.marker_resolver(self.parsed)
        tree = lower_containers(tree, self.parsed.location, self.namer, self.parsed.resolve,
                                program.runtime_objects, self.parsed.namespace)
        tree = respell_array_attributes(tree)  # x.flat, x.mT
        tree = mark_array_loops(tree, self.parsed.resolve)  # for t in np.linspace(...)
        tree = desugar(tree, self.parsed.location, self.namer, marker_of)
        mark_accesses(tree)
        local = names_stored(tree.body) | set(self.parsed.arg_names)
        tree = normalize(tree, self.namer, self.parsed.location, local.__contains__, marker_of,
                         binder)
        self.temporaries = self.namer.taken - before
        self.tree = tree
        self.parsed._locals = names_stored(tree.body) | set(self.parsed.arg_names)
        self.kinds = K.KindInference(program.call_kind(self.parsed),
                                       self.parsed.namespace).run(tree, arg_kinds)
        if fold_number_starts(tree, self.kinds):  # res = 0; res = res + a: res = 0 + a
            self.kinds = K.KindInference(program.call_kind(self.parsed),
                                         self.parsed.namespace).run(tree, arg_kinds)
        check_pair_kinds(aux_pairs, self.kinds, self.parsed.location)
        # one walk of the tree for the checks below, again after a pass changes it
        nodes = walk(tree)
        missing_array_attributes(tree, self.kinds, self.parsed.location, nodes)  # x.ptp()
        check_chained_writes(tree, self.kinds, self.parsed.location,
                             program.call_kind(self.parsed), nodes)
        refuse_reductions_of_changing_kinds(tree, self.kinds, self._resolve,
                                            self.parsed.location, nodes)
        if reduce_arrays(tree, self.kinds, self._resolve, nodes):  # sum(x): np.sum(x, axis=0)
            nodes = walk(tree)
            self.kinds = K.KindInference(program.call_kind(self.parsed),
                                           self.parsed.namespace).run(tree, arg_kinds)
        if split_tuple_variables(tree, self.kinds, self.namer):  # r = h(x): r_0, r_1 = h(x)
            nodes = walk(tree)
            self.parsed._locals = names_stored(tree.body) | set(self.parsed.arg_names)
            self.kinds = K.KindInference(program.call_kind(self.parsed),
                                       self.parsed.namespace).run(tree, arg_kinds)
        if budget is not None:  # loops whose variables a step cannot carry: recorded
            more = unliftable(tree, self.parsed, self.kinds, program)
            if more:
                self.__init__(fn, arg_kinds, program, loops, stopped, set(skip) | more, arrays)
                return
        more = arrays_written(tree, self.kinds, program.call_kind(self.parsed),
                              self.parsed.location, nodes) - arrays
        if more:  # h(u) with h doing `p += e` on an array: a write into u
            self.__init__(fn, arg_kinds, program, loops, stopped, skip, arrays | more)
            return
        check_aliased_writes(tree, self.kinds, self.parsed.location,
                             call_shares(self.parsed, readable_function))
        check_effects(tree, self.kinds, self.parsed, readable_function,
                      lambda obj: _has_rule(program.registry, obj), nodes)
        whole_slices(tree, self.kinds, nodes)  # (changes only the slices it visits)
        if any(getattr(n, "s2sad_parallel", False) for n in nodes):
            check_independent(tree, self.kinds, self.parsed.location)
        program.name_derivative_calls(tree, self.parsed, self.kinds)
        ret = tree.body[-1]
        self.outputs = list(ret.value.elts) if isinstance(ret.value, gast.Tuple) else [ret.value]
        self.returns_tuple = isinstance(ret.value, gast.Tuple)

    def _resolve(self, node):
        try:
            return self.parsed.resolve(node)
        except Exception:  # noqa: BLE001 - a local or unknown name
            return None


def _has_rule(registry, obj):
    """A numpy, scipy or math function with a rule (a gradient or none): its
    value is all it gives (the writing ones, np.copyto and ufuncs' out=, are
    respelled or refused before this is asked). A rule a user registered
    for their own function says nothing of what else it does."""
    module = getattr(obj, "__module__", None) or ""
    library = isinstance(obj, np.ufunc) or module.split(".")[0] in ("numpy", "scipy", "math")
    return library and registry.lookup(obj) is not None
