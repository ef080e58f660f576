"""Activity analysis: a variable is active when it depends on a `wrt`
argument (varied) and the output depends on it (useful). Only active
variables get adjoints; everything else runs in the forward sweep alone.

The analysis is per variable name, not per program point: a name reused for
unrelated values is active if any of them is. That is sound and keeps the
generated code easy to follow."""
import gast

from ..errors import UnsupportedSyntaxError
from ..ops import differentiable_operands
from ..syntax import base_name, walk, walk_stmts
from .stack_uses import refuse_stack_misuse


def _assignments(body):
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign):
            yield s


def _is_append(s):
    return (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append"
            and isinstance(s.value.func.value, gast.Name) and len(s.value.args) == 1)


def _pops_from(value, stacks):
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "pop" and isinstance(value.func.value, gast.Name)
            and value.func.value.id in stacks)


def _targets(target):
    if isinstance(target, (gast.Tuple, gast.List)):
        return [base_name(t) for t in target.elts]
    return [base_name(target)]


def analyse(tree, wrt, outputs, kinds, fn, registry, constants=()):
    """Names that are active. `constants` are names the user asked to treat
    as constants (they are never active)."""
    flows = []  # (targets, operand names) per assignment
    for s in walk_stmts(tree.body):
        if _is_append(s):  # stack.append(v): v flows into the list
            # (every name the appended expression reads: a user's list may
            # be given x[i] * x[i], not just a name)
            flows.append(([s.value.func.value.id], {n.id for n in walk(s.value.args[0])
                                                    if isinstance(n, gast.Name)}))
        if not isinstance(s, gast.Assign) or getattr(s, "s2sad_constant", False):
            continue  # stop_gradient, stop_recording, stop_gradients
        operands = set()
        for a in differentiable_operands(s.value, fn, registry):
            if base_name(a) is not None:
                operands.add(base_name(a))
            else:  # an expression, not an atom (normal form broken): every name it reads
                # flows, and its adjoint is refused where it is built, never dropped
                operands |= {n.id for n in walk(a) if isinstance(n, gast.Name)}
        flows.append((_targets(s.targets[0]), operands))

    def differentiable(v):
        k = kinds.get(v)
        return k is None or k.differentiable

    varied = {w for w in wrt if w not in constants}
    changed = True
    while changed:
        changed = False
        for targets, operands in flows:
            if operands & varied:
                for t in targets:
                    if t not in varied and t not in constants and differentiable(t):
                        varied.add(t)
                        changed = True

    refuse_stack_misuse(tree, varied, kinds, fn.location)
    _refuse_objects_of_varied(tree, varied, kinds, fn)
    useful = set(outputs)
    changed = True
    while changed:
        changed = False
        for targets, operands in flows:
            if useful.intersection(targets) and not operands <= useful:
                useful |= operands
                changed = True
    active = (varied & useful) - set(constants)
    # a value popped from a stack of active values is active even if
    # nothing uses it: its adjoint (a zero) keeps the stack of adjoints in
    # step, so each value pushed gets its own (user_stacks.py)
    for s in _assignments(tree.body):
        if _pops_from(s.value, active) and isinstance(s.targets[0], gast.Name) \
                and differentiable(s.targets[0].id) and s.targets[0].id not in constants:
            active.add(s.targets[0].id)
    _refuse_complex(tree, active, kinds, fn)
    return active


def _refuse_objects_of_varied(tree, varied, kinds, fn):
    """An object (of the user's class: not a number, array or container)
    made from, or given by a method, values that depend on the
    differentiated arguments (`b = Box(x * x)`, `acc.add(x)`): objects carry
    no gradient, so what is read back from it (`b.v`) would have none and
    the gradient would be silently wrong. Refused."""
    from .objects import generator_class

    def is_object(v):  # (a random generator's draws have rules: NoGradientError says more)
        k = kinds.get(v)
        return k is not None and k.tag == "object" and generator_class(k.text) is None

    def reads_varied(node):
        return any(isinstance(n, gast.Name) and n.id in varied for n in walk(node))

    for s in walk_stmts(tree.body):
        objects = [t for t in _targets(s.targets[0]) if t is not None and is_object(t)] \
            if isinstance(s, gast.Assign) else []
        made = bool(objects) and reads_varied(s.value)
        call = s.value if isinstance(s, (gast.Expr, gast.Assign)) else None
        given = isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
            and isinstance(call.func.value, gast.Name) and is_object(call.func.value.id) \
            and any(reads_varied(a) for a in list(call.args) + [k.value for k in call.keywords])
        if given and isinstance(s, gast.Assign):  # (its result used: perhaps a pure method)
            obj, method = call.func.value.id, call.func.attr
            cls = kinds[obj].text.rsplit('.', 1)[-1]
            raise UnsupportedSyntaxError(
                f"a call of the method {obj}.{method} (of the class {cls}) given values "
                f"that depend on the differentiated arguments", fn.location, s,
                f"s2sad differentiates functions of numbers, arrays and containers, not "
                f"methods of an object: write {method} as a module-level function taking "
                f"the values it reads from the object as arguments, and call it with them "
                f"({method}(..., {obj}.<attribute>))")
        if made or given:
            text = kinds[call.func.value.id if given else objects[0]].text
            raise UnsupportedSyntaxError(
                f"an object of the class {text.rsplit('.', 1)[-1]} holding values that depend "
                f"on the differentiated arguments", fn.location, s,
                "s2sad differentiates numbers, arrays and containers (dicts, lists, tuples, "
                "NamedTuples, dataclasses): make the class a dataclass "
                "(@dataclasses.dataclass), or keep the values in variables")


def _refuse_complex(tree, active, kinds, fn):
    """A complex value computed from differentiated ones (`z = x + 1j * y`):
    the rules are written for real numbers (a complex cotangent's convention,
    conjugated or not, would be guessed), so it is refused, never run."""
    def is_complex(v):
        k = kinds.get(v)
        return k is not None and (k.tag == "complex" or (k.is_array and k.dtype == "c"))
    for s in walk_stmts(tree.body):
        if isinstance(s, gast.Assign) and any(t in active and is_complex(t)
                                              for t in _targets(s.targets[0])):
            raise UnsupportedSyntaxError(
                "a complex number computed from differentiated values", fn.location, s,
                "Differentiate real computations: keep the real and imaginary parts as "
                "separate real variables (z = x + 1j*y: work with x and y)")
