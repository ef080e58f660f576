"""Forward mode: each statement is followed by the statement computing its
tangent (`dz` for `z`), in the same control flow. Nothing is recorded.

Tangent rules come from the gradient registry: a pointwise rule's adjoint
template, with an argument's tangent in place of the cotangent `g`, is that
argument's term of the tangent; a linear primitive is applied to the
tangents; anything else has an explicit tangent template."""
import gast

from ..analysis import kinds as K
from ..reverse.contributions import refuse_active_list
from ..errors import (NoForwardModeError, NoGradientError, UnsupportedSyntaxError, in_definition,
                      missing_gradient)
from ..ops import (ARRAY_METADATA, BINOPS, callee_text, check_rule_application, method_object,
                   operator_text, refuse_active_index, refuse_python_block, resolve_call)
from ..syntax import (assign, base_name, call, clone, const, name, names_loaded,
                      names_stored, store)
from ..templates import inline, template_of


class ForwardMode:
    """`context` provides `registry`, `helper_jvp(fn, arg_kinds, active)` ->
    name of the helper's generated jvp, and `custom_pair`."""

    def __init__(self, fn, tree, kinds, active, namer, context):
        self.fn, self.tree, self.kinds, self.active = fn, tree, kinds, active
        self.namer, self.context, self.registry = namer, context, context.registry
        self.tangents = {}
        # names bound on every path to the statement being transformed, per
        # enclosing block (a reset_recording() zeroes their tangents)
        self._bound = [set(fn.arg_names)]
        self._stored = set()  # names bound so far, on any path

    def d(self, var):
        if var not in self.tangents:
            self.tangents[var] = self.namer.fresh("d" + var)
        return self.tangents[var]

    def kind(self, var):
        return self.kinds.get(var, K.UNKNOWN)

    def zero_like(self, atom):
        k = self.atom_kind(atom)
        if k.is_array:
            return call("np.zeros_like", clone(atom))
        if k.tag == "tuple":
            return gast.Tuple(elts=[const(0.0)] * len(k.items), ctx=gast.Load())
        return const(0.0) if k.known else call("zeros_like", clone(atom))

    def atom_kind(self, atom):
        # (with the calls' kinds: y[np.array([0, 2])] keeps the indexed axis)
        return K.of_atom(atom, self.kinds, self.context.call_kind(self.fn))

    def is_active(self, atom):
        return isinstance(atom, (gast.Name, gast.Subscript)) and base_name(atom) in self.active

    def tangent_atom(self, atom):
        """The tangent of an operand, or None when it is a constant."""
        if isinstance(atom, (gast.Tuple, gast.List)):
            parts = [self.tangent_atom(e) for e in atom.elts]
            if all(p is None for p in parts):
                return None
            return gast.Tuple(elts=[p if p is not None else self.zero_like(e)
                                    for p, e in zip(parts, atom.elts)], ctx=gast.Load())
        if not self.is_active(atom):
            return None
        if isinstance(atom, gast.Name):
            return name(self.d(atom.id))
        # the same chain of subscripts (and .T) on the tangent: A[1][:2] -> dA[1][:2]
        tangent = clone(atom)
        node = tangent
        while isinstance(node.value, (gast.Subscript, gast.Attribute)):
            node = node.value
        node.value = name(self.d(base_name(atom)))
        return tangent

    # ---- statements -------------------------------------------------------
    def block(self, stmts):
        out = []
        self._bound.append(set())
        for s in stmts:
            out += self.statement(s)
            if isinstance(s, gast.Assign):
                self._bound[-1] |= names_stored([s])
            self._stored |= names_stored([s])
        self._bound.pop()
        return out

    def statement(self, s):
        self._stmt = s
        if isinstance(s, gast.Assign):
            refuse_active_list(s, s.value, self.active, self.kinds, self.fn.location)
            target = s.targets[0]
            if isinstance(target, gast.Name):
                return self.assign_name(s, target.id)
            if isinstance(target, gast.Subscript):
                x = base_name(target)
                if x not in self.active:
                    return [s]
                t = None if getattr(s, "s2sad_constant", False) else self.tangent(s.value, None)
                slot = gast.Subscript(value=name(self.d(x)), slice=clone(target.slice),
                                      ctx=gast.Store())
                tstmt = assign(slot, t if t is not None else const(0.0), src=s)
                if x in names_loaded(s.value):  # x[i] += v: the tangent reads the old x
                    return [tstmt, s]
                return [s, tstmt]
            return self.assign_tuple(s, target)
        if isinstance(s, gast.If):
            return [gast.copy_location(gast.If(test=s.test, body=self.block(s.body) or [gast.Pass()],
                                               orelse=self.block(s.orelse)), s)]
        if isinstance(s, gast.For):
            s.body = self.block(s.body) or [gast.Pass()]
            return [s]
        if isinstance(s, gast.While):
            s.body = self.block(s.body) or [gast.Pass()]
            return [s]
        if isinstance(s, gast.Expr) and getattr(s, "s2sad_reset", False):
            return [s] + self.reset_tangents(s)
        if isinstance(s, gast.Expr):
            return [s] + self.list_append(s)
        return [s]

    def reset_tangents(self, s):
        """reset_recording(): the values computed before are constants from
        here (the reverse sweep ends where it stands), so their tangents start
        again from zero; the arguments keep theirs."""
        params = set(self.fn.arg_names)
        bound = set().union(*self._bound)
        out = []
        for v, dv in self.tangents.items():
            if v not in self.active:
                continue
            if v in params and v not in self._stored:
                continue
            if v in params or v not in bound:
                what = "an argument rebound" if v in params else "bound on some paths only"
                raise UnsupportedSyntaxError(
                    f"reset_recording() after `{v}` is {what}, in forward mode",
                    self.fn.location, s, f"Give the new value of {v} a name of its own, bound "
                    f"on every path before reset_recording(), or use grad or vjp (reverse mode)")
            out.append(assign(dv, self.zero_like(name(v)), src=s))
        return out

    def list_append(self, s):
        """stack.append(v) on a list of active values: the tangent list too.
        Any other call of a method of such a list (`xs.pop()` for its effect,
        `xs.extend(...)`), or an appended expression (a stack holds values,
        as generated tapes push them), would leave the tangent list behind:
        refused, as the reverse mode refuses the list."""
        c = s.value
        if (isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute)
                and isinstance(c.func.value, gast.Name) and c.func.value.id in self.active
                and (c.func.attr != "append" or len(c.args) != 1
                     or not isinstance(c.args[0], (gast.Name, gast.Subscript, gast.Constant)))):
            raise UnsupportedSyntaxError(
                f"{c.func.value.id}.{c.func.attr}(...) on a list of values that need a gradient",
                self.fn.location, s, "Build the list as a literal, or with a for loop appending "
                "once per iteration (s2sad fills an array), or preallocate an array")
        if (isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute)
                and c.func.attr == "append" and isinstance(c.func.value, gast.Name)
                and c.func.value.id in self.active):
            stack = c.func.value.id
            t = self.tangent_atom(c.args[0])
            t = t if t is not None else self.zero_like(c.args[0])
            push = call(gast.Attribute(value=name(self.d(stack)), attr="append",
                                       ctx=gast.Load()), t)
            return [gast.copy_location(gast.Expr(value=push), s)]
        return []

    def assign_name(self, s, z):
        if z not in self.active:
            return [s]
        value = s.value
        if isinstance(value, gast.List) and not value.elts:  # a new list (a tape)
            return [s, assign(self.d(z), gast.List(elts=[], ctx=gast.Load()), src=s)]
        if isinstance(value, gast.List):  # a list that is not one variable per element
            raise UnsupportedSyntaxError("a list of values that need a gradient",
                                         self.fn.location, s,
                                         "Keep the values in separate variables or an array")
        t = None if getattr(s, "s2sad_constant", False) else self.tangent(value, z)
        if t is None:
            t = self.zero_like(name(z)) if not isinstance(value, gast.Call) or not \
                self.atom_kind(name(z)).is_array else call("np.zeros_like", name(z))
            if isinstance(value, gast.Call) and self.atom_kind(name(z)).tag == "tuple":
                # the zeros a call made (an adjoint's: a list, added into by item) have
                # zeros of their structure as tangent, a list where they are one
                t = call("zeros_like", name(z))
            return [s, assign(self.d(z), t, src=s)]
        if isinstance(t, list):  # a helper's jvp gives value and tangent at once
            return t
        t = self.broadcast_by_constants(value, t)
        if isinstance(t, (gast.Name, gast.Subscript, gast.Attribute)) \
                and not isinstance(value, (gast.Name, gast.Subscript, gast.Attribute)) \
                and z in self.written_in_place():
            # `h = x - 0.2` is a new array, its tangent `dx` another name of
            # dx: a write into h (h[m] = 0.0) must not write into dx
            t = call("np.copy", t)
        tstmt = assign(self.d(z), t, src=s)
        if z in names_loaded(value):  # x = x + ...: the tangent reads the old x
            return [tstmt, s]
        return [s, tstmt]

    def written_in_place(self):
        """Names whose array may be written in place (reverse/tapes.py)."""
        if getattr(self, "_written", None) is None:
            from ..reverse.tapes import names_written_in_place
            self._written = names_written_in_place(self.tree)
        return self._written

    def broadcast_by_constants(self, value, t):
        """`x - m` with only m active: the tangent -dm has m's shape, the result
        x's, so it is broadcast against the constant operand (a later
        np.sum(d, axis=0) or d.T must see the result's shape)."""
        if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub)):
            operands = [value.left, value.right]
        elif isinstance(value, gast.Call) and value.args and _elementwise_rule(
                value, self.fn, self.registry):  # np.add(x, m), np.maximum(x, m), ...
            operands = list(value.args)
        else:
            return t
        constant = [a for a in operands if not self.is_active(a)
                    and isinstance(a, (gast.Name, gast.Subscript))
                    and not self.atom_kind(a).is_scalar]
        if not constant:
            return t
        return gast.BinOp(left=t, op=gast.Add(), right=call("zeros_like", clone(constant[0])))

    def assign_tuple(self, s, target):
        names_ = [e.id for e in target.elts]
        if not any(n in self.active for n in names_):
            return [s]
        value = s.value
        if isinstance(value, gast.Call):
            prim = resolve_call(value, self.fn, self.registry)
            if prim.helper is not None:
                both = self.helper_call(value, prim.helper, gast.Tuple(
                    elts=[store(n) for n in names_], ctx=gast.Store()),
                    gast.Tuple(elts=[store(self.d(n)) for n in names_], ctx=gast.Store()))
                return [gast.copy_location(both, s)]
        t = self.tangent(value, None)
        if t is None:
            return [s] + [assign(self.d(n), self.zero_like(name(n)), src=s)
                          for n in names_ if n in self.active]
        tangents = gast.Tuple(elts=[store(self.d(n)) for n in names_], ctx=gast.Store())
        return [s, assign(tangents, t, src=s)]

    # ---- tangent expressions ----------------------------------------------------
    def tangent(self, value, z):
        if isinstance(value, gast.Subscript):
            refuse_active_index(value, self.is_active, self.fn.location, self._stmt)
        if isinstance(value, (gast.Name, gast.Subscript)):
            return self.tangent_atom(value)
        if isinstance(value, gast.Attribute):
            t = self.tangent_atom(value.value)
            if t is None or value.attr == "imag" or value.attr in ARRAY_METADATA:
                return None  # (the imaginary part of a real value is a constant zero)
            if value.attr not in ("T", "real"):
                raise UnsupportedSyntaxError(
                    f"the attribute `.{value.attr}` of a value that needs a derivative",
                    self.fn.location, self._stmt,
                    "Use a numpy function instead (np.ravel(x), np.swapaxes(x, -1, -2), ...)")
            return gast.Attribute(value=t, attr="T", ctx=gast.Load()) if value.attr == "T" else t
        if isinstance(value, gast.BinOp):
            rule = self.registry.lookup(BINOPS[type(value.op)])
            if rule is not None and any(self.is_active(a) for a in (value.left, value.right)):
                check_rule_application(rule, operator_text(value.op), [value.left, value.right],
                                       {}, self.atom_kind, self.is_active, self.fn.location,
                                       self._stmt)
            return self.rule_tangent(rule, value, [value.left, value.right], {}, z)
        if isinstance(value, gast.UnaryOp):
            if isinstance(value.op, gast.USub):
                t = self.tangent_atom(value.operand)
                return None if t is None else gast.UnaryOp(op=gast.USub(), operand=t)
            return None
        if isinstance(value, (gast.Tuple, gast.List)):
            return self.tangent_atom(value)
        if isinstance(value, gast.Call):
            return self.call_tangent(value, z)
        return None

    def call_tangent(self, value, z):
        if _is_method(value, "pop", self.fn):  # v = stack.pop(): from the tangent list
            stack = value.func.value.id
            if stack not in self.active:
                return None
            return call(gast.Attribute(value=name(self.d(stack)), attr="pop", ctx=gast.Load()))
        if _is_method(value, "copy", self.fn):
            return self.tangent_atom(value.func.value)
        obj = self.fn.resolve(value.func)
        if getattr(obj, "__s2sad_custom__", None):
            if any(self.is_active(a) for a in value.args):
                raise NoForwardModeError(
                    f"No forward-mode rule for the custom gradient '{callee_text(value)}' "
                    f"({self.fn.location.describe(self._stmt)}): a custom vjp only defines "
                    f"reverse mode (as in JAX). Use reverse mode (grad, vjp, jacobian "
                    f"mode='rev') for this function.")
            return None
        prim = resolve_call(value, self.fn, self.registry)
        if prim.helper is not None:
            if not any(self.is_active(a) for a in _flat(value.args)):  # (also h((a, b)))
                return None
            return [self.helper_call(value, prim.helper, store(z), store(self.d(z)))]
        if getattr(prim.obj, "__s2sad_python__", None):
            refuse_python_block(prim.obj, value, self.is_active, self.fn.location, self._stmt)
            return None
        keywords = {k.arg: k.value for k in value.keywords}
        if prim.rule is not None and any(
                self.is_active(a) for a in _flat(list(value.args) + list(keywords.values()))):
            check_rule_application(prim.rule, callee_text(value), list(value.args), keywords,
                                   self.atom_kind, self.is_active, self.fn.location, self._stmt)
        return self.rule_tangent(prim.rule, value, list(value.args), keywords, z, prim.obj)

    def helper_call(self, value, helper, value_target, tangent_target):
        arg_kinds = [self.atom_kind(a) for a in value.args]
        try:
            jvp_name, mask = self.context.helper_jvp(
                helper, arg_kinds, [any(self.is_active(e) for e in _flat([a])) for a in value.args])
        except LookupError as exc:  # in s2sad's definition of a numpy function: the user's line
            raise (in_definition(exc, helper.function_for(arg_kinds), self.fn.location, self._stmt)
                   or exc) from None
        tangents = [self.tangent_atom(a) or self.zero_like(a)
                    for a, m in zip(value.args, mask) if m]
        both = gast.Tuple(elts=[value_target, tangent_target], ctx=gast.Store())
        return assign(both, call(name(jvp_name), *[clone(a) for a in value.args], *tangents))

    def rule_tangent(self, rule, value, args, keywords, z, obj=None):
        local = method_object(value, self.fn) if isinstance(value, gast.Call) else None
        flat_active = [a for a in _flat(list(args) + list(keywords.values()) +
                                        ([local] if local is not None else []))
                       if self.is_active(a)]
        if not flat_active:
            return None
        if rule is None:
            raise missing_gradient(callee_text(value) + (" (a local variable)" if local else ""),
                                   self.fn.location, self._stmt, obj)
        if rule.nondiff:
            return None
        ans = name(z) if z else None
        if rule.linear is not None:
            terms = []
            for pos in rule.linear:
                t = self.tangent_atom(args[pos]) if pos < len(args) else None
                if t is None:
                    continue
                new_args = [clone(a) for a in args]
                new_args[pos] = t
                terms.append(gast.Call(func=clone(value.func), args=new_args,
                                       keywords=[clone(k) for k in value.keywords])
                             if isinstance(value, gast.Call) else _rebuild(value, new_args))
            return _total(terms)
        arg_kinds = [self.atom_kind(a) for a in args]
        kw_kinds = {k: self.atom_kind(v) for k, v in keywords.items()}
        chosen_tangent = rule.tangent_for(arg_kinds, kw_kinds)
        if chosen_tangent is not None:
            tangents = [self.tangent_atom(a) or self.zero_like(a)
                        for a, ok in zip(args, rule.diff_mask(len(args))) if ok]
            tmpl = template_of(chosen_tangent)
            n_t = len(tangents)
            fake_g = tangents[0]
            # a tangent template's parameters: tangents..., ans, args...
            binding_args = tangents[1:] + [ans] + args if n_t > 1 else [ans] + args
            prelude, results = inline(tmpl, fake_g, binding_args[0], binding_args[1:],
                                      keywords, self.namer)
            if prelude:
                raise AssertionError("tangent templates are single expressions")
            return results[0]
        if rule.pointwise:
            terms = []
            for pos, a in enumerate(args):
                t = self.tangent_atom(a)
                if t is None:
                    continue
                tmpl = template_of(rule.template_for(arg_kinds, kw_kinds))
                prelude, results = inline(tmpl, t, ans, args, keywords, self.namer)
                if prelude:
                    raise AssertionError("pointwise templates are single expressions")
                if pos < len(results) and results[pos] is not None:
                    terms.append(results[pos])
            return _total(terms)
        raise NoGradientError(f"No forward-mode rule for operation '{callee_text(value)}' "
                          f"({self.fn.location.describe(self._stmt)})")


def _is_method(value, attr, fn):
    """A method call on a local variable (not `np.copy`)."""
    return (isinstance(value.func, gast.Attribute) and value.func.attr == attr
            and isinstance(value.func.value, gast.Name)
            and value.func.value.id in fn.local_names)


def _rebuild(binop, args):
    if isinstance(binop, gast.BinOp):
        return gast.BinOp(left=args[0], op=binop.op, right=args[1])
    return gast.UnaryOp(op=binop.op, operand=args[0])


def _total(terms):
    if not terms:
        return None
    out = terms[0]
    for t in terms[1:]:
        out = gast.BinOp(left=out, op=gast.Add(), right=t)
    return out


def _flat(args):
    out = []
    for a in args:
        if isinstance(a, (gast.Tuple, gast.List)):
            out.extend(_flat(a.elts))
        else:
            out.append(a)
    return out


def _elementwise_rule(value, fn, registry):
    try:
        prim = resolve_call(value, fn, registry)
    except Exception:  # noqa: BLE001 - reported where the call is differentiated
        return False
    return prim.rule is not None and getattr(prim.rule, "elementwise", False)
