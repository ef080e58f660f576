"""What generating a derivative gives: the module's source and what the
caller needs to know of it. Plain data (s2sad/source_cache.py keeps it on
disk), in a module of its own so that reading it back loads no compiler."""


class Generated:
    def __init__(self, source, functions, entry, namespace, key_extra, output_kind=None,
                 checks_own_indices=frozenset()):
        self.source = source
        self.functions = functions    # names of every function in the module
        self.entry = entry            # the derivative's name
        self.namespace = namespace    # objects the module needs but cannot import
        self.key_extra = key_extra    # their description, for the cache key
        self.output_kind = output_kind  # kind of fn's output (vjp: what the seed weights)
        # functions that check their own indices (numba need not check them)
        self.checks_own_indices = frozenset(checks_own_indices)
