"""Statements by the block they are in, for the effect passes that add
statements after others (view_copies.py, view_writes.py)."""


def insert_after(node, inserts):
    """Put the statements `inserts[id(s)]` right after each statement s,
    in whatever block of `node` it is."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        out = []
        for s in block:
            insert_after(s, inserts)
            out.append(s)
            out.extend(inserts.get(id(s), ()))
        block[:] = out
    for handler in getattr(node, "handlers", ()) or ():
        insert_after(handler, inserts)


def blocks(tree):
    """id(statement) -> (the block it is in, its position there)."""
    out = {}

    def visit(node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for k, s in enumerate(block):
                    out[id(s)] = (block, k)
                    visit(s)
        for handler in getattr(node, "handlers", ()) or ():
            visit(handler)
    visit(tree)
    return out
