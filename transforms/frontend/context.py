"""What a front-end pass is given besides the tree: `run(tree, ctx)`.

The context holds the function the tree comes from (`ctx.parsed`: its
namespace, location and source), the services a pass may ask for, and the
facts the passes and the driver share:

- `ctx.parse(fn)`: another function's tree, read as the READ list reads it
  (cached), for a pass that needs to see what a helper does;
- `ctx.readable(obj)`: the Python function s2sad reads for a callee, or None;
- `ctx.resolve(node)`: the object a name denotes (None for a local; it may
  raise for what cannot be resolved), `ctx.safe_resolve(node)` never raises;
- `ctx.nodes`: walk(tree), one list shared by the passes that only look,
  renewed after a pass that changed the tree;
- once specialising (the SPECIALISE list): the argument kinds, the kinds
  inferred (`ctx.kinds`, `ctx.infer_kinds()`), fresh names (`ctx.namer`),
  the call binder, and the program's collaborators (`ctx.registry`,
  `ctx.runtime_objects`, `ctx.call_kind`, `ctx.marker_of`).

A pass that must start the specialisation again, with more loops kept as
written or more calls rewritten, raises `Restart`."""
from functools import cached_property

from .read.read import readable_function
from ..analysis import kinds as K
from ..syntax import names_stored, walk
from ..errors import S2sadTypeError


class Restart(Exception):
    """Specialise the function again from its source, with the loops at the
    lines in `skip` kept as they are (under a memory budget, loops whose
    variables a step cannot carry) and the calls in `arrays` rewritten as
    writing into the arrays they are given (a helper's `p += e` of an
    array)."""

    def __init__(self, skip=frozenset(), arrays=frozenset()):
        super().__init__()
        self.skip, self.arrays = frozenset(skip), frozenset(arrays)


class Context:
    # the facts a context starts with, and their defaults
    _FACTS = {
        "nested_def_ok": False,   # READ: a custom gradient's nested backward stays
        "helper_copy": False,     # HELPER_COPY: a helper's copy for the forward sweep
        "arg_kinds": None,        # the argument kinds specialised for
        "structures": None,       # container arguments: name -> Structure (flatten_args.py)
        "has_aux": False,         # the function returns (output, aux) (aux_output.py)
        "loops": None,            # checkpointed loops: None, "marked" or "budget"
        "stopped": (),            # the names stop_gradients names
        "skip": frozenset(),      # loops not to lift under a budget (Restart)
        "arrays": frozenset(),    # calls writing into arrays (Restart; written_args.py)
        "reserved": (),           # names fresh names avoid (the generated module's)
    }

    def __init__(self, parsed, parse, program=None, **facts):
        unknown = set(facts) - set(self._FACTS)
        if unknown:
            raise S2sadTypeError(f"unknown context facts: {sorted(unknown)}")
        self.parsed = parsed
        self._tree = parsed.tree
        self.parse = parse
        self.program = program
        for name, default in self._FACTS.items():
            setattr(self, name, facts.get(name, default))
        self.readable = readable_function
        self.kinds = None        # name -> Kind, once inferred
        self.namer = None        # fresh names (steps.new_names)
        self.names_before = set()
        self.temporaries = set()  # names the passes made up to normalisation
        self.binder = None       # the CallBinder (bind.py; normalize.py binds what it makes)
        self.aux_structure, self.aux_pairs = None, ()  # aux_output.py
        self.materialised = {}   # names bound to lists comprehensions built (comprehensions.py)
        self.skipped = set()     # the groups whose test said there is nothing to do
        # READ bound names to values read from module-level objects now (an
        # attribute, a container's element): the tree is not kept for the next
        # read, which must read them again
        self.reads_values = False
        self._nodes = None

    # ---- the tree ------------------------------------------------------------
    @property
    def tree(self):
        return self._tree

    @tree.setter
    def tree(self, tree):
        # (until the tree is copied, steps.copy_tree, it is the parsed function's own)
        if self._tree is self.parsed.tree:
            self.parsed.tree = tree
        self._tree = tree
        self._nodes = None

    @property
    def nodes(self):
        """walk(tree), shared until a pass changes the tree."""
        if self._nodes is None:
            self._nodes = walk(self._tree)
        return self._nodes

    # ---- the function ----------------------------------------------------------
    @property
    def fn(self):
        return self.parsed.fn

    @property
    def location(self):
        return self.parsed.location

    @property
    def namespace(self):
        return self.parsed.namespace

    @property
    def source(self):
        return self.parsed.source

    def resolve(self, node):
        return self.parsed.resolve(node)

    def safe_resolve(self, node):
        try:
            return self.parsed.resolve(node)
        except Exception:  # noqa: BLE001 - a local or unknown name
            return None

    # ---- the program's collaborators (SPECIALISE, HELPER_COPY) --------------------
    @property
    def registry(self):
        return self.program.registry

    @property
    def runtime_objects(self):
        return self.program.runtime_objects

    @cached_property
    def call_kind(self):
        return self.program.call_kind(self.parsed)

    @cached_property
    def marker_of(self):
        return self.program.marker_resolver(self.parsed)

    def infer_kinds(self):
        """The kinds of the tree's variables, from the argument kinds (the
        function's local names read again from the tree first)."""
        self.parsed._locals = names_stored(self._tree.body) | set(self.parsed.arg_names)
        self.kinds = K.KindInference(self.call_kind, self.parsed.namespace).run(
            self._tree, self.arg_kinds)
