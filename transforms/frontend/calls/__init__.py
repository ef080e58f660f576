"""Calls: their Python spellings (functools.partial, map, math.fsum, sorted,
list, star arguments) lowered, bound to their callees' signatures, and
respelled into the forms the gradient rules implement."""
