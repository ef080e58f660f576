"""The adjoint contributions of one assignment: which operands receive
which cotangent expression, from the gradient templates, user rules and
helpers' vjps, and the statements that accumulate them.

`Contributions` is a part of ReverseMode (transforms/reverse.py), which
provides `fn`, `registry`, `namer`, `context`, `kinds`, `active`,
`generated`, `subscript_updated` and `d(var)` (the name of var's adjoint)."""
import gast

from ..analysis import kinds as K
from ..analysis.distinct_indices import DistinctIndices
from ..analysis.stack_uses import read_of
from .tapes import names_written_in_place
from ..errors import UnsupportedSyntaxError, in_definition, missing_gradient
from ..emit.unparse import stmt_source
from ..ops import (ARRAY_METADATA, BINOPS, UNARYOPS, call_operands, callee_text,
                   check_rule_application, method_object, operator_text, refuse_active_index,
                   refuse_python_block, resolve_call)
from ..syntax import assign, base_name, call, clone, const, name, store, structure, subscript, walk
from ..templates import inline, template_of
from ..errors import NoGradientError


class Contributions:
    def adjoint_reads_result(self, value):
        """Whether the adjoint of `z = value` reads z (tanh's does)."""
        if isinstance(value, gast.BinOp):
            rule = self.registry.lookup(BINOPS.get(type(value.op)))
            args = [value.left, value.right]
        elif isinstance(value, gast.UnaryOp):
            rule = self.registry.lookup(UNARYOPS.get(type(value.op)))
            args = [value.operand]
        elif isinstance(value, gast.Call):
            try:
                prim = resolve_call(value, self.fn, self.registry)
            except (LookupError, NameError):
                return True
            rule, args = prim.rule, list(value.args)
            keywords = {k.arg: k.value for k in value.keywords}
            if prim.helper is not None or getattr(prim.obj, "__s2sad_custom__", None):
                return False  # their adjoints take the arguments (or residuals)
        else:
            return False  # a copy
        if rule is None or rule.nondiff:
            return False
        if rule.function is not None or rule.template is None:
            return True  # a registered gradient receives the result
        kinds = [self.atom_kind(a) for a in args]
        kw_kinds = {k: self.atom_kind(v) for k, v in keywords.items()} \
            if isinstance(value, gast.Call) else {}
        return template_of(rule.template_for(kinds, kw_kinds)).reads_ans

    # ---- contributions -----------------------------------------------------
    @property
    def distinct_indices(self):
        """Which index arrays are proved to name each position once
        (analysis/distinct_indices.py); the others add with repeats."""
        if "_distinct" not in self.__dict__:
            self._distinct = DistinctIndices(self.tree, self.kinds, self.fn.resolve,
                                             names_written_in_place(self.tree))
        return self._distinct

    def operand_names(self, value):
        return {n.id for n in walk(value) if isinstance(n, gast.Name)}

    def atom_kind(self, atom):
        # (with the calls' kinds: y[np.array([0, 2])] keeps the indexed axis)
        return K.of_atom(atom, self.kinds, self.context.call_kind(self.fn))

    def is_active_atom(self, atom):
        return isinstance(atom, (gast.Name, gast.Subscript)) and base_name(atom) in self.active

    def contributions(self, s, z, value, g=None):
        """(prelude statements, [(operand atom, cotangent expression)]) for
        `z = value`."""
        g = g if g is not None else name(self.d(z))
        ans = name(z) if z else None
        checked = self._checked(value)
        if not checked:
            self.refuse_active_list(s, value)
        if isinstance(value, gast.Subscript):
            if not checked:
                refuse_active_index(value, self.is_active_atom, self.fn.location, s)
                self._passed(value)
            return [], [(value, g)]
        if isinstance(value, gast.Name):
            return [], [(value, g)]
        if isinstance(value, gast.Attribute):
            if value.attr == "T":
                return [], [(value.value, gast.Attribute(value=g, attr="T", ctx=gast.Load()))]
            if value.attr == "real":
                return [], [(value.value, g)]
            if value.attr == "imag" or value.attr in ARRAY_METADATA:
                return [], []  # (the imaginary part of a real value is a constant zero)
            raise UnsupportedSyntaxError(
                f"the attribute `.{value.attr}` of a value that needs a gradient", self.fn.location,
                s, "Use a numpy function instead (np.ravel(x), np.swapaxes(x, -1, -2), ...)")
        if isinstance(value, gast.BinOp):
            rule = self.registry.lookup(BINOPS[type(value.op)])
            if not checked and rule is not None and any(
                    self.is_active_atom(a) for a in (value.left, value.right)):
                check_rule_application(rule, operator_text(value.op), [value.left, value.right], {},
                                       self.atom_kind, self.is_active_atom, self.fn.location, s)
            self._passed(value)
            return self.apply_rule(rule, g, ans, [value.left, value.right], {}, z)
        if isinstance(value, gast.UnaryOp):
            rule = self.registry.lookup(UNARYOPS[type(value.op)])
            return self.apply_rule(rule, g, ans, [value.operand], {}, z)
        if isinstance(value, gast.Call):
            return self.call_contributions(s, g, ans, value, z)
        if isinstance(value, gast.List) and not value.elts:
            return [], []  # a new (tape) list: it holds nothing yet
        if isinstance(value, (gast.Tuple, gast.List)):
            raise UnsupportedSyntaxError("a tuple or list of values that need a gradient",
                                         self.fn.location, s,
                                         "Keep the values in separate variables or an array")
        if not isinstance(value, _CONSTANT_FORMS) and any(
                isinstance(n, gast.Name) and n.id in self.active for n in walk(value)):
            # (the front end lowers every other form that computes a number;
            # taking one it missed as a constant would be a wrong gradient)
            raise UnsupportedSyntaxError(
                f"the expression `{stmt_source(value).strip()}` (a {type(value).__name__}) of "
                f"values that need a gradient", self.fn.location, s,
                "Assign its parts to variables first (s2sad differentiates one operation per "
                "statement, and did not take this form apart)")
        return [], []

    # The reverse sweep is built more than once (reverse.py: until what it
    # reads is stable) from the same statements, activity and kinds: a value
    # the refusals below have passed is not checked again.
    def _checked(self, value):
        return id(value) in self.__dict__.get("_checks_passed", ())

    def _passed(self, value):
        # (held with its node: the id stays its own)
        self.__dict__.setdefault("_checks_passed", {})[id(value)] = value

    def refuse_active_list(self, s, value):
        refuse_active_list(s, value, self.active, self.kinds, self.fn.location)

    def call_contributions(self, s, g, ans, value, z):
        prim = resolve_call(value, self.fn, self.registry)
        if getattr(prim.obj, "__s2sad_derivative__", False) and any(
                self.is_active_atom(a) for a in _flat_atoms(value.args)):
            raise UnsupportedSyntaxError(
                "a call to an s2sad derivative inside a function being differentiated",
                self.fn.location, s, "Nested reverse mode is not supported yet; compute the "
                "second-order quantity with s2sad.hessian or s2sad.hvp")
        if prim.helper is not None:
            return self.helper_contributions(s, g, value, prim.helper)
        if getattr(prim.obj, "__s2sad_python__", None):
            refuse_python_block(prim.obj, value, self.is_active_atom, self.fn.location, s)
            return [], []
        keywords = {k.arg: k.value for k in value.keywords}
        if not any(self.is_active_atom(a) or self._active_inside(a)
                   for a in _flat_atoms(call_operands(value, self.fn))):
            return [], []
        if prim.rule is None:
            local = " (a local variable)" if method_object(value, self.fn) is not None else ""
            raise missing_gradient(callee_text(value) + local, self.fn.location, s, prim.obj)
        if not self._checked(value):
            check_rule_application(prim.rule, callee_text(value), list(value.args), keywords,
                                   self.atom_kind, self.is_active_atom, self.fn.location, s)
            self._passed(value)
        return self.apply_rule(prim.rule, g, ans, list(value.args), keywords, z)

    def apply_rule(self, rule, g, ans, args, keywords, z):
        if getattr(rule, "user", False):  # (the self-checks do not take it as a derivative)
            self.context.surrogates.add(f"the gradient registered for {rule.name}")
        if rule is None or rule.nondiff:
            return [], []
        if rule.function is not None:
            return self.call_user_rule(rule, g, ans, args)
        if rule.template is None:
            raise NoGradientError(f"No gradient defined for operation '{rule.name}' (in "
                              f"{self.fn.location.describe()}): it has a forward-mode rule only")
        arg_kinds = [self.atom_kind(a) for a in args]
        kw_kinds = {k: self.atom_kind(v) for k, v in keywords.items()}
        prelude, results = inline(template_of(rule.template_for(arg_kinds, kw_kinds)), g, ans,
                                  args, keywords, self.namer)
        for st in prelude:
            self.generated.update(n.id for n in walk(st)
                                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store))
        pairs = []
        result_kind = self.kind(z) if z else K.UNKNOWN
        for pos, (arg, expr) in enumerate(zip(args, results)):
            if expr is None:
                continue
            if isinstance(arg, (gast.Tuple, gast.List)):
                more, seq_pairs = self.sequence_contributions(arg, expr)
                prelude += more
                pairs += seq_pairs
            elif self.is_active_atom(arg):
                if rule.elementwise:
                    others = [(a, k) for j, (a, k) in enumerate(zip(args, arg_kinds))
                              if j != pos]
                    expr = self.unbroadcast(expr, arg, arg_kinds[pos], result_kind, others)
                pairs.append((arg, expr))
            elif self._active_inside(arg):
                # (the front end gives every call atoms: an expression here
                # would have its gradient dropped, a wrong gradient with no error)
                raise UnsupportedSyntaxError(
                    f"the argument `{stmt_source(arg).strip()}` of {rule.name}, an expression of "
                    f"values that need a gradient", self.fn.location, arg,
                    "Assign it to a variable first (s2sad differentiates one operation per "
                    "statement, and did not take this form apart); please report it")
        return (prelude if pairs else []), pairs

    def _active_inside(self, node):
        """A value that needs a gradient in `node`, not only its metadata
        (x.shape, len(x))."""
        if isinstance(node, gast.Attribute) and node.attr in ARRAY_METADATA:
            return False
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id == "len":
            return False
        if isinstance(node, gast.Name):
            return node.id in self.active
        return any(self._active_inside(c) for c in gast.iter_child_nodes(node))

    def call_user_rule(self, rule, g, ans, args):
        """A rule from register_gradient: called, not inlined."""
        fname = self.context.provide(rule.function)
        results = [self.namer.fresh("d" + (base_name(a) or "arg") + "_" + rule.name)
                   for a in args]
        self.generated.update(results)
        target = store(results[0]) if len(results) == 1 else gast.Tuple(
            elts=[store(r) for r in results], ctx=gast.Store())
        bind = assign(target, call(name(fname), clone(g), clone(ans), *[clone(a) for a in args]))
        return [bind], [(a, name(r)) for a, r in zip(args, results)]

    def sequence_contributions(self, seq, expr):
        """Cotangents of the elements of a list argument (np.stack([a, b])),
        nested lists included (np.array([[x, 2 * x], [y, x]]): element j of
        the cotangent goes to row j, and so on down)."""
        if isinstance(expr, (gast.Tuple, gast.List)) and len(expr.elts) == len(seq.elts):
            prelude, pairs = [], list(zip(seq.elts, expr.elts))
        else:
            tmp = self.namer.fresh("parts")
            self.generated.add(tmp)
            parts = [subscript(tmp, const(j)) for j in range(len(seq.elts))]
            prelude, pairs = [assign(tmp, expr)], list(zip(seq.elts, parts))
        flat = []
        for elt, part in pairs:
            if isinstance(elt, (gast.Tuple, gast.List)):
                more, inner = self.sequence_contributions(elt, part)
                prelude += more
                flat += inner
            else:
                flat.append((elt, part))
        return prelude, flat

    def unbroadcast(self, expr, arg, arg_kind, result_kind, others):
        """Sum an elementwise cotangent back to the shape of `arg`; `others`:
        the operation's other operands, (atom, kind)."""
        if arg_kind.is_scalar and result_kind.is_scalar:
            return expr
        if arg_kind.is_scalar and result_kind.is_array:
            if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
                return gast.UnaryOp(op=gast.USub(), operand=call("np.sum", expr.operand))
            return call("np.sum", expr)
        if arg_kind.is_array and result_kind.is_array and \
                all(k.is_scalar or self._same_shape(a, arg) for a, k in others):
            return expr  # (nothing was broadcast; numba compiles no unbroadcast)
        return call("unbroadcast", expr, clone(arg))

    def _same_shape(self, a, b):
        """Whether the arrays `a` and `b` are proved of one shape where this
        statement reads them: one name (`u * u`), or one shape class
        (analysis/shape_classes.py, the shape_reads optimisation)."""
        if not (isinstance(a, gast.Name) and isinstance(b, gast.Name)):
            return False
        classes = getattr(self, "shape_classes", {})
        found = classes.get(a.id)
        return a.id == b.id or (found is not None and found == classes.get(b.id))

    def helper_contributions(self, s, g, value, helper):
        arg_kinds = [self.atom_kind(a) for a in value.args]
        try:
            vjp_name, mask = self.context.helper_vjp(helper, arg_kinds, s, self.fn)
        except LookupError as exc:  # in s2sad's definition of a numpy function: the user's line
            raise (in_definition(exc, helper.function_for(arg_kinds), self.fn.location, s)
                   or exc) from None
        diff_args = [a for a, ok in zip(value.args, mask) if ok]
        if not any(self._active_argument(a) for a in diff_args):
            return [], []
        results = [self.namer.fresh("d" + (base_name(a) or "arg") + "_" + helper.name)
                   for a in diff_args]
        self.generated.update(results)
        target = store(results[0]) if len(results) == 1 else gast.Tuple(
            elts=[store(r) for r in results], ctx=gast.Store())
        bind = assign(target, call(name(vjp_name), *[clone(a) for a in value.args], clone(g)))
        pairs = []
        for a, r in zip(diff_args, results):
            pairs += _element_pairs(a, name(r))
        return [bind], pairs

    def _active_argument(self, arg):
        """An active atom, or a tuple or list literal holding one (h((a, b)))."""
        if isinstance(arg, (gast.Tuple, gast.List)):
            return any(self._active_argument(e) for e in arg.elts)
        return self.is_active_atom(arg)

    def accumulate_all(self, pairs, cotangent):
        stmts = []
        for atom, expr in _doubled(_parts_of_literals(pairs)):
            if not self.is_active_atom(atom):
                continue
            var = base_name(atom)
            if isinstance(atom, gast.Name):
                target = store(self.d(var))
            else:
                more, atom, expr = self._through_copies(atom, expr)
                stmts += more
                atom, expr = self._scattered(atom, expr)
                target = _with_base(atom, self.d(var)) if isinstance(atom, gast.Subscript) \
                    else store(self.d(var))  # x[i][j]: dx[i][j], a view's element
                self.subscript_updated.add(self.d(var))
            st = gast.AugAssign(target=target, op=gast.Add(), value=expr)
            st.s2sad_cotangent = cotangent
            stmts.append(st)
        return stmts

    def _through_copies(self, atom, expr):
        """`x[idx][1]` reads an element of a copy (x[idx] gathers), so its
        cotangent cannot be added through the chain: it goes to a zeroed
        temporary shaped like the copy, which is then added to x[idx]."""
        stmts = []
        while isinstance(atom.value, gast.Subscript) and self._gathers(atom.value):
            part = self.namer.fresh("dpart")
            self.generated.add(part)
            stmts.append(assign(part, call("np.zeros_like", clone(atom.value))))
            inner, inner_expr = self._scattered(
                gast.Subscript(value=name(part), slice=clone(atom.slice), ctx=gast.Load()), expr)
            target = store(part) if isinstance(inner, gast.Name) else _with_base(inner, part)
            stmts.append(gast.AugAssign(target=target, op=gast.Add(), value=inner_expr))
            atom, expr = atom.value, name(part)
        return stmts, atom, expr

    def _gathers(self, chain):
        """Whether a level of the subscript chain indexes with an index array."""
        while isinstance(chain, gast.Subscript):
            items = list(chain.slice.elts) if isinstance(chain.slice, gast.Tuple) else [chain.slice]
            for i in items:
                if isinstance(i, (gast.List, gast.Call)):
                    return True
                if not isinstance(i, gast.Slice):
                    kind = K.of_atom(i, self.kinds, self.context.call_kind(self.fn))
                    if kind is not None and kind.known and kind.is_array:
                        return True
            chain = chain.value
        return False

    def _scattered(self, atom, expr):
        """`x[idx] += g` with an integer index array keeps one of repeated
        indices (as in numpy): its cotangent is `scatter_sum(g, idx, x)`, added
        to the whole adjoint (or to the view `dA[i, :]` for `A[i, idx]`)."""
        items = list(atom.slice.elts) if isinstance(atom.slice, gast.Tuple) else [atom.slice]
        # x[[0, 0, 2]]: a list of indices is an index array too
        items = [call("np.array", clone(i)) if isinstance(i, gast.List) else i for i in items]
        call_kind = self.context.call_kind(self.fn)  # len(x) - 2 is an int
        items, positions = self._tuple_parts(items, call_kind)
        if positions:  # x[np.triu_indices(n)]: each point once
            return atom, expr
        kinds = [None if _slice_like(i) or isinstance(i, gast.Call) else K.of_atom(
            i, self.kinds, call_kind) for i in items]
        unknown = [i for i, k in zip(items, kinds) if k is not None and not k.known]
        if unknown:  # an int or an index array? The gradient differs: never guess
            raise NoGradientError(
                f"{self.fn.location.describe(atom)}: s2sad cannot tell whether the index "
                f"`{stmt_source(unknown[0])}` is an integer or an array of indices, whose "
                f"repeated entries add up. Give it a known type (an argument, an int "
                f"expression, or an np.array of ints)")
        # (a boolean mask names each position once: `dx[m] += g` is its cotangent; an
        # array of any other dtype is an index array, whatever its kind says)
        fancy = [k for k, (item, kind) in enumerate(zip(items, kinds))
                 if not _slice_like(item) and (isinstance(item, gast.Call) or (
                     kind.is_array and kind.dtype != "b"))]
        if not fancy or (len(fancy) == 1 and self.distinct_indices.distinct(items[fancy[0]])) \
                or (len(fancy) > 1 and self.distinct_indices.distinct_points(
                    [items[k] for k in fancy])):
            return atom, expr  # each position once: numpy's `dx[idx] += g` adds it
        p = fancy[0]
        if len(fancy) == 1 and p > 0 and all(isinstance(i, gast.Slice) for i in items[:p]) \
                and all(isinstance(i, gast.Slice) for i in items[p + 1:]):
            # x[1:, idx]: the slices' view of dx, the cotangent added along axis p (numpy keeps
            # the index array's axes in its place when it is the only one)
            view = gast.Subscript(value=clone(atom.value), ctx=gast.Load(), slice=gast.Tuple(
                elts=[clone(i) for i in items[:p]] + [gast.Slice(lower=None, upper=None, step=None)]
                + [clone(i) for i in items[p + 1:]], ctx=gast.Load()))
            return view, call("scatter_sum_axis", expr, clone(items[p]), clone(view), const(p))
        if len(fancy) > 1 and not any(_slice_like(i) for i in items):
            points = self._scattered_points(atom, items, expr)
            if points is not None:
                return points
        if len(fancy) > 1 or any(_slice_like(i) for i in items[:p]):
            raise UnsupportedSyntaxError(
                "indexing with an index array after a slice together with an int or `...`, or "
                "with several index arrays", self.fn.location, atom, "Index with one index "
                "array, after slices only (x[1:, idx]) or before any slice, or write the "
                "gather as a loop")
        rest = items[:p] + [gast.Slice(lower=None, upper=None, step=None)] + items[p + 1:]
        # (x[idx, :-1]: a partial slice keeps the view dx[:, :-1]; `...` is whole)
        whole = all(_slice_like(i) and not (isinstance(i, gast.Slice) and (
            i.lower is not None or i.upper is not None or i.step is not None)) for i in rest)
        view = atom.value if whole else gast.Subscript(
            value=clone(atom.value), ctx=gast.Load(),
            slice=gast.Tuple(elts=[clone(i) for i in rest], ctx=gast.Load()) if len(rest) > 1
            else clone(rest[0]))
        return view, call("scatter_sum", expr, clone(items[p]), clone(view))


    def _tuple_parts(self, items, call_kind):
        """The index `items` with a tuple of index arrays (one per axis: `t =
        np.nonzero(m)`, `A[t]`) as its parts `t[0], t[1]`; and whether such
        a tuple is the whole index and proved to name each position once."""
        out, positions = [], False
        for i in items:
            kind = None if _slice_like(i) or isinstance(i, gast.Call) else K.of_atom(
                i, self.kinds, call_kind)
            if kind is not None and kind.tag == "tuple" and kind.items \
                    and all(k.is_array for k in kind.items):
                positions = len(items) == 1 and self.distinct_indices.distinct(i)
                out += [gast.Subscript(value=clone(i), slice=const(k), ctx=gast.Load())
                        for k in range(len(kind.items))]
            else:
                out.append(i)
        return out, positions

    def _scattered_points(self, atom, items, expr):
        """x[rows, cols] (index arrays and ints, one per axis, no slice) reads
        points: its cotangent adds each element of g at its point of x,
        repeated points adding up. The points as positions in x.ravel()
        (Horner's rule over the axes; `% n` for negative entries) make it
        scatter_sum's one index array. None for fewer indices than axes."""
        base = atom.value
        kind = K.of_atom(base, self.kinds, self.context.call_kind(self.fn))
        if not (kind.known and kind.is_array and kind.ndim == len(items)):
            return None
        shape = [subscript(gast.Attribute(value=clone(base), attr="shape", ctx=gast.Load()),
                           const(k)) for k in range(len(items))]
        flat = None
        for k, item in enumerate(items):
            position = gast.BinOp(left=clone(item), op=gast.Mod(), right=shape[k])
            flat = position if flat is None else gast.BinOp(
                left=gast.BinOp(left=flat, op=gast.Mult(), right=clone(shape[k])),
                op=gast.Add(), right=position)
        points = call("scatter_sum", call("np.ravel", expr), call("np.ravel", flat),
                      call("np.ravel", clone(base)))
        reshaped = call(gast.Attribute(value=points, attr="reshape", ctx=gast.Load()),
                        gast.Attribute(value=clone(base), attr="shape", ctx=gast.Load()))
        return base, reshaped


