"""The front end: a function's source parsed, its calls bound to their
signatures, its control flow desugared and its containers, closures and
effects lowered, then normalised to one primitive operation per statement
and specialised to the argument kinds."""
