"""numpy reductions given `where=` or `initial=` (and keepdims= beside
them): np.sum, np.prod, np.nansum, np.mean, np.var, np.std, np.max and
np.min, as definitions in terms of functions that have rules, chosen by
what a call gives (without those keywords, the function's rule applies).

A `where` mask carries no gradient (it is a boolean); the entries it leaves
out are replaced by the reduction's identity before reducing, so they get a
zero gradient, and `initial` (numpy's start value) is a value like any
other, differentiated when it depends on the inputs. The mask must
broadcast to the array's shape, as numpy requires."""
import numpy as np

from .registry import NotImplementedArgument, chosen, chooses, const, refuse_given, row

# (the definitions take where=, initial=, axis= and ddof= by keyword; numpy's out=None and
# keepdims, which chose the definition, are not passed)
_DECIDED = ("out", "keepdims", "dtype")


def _kept(a, where, fill):
    """`a` where the mask holds, `fill` elsewhere (a itself without a mask)."""
    if where is None:
        return a
    kept = np.where(where, a, fill)
    if kept.shape != a.shape:
        raise ValueError("where= must broadcast to the shape of the array it masks "
                         "(numpy raises for a larger mask)")
    return kept


def _count(shape, axis, where):
    """How many entries each result combines (the mask's True entries), for
    an array of `shape` (a shape: nothing here needs a gradient)."""
    return np.sum(_kept(np.ones(shape), where, 0.0), axis=axis)


def _count_kept(shape, axis, where):
    return np.sum(_kept(np.ones(shape), where, 0.0), axis=axis, keepdims=True)


@chosen(_DECIDED)
def sum_masked(a, axis=None, initial=None, where=None):
    """np.sum(a, axis, initial=, where=): the sum of the kept entries, plus initial."""
    total = np.sum(_kept(a, where, 0.0), axis=axis)
    if initial is None:
        return total
    return total + initial


@chosen(_DECIDED)
def sum_masked_kept(a, axis=None, initial=None, where=None):
    total = np.sum(_kept(a, where, 0.0), axis=axis, keepdims=True)
    if initial is None:
        return total
    return total + initial


@chosen(_DECIDED)
def prod_masked(a, axis=None, initial=None, where=None):
    """np.prod(a, axis, initial=, where=): the product of the kept entries, times initial."""
    total = np.prod(_kept(a, where, 1.0), axis=axis)
    if initial is None:
        return total
    return total * initial


@chosen(_DECIDED)
def prod_masked_kept(a, axis=None, initial=None, where=None):
    total = np.prod(_kept(a, where, 1.0), axis=axis, keepdims=True)
    if initial is None:
        return total
    return total * initial


@chosen(_DECIDED)
def max_masked(a, axis=None, initial=None, where=None):
    """np.max(a, axis, initial=, where=): the larger of initial and the kept
    entries' maximum (a tie goes to the array, as np.maximum gives it)."""
    return np.maximum(np.max(_kept(a, where, -np.inf), axis=axis), initial)


@chosen(_DECIDED)
def max_masked_kept(a, axis=None, initial=None, where=None):
    return np.maximum(np.max(_kept(a, where, -np.inf), axis=axis, keepdims=True), initial)


@chosen(_DECIDED)
def min_masked(a, axis=None, initial=None, where=None):
    """np.min(a, axis, initial=, where=)."""
    return np.minimum(np.min(_kept(a, where, np.inf), axis=axis), initial)


@chosen(_DECIDED)
def min_masked_kept(a, axis=None, initial=None, where=None):
    return np.minimum(np.min(_kept(a, where, np.inf), axis=axis, keepdims=True), initial)


@chosen(_DECIDED)
def mean_masked(a, axis=None, where=None):
    """np.mean(a, axis, where=): the sum of the kept entries over their count
    (nan where none is kept, as numpy gives)."""
    return np.sum(_kept(a, where, 0.0), axis=axis) / _count(np.shape(a), axis, where)


@chosen(_DECIDED)
def mean_masked_kept(a, axis=None, where=None):
    total = np.sum(_kept(a, where, 0.0), axis=axis, keepdims=True)
    return total / _count_kept(np.shape(a), axis, where)


def _deviations(a, axis, where):
    """The kept entries' deviations from their mean (0 where not kept)."""
    total = np.sum(_kept(a, where, 0.0), axis=axis, keepdims=True)
    mean = total / _count_kept(np.shape(a), axis, where)
    return _kept(a - mean, where, 0.0)


@chosen(_DECIDED)
def var_masked(a, axis=None, ddof=0, where=None):
    """np.var(a, axis, ddof=, where=): numpy's sum of squared deviations of
    the kept entries over max(count - ddof, 0)."""
    d = _deviations(a, axis, where)
    return np.sum(d * d, axis=axis) / np.maximum(_count(np.shape(a), axis, where) - ddof, 0.0)