# what no gradient flows through: a constant, a comparison (a bool), a
# formatted string
_CONSTANT_FORMS = (gast.Constant, gast.Compare, gast.JoinedStr, gast.FormattedValue)


def _parts_of_literals(pairs):
    """A tuple or list literal's cotangent given to a whole name (`a, b = t`
    gives `(da, db)` to t) goes to its parts, `t[0]` and `t[1]`: `+` would
    concatenate the tuples."""
    out = []
    for atom, expr in pairs:
        if isinstance(atom, gast.Name) and isinstance(expr, (gast.Tuple, gast.List)):
            out += [(gast.Subscript(value=clone(atom), slice=const(k), ctx=gast.Load()), e)
                    for k, e in enumerate(expr.elts)]
        else:
            out.append((atom, expr))
    return out


def _doubled(pairs):
    """The same contribution twice to the same place (x * x gives g * x to
    x twice) as one: `2.0 * (g * x)`, which is g * x + g * x to the bit."""
    bases = [base_name(a) for a, _ in pairs]
    if len(set(bases)) == len(bases):
        return pairs  # each to its own variable (most statements): nothing to compare
    texts = [(structure(a), structure(e)) for a, e in pairs]
    out = []
    for k, (atom, expr) in enumerate(pairs):
        if texts.count(texts[k]) == 2:
            if texts[k] in texts[:k]:
                continue  # added to the first
            expr = gast.BinOp(left=const(2.0), op=gast.Mult(), right=expr)
        out.append((atom, expr))
    return out


