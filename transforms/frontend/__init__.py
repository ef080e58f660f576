"""The front end: a function's source read, its Python forms lowered, its
calls bound, its closures, containers and effects made explicit, then
normalised to one primitive operation per statement and specialised to the
argument kinds. pipeline.py lists the passes in the order they run; each is
a module of a family folder: read/, calls/, functions/, containers/,
statements/, effects/."""