@chosen(_DECIDED)
def var_masked_kept(a, axis=None, ddof=0, where=None):
    d = _deviations(a, axis, where)
    return np.sum(d * d, axis=axis, keepdims=True) / np.maximum(
        _count_kept(np.shape(a), axis, where) - ddof, 0.0)


@chosen(_DECIDED)
def std_masked(a, axis=None, ddof=0, where=None):
    """np.std(a, axis, ddof=, where=): the square root of var_masked, as the
    norm of the deviations (so where they are all 0 the gradient is 0, as
    np.std's rule gives)."""
    d = _deviations(a, axis, where)
    count = _count(np.shape(a), axis, where)
    return np.linalg.norm(d, axis=axis) / np.sqrt(np.maximum(count - ddof, 0.0))


@chosen(_DECIDED)
def std_masked_kept(a, axis=None, ddof=0, where=None):
    d = _deviations(a, axis, where)
    return np.linalg.norm(d, axis=axis, keepdims=True) / np.sqrt(
        np.maximum(_count_kept(np.shape(a), axis, where) - ddof, 0.0))


@chosen(_DECIDED)
def nansum_masked(a, axis=None, initial=None, where=None):
    """np.nansum(a, axis, initial=, where=): NaNs count as zero (and get a zero gradient)."""
    return sum_masked(np.where(np.isnan(a), 0.0, a), axis, initial, where)


@chosen(_DECIDED)
def nansum_masked_kept(a, axis=None, initial=None, where=None):
    return sum_masked_kept(np.where(np.isnan(a), 0.0, a), axis, initial, where)


def _keywords_chosen(fn, plain, kept, by=("where", "initial"), needs_initial=False):
    """A reduction given where= or initial= (`by`): its definition here, the
    one keeping the reduced axes for keepdims=True; without them, the rule
    (None)."""
    def choose(given):
        if not set(by) & set(given):
            return None
        name = fn.__name__
        refuse_given(fn, given, {"out": ((None,), "Leave out out= (assign the result)")})
        if "dtype" in given and const(given["dtype"]) is not None:
            raise NotImplementedArgument(
                f"s2sad differentiates np.{name} with dtype= float64 only (float, np.float64, "
                f"'float64' or None): compute in float64, and cast the result with "
                f".astype() outside the differentiated function")
        for unsupported in ("mean", "correction"):
            if unsupported in given:
                raise NotImplementedArgument(
                    f"s2sad's definition of np.{name} with where= does not implement "
                    f"'{unsupported}=': leave it out (ddof= is implemented)")
        if needs_initial and "where" in given and "initial" not in given and \
                const(given["where"]) is not True:
            raise NotImplementedArgument(
                f"np.{name} with where= needs initial= (numpy raises ValueError: the "
                f"reduction has no identity): give initial=, e.g. -np.inf for a maximum")
        keep = const(given["keepdims"]) if "keepdims" in given else False
        if keep not in (True, False):
            raise NotImplementedArgument(f"s2sad's definition of np.{name} with "
                                         f"{' or '.join(by)}= takes keepdims written as True "
                                         f"or False")
        return kept if keep else plain
    return choose


chooses(np.sum)(_keywords_chosen(np.sum, sum_masked, sum_masked_kept))
chooses(np.prod)(_keywords_chosen(np.prod, prod_masked, prod_masked_kept))
chooses(np.nansum)(_keywords_chosen(np.nansum, nansum_masked, nansum_masked_kept,
                                    by=("where", "initial", "keepdims")))
chooses(np.mean)(_keywords_chosen(np.mean, mean_masked, mean_masked_kept, by=("where",)))
chooses(np.var)(_keywords_chosen(np.var, var_masked, var_masked_kept, by=("where",)))
chooses(np.std)(_keywords_chosen(np.std, std_masked, std_masked_kept, by=("where",)))
for _fn in (np.max, np.amax):
    chooses(_fn)(_keywords_chosen(_fn, max_masked, max_masked_kept, needs_initial=True))
for _fn in (np.min, np.amin):
    chooses(_fn)(_keywords_chosen(_fn, min_masked, min_masked_kept, needs_initial=True))

row(np.max, "definition with where= (and initial=, which numpy requires with it) or initial=: "
            "np.maximum of initial and the maximum of the kept entries (keepdims too; out= "
            "refused)")
row(np.amax, "definition with where= / initial= (as np.max)")
row(np.min, "definition with where= (and initial=) or initial= (as np.max)")
row(np.amin, "definition with where= / initial= (as np.max)")
row(np.sum, "definition with where= or initial=: the sum of the kept entries plus initial "
            "(the mask: no gradient; keepdims too; out= refused)")
row(np.prod, "definition with where= or initial= (the product of the kept entries times "
             "initial)")
row(np.mean, "definition with where= (the kept entries' mean)")
row(np.var, "definition with where= (ddof too; mean= and correction= refused)")
row(np.std, "definition with where= (ddof too; zero spread: gradient 0)")
