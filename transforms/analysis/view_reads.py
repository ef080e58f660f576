"""Second names of an array's memory that the reverse sweep would read
after a write through the other name.

`row = b[i]; b[i] = np.sin(row) * row` reads `row` before the write, as
Python runs it; the reverse sweep reads `row` again (for cos(row)) after
the forward sweep has written b[i], and a view sees the new values. The
reverse sweep restores what a statement overwrote by the name it wrote
(b), so a second name of that memory is not restored. The same holds for
a write through the second name (`v = b[0]; s = np.sum(np.sin(b)); v[:] =
...`), whose restore would be by `v`.

aliases.py refuses a read of one name after a write through the other, so
in an accepted function no read observes that the two share memory: the
second name may hold a copy instead, with the same values everywhere. This
module finds the statements making such a second name; the front end
(effects/view_copies.py) makes them copies."""
import gast

from .aliases import (_Flow, _flatten, _header_loads, _second_names, _through_chains,
                      _after_write_backs, _written)


def views_read_across_writes(tree, kinds, call_shares=None):
    """The statements `alias = <view of source>` (single-name assignments)
    after which a write into that memory through one name can follow a
    read of the other name: the reverse sweep of the read would see the
    write. (Conservative: any read counts, and any write into the array,
    whatever its elements.)"""
    order = []
    _flatten(tree.body, (), order)
    aliases = [(_after_write_backs(order, p), alias, source, s)
               for p, (s, _) in enumerate(order)
               for alias, source in _second_names(s, kinds, call_shares)]
    if not aliases:
        return []
    flow = _Flow(order)
    aliases = _through_chains(aliases, flow)
    writes = [(q, name) for q, (s, _) in enumerate(order) for name in _written(s, kinds)]
    # a statement making a view (`T2 = T.T`) reads no values of its source:
    # its reverse adds the adjoint back (the view itself is checked as a chain)
    views = {}
    for p, alias, source, _ in aliases:
        views.setdefault(p, set()).add(source)
    for r, (s, _) in enumerate(order):  # nor does `v = np.copy(view)` of the view
        if _copy_of_name(s):
            views.setdefault(r, set()).add(s.value.args[0].id)
    reads = [(r, _header_loads(s) - views.get(r, set())) for r, (s, _) in enumerate(order)]
    found = []
    for p, alias, source, made in aliases:
        if not _copyable(made, alias) or any(made is m for m in found):
            continue
        both = {alias, source}
        for q, name in writes:
            if name not in both or not flow.reaches(p, q, both):
                continue
            other = source if name == alias else alias
            if any(other in names and (r == q or flow.reaches(r, q, both))
                   and (r != p and flow.reaches(p, r, both))
                   for r, names in reads):
                found.append(made)
                break
    return found


def _copyable(made, alias):
    """`alias = value` as a statement of its own: its value can be copied."""
    return isinstance(made, gast.Assign) and len(made.targets) == 1 \
        and isinstance(made.targets[0], gast.Name) and made.targets[0].id == alias \
        and not getattr(made, "s2sad_result_shares", None)


def _copy_of_name(s):
    """`v = np.copy(w)`: reads no value of w that its reverse needs."""
    return isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) \
        and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "copy" \
        and isinstance(s.value.func.value, gast.Name) and s.value.func.value.id == "np" \
        and len(s.value.args) == 1 and isinstance(s.value.args[0], gast.Name)
