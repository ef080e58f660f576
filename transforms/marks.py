"""The marks the passes put on tree nodes (attributes named `s2sad_*`),
declared once with their meaning: a pass sets one so that a later pass, of
the same stage or another, knows something the tree alone does not say.
`syntax.clone` copies every mark. tests/test_marks.py fails on a mark used
in the code and not declared here.

name -> (the node it is on, what it says; where it is set -> where it is read)."""

MARKS = {
    # ---- front end ---------------------------------------------------------------
    "s2sad_access": "an index (a subscript's slice): its access id, which its copies keep, "
                    "so the index checks tell accesses apart (checks/bounds_syntax.py)",
    "s2sad_own": "a subscript or call: the user's own evaluation, not a copy a pass made "
                 "(checks/bounds_syntax.py -> bounds.py)",
    "s2sad_array": "a loop's iterable call that returns an array: `for v in np.linspace(...)` "
                   "loops over its elements (array_loops.py, array_attributes.py -> desugar.py)",
    "s2sad_bound": "a call already bound by position to its callee (binder.py, "
                   "written_args.py -> binder.py: not bound again)",
    "s2sad_augmented": "a call of a helper doing `p += e`: (helper, call key, positions), a "
                       "write only for an array argument (written_args.py -> "
                       "arrays_written.py, normalize.py)",
    "s2sad_result_shares": "`r = h_writing(u)`: the written arguments r may share memory "
                           "with (written_args.py -> normalize.py, aliases.py)",
    "s2sad_holds": "`xs[k] = elt` filling an array s2sad made of a list (comprehensions.py): "
                   "the names whose memory the list held in Python (-> normalize.py, "
                   "aliases.py)",
    "s2sad_elements": "`np.array((xs_0, xs_1))[k]`, a run-time index into a list made one "
                      "variable per element: (the list's name, its elements' names) "
                      "(literals.py, on the read -> the assignment of it)",
    "s2sad_element_of": "`v = xs[k]` of such a list: v is one of the elements in Python "
                        "(literals.py -> normalize.py, view_writes.py, aliases.py)",
    "s2sad_returned_by": "`r = u` after `r = h(u)` with h returning its argument: the "
                         "helper's name (written_args.py -> normalize.py, aliases.py)",
    "s2sad_chain": "a flattened chained write `A[i, j] = v` (was `A[i][j]`): the leading "
                   "indices that must be integers (chains.py -> chained_writes.py)",
    "s2sad_copy_of_slice": "`rest = xs[1:]` of a star target: a copy, not a view "
                           "(star_forms.py -> comprehensions.py)",
    "s2sad_star_parameter": "`f(*t)` of a parameter, whose length is known once the "
                            "function is specialised: where the star is, for the message "
                            "(star_forms.py -> fence.py, flatten.py, zip_forms.py)",
    "s2sad_list": "a tuple display that was a list: its kind says so (normalize.py -> "
                  "analysis/kinds.py)",
    "s2sad_constant": "an assignment no gradient flows through (stop_gradient, "
                      "stop_gradients, stop_recording: desugar.py, reverse/markers.py -> "
                      "normalize.py, activity analysis)",
    "s2sad_reset": "the return reset_recording() becomes (desugar.py -> normalize.py, "
                   "reverse/markers.py)",
    "s2sad_inplace": "`x = x + e` that was `x += e`: on an array a write in place "
                     "(desugar.py -> normalize.py, aliases.py, reverse/tapes.py)",
    "s2sad_return": "the assignment of a return value: nothing after it runs (desugar.py -> "
                    "normalize.py, aliases.py)",
    "s2sad_parallel": "a loop the user marked parallel (s2sad.parallel, prange): its "
                      "independence is proven or refused (desugar.py -> steps.py, "
                      "optimise/parallel.py, fusion.py)",
    # ---- reverse sweep -------------------------------------------------------------
    "s2sad_line": "a generated statement: the line of the user's function it comes from "
                  "(reverse/ -> emit/unparse.py, which writes the line as a comment)",
    "s2sad_comment": "a generated statement: a comment written above it (reverse/, "
                     "optimise/ -> emit/unparse.py)",
    "s2sad_zero": "a `dv = 0` initialisation of an adjoint (reverse_mode.py -> "
                  "value_reads.py, cleanup.py)",
    "s2sad_cotangent": "an adjoint update: the cotangent it adds (contributions.py -> "
                       "cleanup.py: dropped when that is zero)",
    "s2sad_view": "an adjoint update through a view (reverse_mode.py -> cleanup.py)",
    "s2sad_user": "a forward statement that is the user's own, kept by dead-store "
                  "elimination (reverse_mode.py -> cleanup.py)",
    "s2sad_temp": "an assignment target the front end made (read by reverse_mode.py; set "
                  "nowhere today: every target counts as the user's unless a temporary)",
    "s2sad_nosave": "a statement whose value the reverse sweep never reads: not recorded "
                    "(reverse_mode.py -> reverse_mode.py, recompute.py)",
    "s2sad_counter": "a while loop: the name of its iteration count (reverse_mode.py)",
    "s2sad_ascending": "a reversed loop: its forward iterable, if its iterations prove "
                       "independent (reverse_mode.py -> optimise/ordering.py)",
    "s2sad_allocation": "a tape's allocation, hoisted out of loops (reverse/tapes.py -> "
                        "fusion.py, tape_order.py)",
    "s2sad_in_bounds": "a tape slot indexed within its length (counted_tapes.py -> "
                       "checks/bounds.py)",
    "s2sad_deferred": "a statement computing values after the reverse sweep began "
                      "(fusion.py -> program.py)",
    "s2sad_fused": "a loop whose iterations' adjoints run in their own body (fusion.py -> "
                   "parallel.py)",
    # ---- optimisations and checks ----------------------------------------------------
    "s2sad_private": "a parallel loop: the values no iteration passes on (parallel.py)",
    "s2sad_serial_reason": "a loop left serial: why (parallel.py)",
    "s2sad_candidate": "a loop parallelise may make parallel: its position, so a copy with "
                       "index checks finds it (parallel.py, removed once read)",
    "s2sad_runs": "a parallel loop parallelise made: the test that it runs (parallel.py -> "
                  "parallel.py's hoist_index_checks, after the index checks)",
    "s2sad_users_prange": "a parallel loop parallelise made: whether the user wrote it "
                          "prange (parallel.py -> hoist_index_checks: what it says if serial)",
    "s2sad_preamble": "a chunked parallel loop: how many statements (the chunks' copies) "
                      "were made before it (parallel.py -> hoist_index_checks)",
    "s2sad_promotion": "an adjoint element held in a scalar for a loop (promote.py -> "
                       "checks/bounds.py)",
    "s2sad_undone": "a promotion undone, its index not proven in range (promote.py -> "
                    "checks/bounds.py)",
    "s2sad_same_shapes": "a swap of two arrays of one shape (copy_fold.py -> "
                         "checks/bounds_syntax.py, array_shapes.py)",
    "s2sad_zeros_after": "a swap: the array left zero after it (copy_fold.py -> "
                         "zero_writes.py)",
    "s2sad_peeled": "a loop's head or tail peeled off, left a scatter (gather_nests.py -> "
                    "gather.py)",
    "s2sad_remainder": "the remainder loop of a gathered nest (gather.py)",
}
