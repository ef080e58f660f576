"""numpy (and scipy) calls numba cannot compile, and the runtime helper each
becomes: the table the late pass (transforms/emit/numba_forms.py) reads.

Generated code calls numpy as the user wrote it; where numba has no
implementation of a form (`np.mean(x, axis=0)`, `np.array((a, b))` of
arrays, scipy.special.gammaln), the late pass rewrites the call into a
helper of s2sad.runtime with numpy's semantics: `np.mean(x, axis=0)` reads
`mean_axis(x, axis=0)`. A rule module registers each form beside the rule
of the function it rewrites:

    numba_form(np.mean, rt.mean_axis, when=given("axis", "keepdims"))

A helper takes the gradient rule of the function it stands for (once every
rule is registered: `give_helpers_their_rules`), so a generated derivative
that calls it can be differentiated again.

The tests read the call node as written (`call.keywords`, `call.args`);
they are tried in the order registered, the first that holds chooses the
helper."""

# (numpy function, test on the call node, helper's name, how the arguments pass)
# "same": the call's own arguments; "tuple": the literal's elements as a tuple.
# (keepdims reaches a helper only in a helper's primal copy, which is not bound:
# a differentiated call's keepdims is a reshape, bind.py)
FORMS = []
STANDS_FOR = []  # (helper, the function whose gradient rule it takes)
_GIVEN = 0  # how many of them have their rules


def numba_form(fn, helper, when=None, passing="same", takes_rule=True):
    """Calls of `fn` for which `when(call)` holds (every call: None) become
    calls of `helper`, which takes `fn`'s gradient rule (unless
    `takes_rule` is False: it has its own). `fn` None (a function this
    numpy lacks): nothing."""
    if fn is None:
        return
    FORMS.append((fn, when or every_call, helper.__name__, passing))
    if takes_rule:
        takes_rule_of(helper, fn)


def takes_rule_of(helper, fn):
    """`helper` (a runtime helper generated code calls) has `fn`'s rule."""
    STANDS_FOR.append((helper, fn))


def give_helpers_their_rules(registry):
    """Register each helper with the rule of what it stands for (after every
    rule is registered; again after a library's rules load late: only the
    helpers added since)."""
    global _GIVEN
    for helper, fn in STANDS_FOR[_GIVEN:]:
        registry.register(helper, registry.lookup(fn))
    _GIVEN = len(STANDS_FOR)


# ---- tests on the call node -------------------------------------------------------------

def every_call(call):
    return True


def given(*names):
    """The call passes one of the parameters `names` (numba lacks even `axis=None`)."""
    def test(call):
        return any(k.arg in names for k in call.keywords)
    return test


def any_of(*tests):
    return lambda call: any(t(call) for t in tests)


def frobenius(call):
    """np.linalg.norm(x, ord='fro')."""
    return any(k.arg == "ord" and getattr(k.value, "value", None) == "fro" for k in call.keywords)


def copied(call):
    """np.array(x) of a name (an array or a number): a copy."""
    return len(call.args) == 1 and type(call.args[0]).__name__ == "Name"


def one_argument(call):
    return len(call.args) == 1 and not call.keywords


def one_name(call):
    """f(x) of one name (not a tuple or list literal), no keywords."""
    return len(call.args) == 1 and not call.keywords and type(call.args[0]).__name__ == "Name"


def parts_literal(call):
    """np.array((a, b)) / np.array([a, 2 * b]) of arrays or numbers (not nested), no dtype."""
    if len(call.args) != 1 or call.keywords:
        return False
    arg = call.args[0]
    return type(arg).__name__ in ("Tuple", "List") and arg.elts and \
        not any(type(e).__name__ in ("Tuple", "List", "Starred") for e in arg.elts)