def _flat_atoms(args):
    out = []
    for a in args:
        if isinstance(a, (gast.Tuple, gast.List)):
            out.extend(_flat_atoms(a.elts))
        else:
            out.append(a)
    return out


def _with_base(sub, base):
    """The subscript chain `sub` (x[a][b]...) applied to the name `base`, to store."""
    inner = name(base) if isinstance(sub.value, gast.Name) else _with_base(sub.value, base)
    if isinstance(inner, gast.Subscript):
        inner.ctx = gast.Load()
    return gast.Subscript(value=inner, slice=clone(sub.slice), ctx=gast.Store())


def _slice_like(item):
    """A slice or `...` in an index: it picks whole axes."""
    return isinstance(item, gast.Slice) or (isinstance(item, gast.Constant)
                                            and item.value is Ellipsis)


def _element_pairs(arg, g):
    """(atom, cotangent) pairs for a helper's argument: a tuple or list literal
    `(a, b)` gets the parts of its cotangent, `g[0]` and `g[1]`."""
    if isinstance(arg, (gast.Tuple, gast.List)):
        pairs = []
        for k, e in enumerate(arg.elts):
            pairs += _element_pairs(e, gast.Subscript(value=clone(g), slice=const(k),
                                                      ctx=gast.Load()))
        return pairs
    return [(arg, g)]


def refuse_active_list(s, value, active, kinds, location):
    """A Python list holding values that need a gradient is a stack
    (append and pop, as generated tapes use it) and nothing else: any
    other use would lose its gradient."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
            and value.func.attr == "pop":
        return
    if read_of(value, {v for v in active if kinds.get(v, K.UNKNOWN).tag == "list"}):
        return  # v = hs[i], z = stack_list(hs): element by element (user_stacks.py)
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id == "len" and len(value.args) == 1:
        return  # n = len(hs): an int, no gradient (list_reads.py)
    for n in walk(value):
        if isinstance(n, gast.Name) and n.id in active \
                and kinds.get(n.id, K.UNKNOWN).tag == "list":
            raise UnsupportedSyntaxError(
                f"a list of values that need a gradient ('{n.id}', built with .append) "
                f"used here", location, s,
                f"Build it as `{n.id} = []` followed by a for loop appending once per "
                f"iteration and never popped (s2sad fills an array), use a list "
                f"comprehension, or preallocate an array; a list used as a stack is read "
                f"only by {n.id}.pop()")
