"""What the generated module holds beside the derivatives (a mixin of
program.Program): a copy of every Python helper the code calls (made by the
HELPER_COPY passes of frontend/pipeline.py), the module-level values it
reads (provided from the caller's namespace), blocks kept as Python, and
the late forms numba needs (numpy calls as runtime helpers, object-mode
blocks)."""
import builtins
import inspect

import gast
import numpy as np

from .emit.numba_forms import module_resolver, rewrite_forms
from .emit.objmode import wrap_object_mode
from .emit.python_code import block_source, copy_kinds, names_of
from .emit.unparse import stmt_source
from .errors import UnsupportedSyntaxError
from .frontend.pipeline import helper_copy
from .libraries import is_library_function
from .syntax import names_loaded, walk


class ModuleParts:
    """Needs, from the Program: registry, helpers (function -> its name in
    the module), module_names, globals, functions, python_functions,
    names_used, call_forms, call_kind, backend_module, _return_kinds,
    _fresh_module_name and _name_derivative_calls_in_copy."""

    def _collect_globals(self, fdef, parsed):
        # (the names the function binds: not a module-level array it writes
        # into, BUF[:] = v, which the generated module reads from the caller's)
        local = {n.id for n in walk(fdef) if isinstance(n, gast.Name) and isinstance(
            n.ctx, (gast.Store, gast.Del, gast.Param))} | {a.id for a in fdef.args.args}
        for n in sorted(names_loaded(fdef.body) - local):
            if n in self.module_names and self._other_helper(fdef, parsed, n):
                continue  # (renamed: a copy under a name of its own)
            if n in self.module_names or n in ("np", "math", "range", "len"):
                continue
            obj = parsed.namespace.get(n)
            if n not in parsed.namespace or obj is getattr(builtins, n, object()):
                continue  # builtins numba knows (min, max, abs, ...)
            if getattr(obj, "__s2sad_python__", None):  # a block kept as Python
                self._copy_python(n, obj, parsed)
                continue
            if inspect.isfunction(obj) and self.registry.lookup(obj) is None \
                    and not is_library_function(obj):
                self._copy_helper(n, obj)
                continue
            if getattr(obj, "__s2sad_custom__", None) == "vjp" and inspect.isfunction(obj.fn):
                # code run as it is (a custom_vjp's fwd or bwd, a helper's primal
                # copy) calls the function itself: its primal, under its name
                self._copy_helper(n, obj.fn)
                continue
            if getattr(obj, "__s2sad_custom__", None):
                continue  # calls to it were replaced by its forward function
            if n in self.globals and self.globals[n] is not obj:
                raise UnsupportedSyntaxError(
                    f"the name '{n}' meaning different things in different helpers",
                    parsed.location, None, "Rename one of them")
            self.globals[n] = obj

    def _late_forms(self, tree, parsed, kind_sets=()):
        """The forms numba lacks, in the function `tree` of the module:
        numpy calls as runtime helpers, and (given its kinds, one dict per
        specialisation it is compiled for) the statements numba cannot
        compile in object-mode blocks (emit/objmode.py)."""
        resolve = module_resolver(parsed.namespace, {"np": np})
        if self.call_forms:
            # (and 2 ** -k: numba's integer power is not Python's)
            rewrite_forms(tree, self.call_forms, resolve, powers=True)
        # (without kinds: the statements that assign nothing, print(i, end=" "))
        if self.backend_module is not None \
                and wrap_object_mode(tree, list(kind_sets) or [{}], resolve, self.module_names):
            self.globals["numba"] = self.backend_module()  # (numba.objmode: imported)

    def _add_function(self, fname, source, tree, first=False):
        self.functions.insert(0 if first else len(self.functions), (fname, source))
        self.names_used.update(n.id for n in walk(tree) if isinstance(n, gast.Name))

    def _other_helper(self, fdef, parsed, n):
        """Whether `n`, read in `fdef`, names a Python function other than the
        one the generated module calls `n` (a function passed as `logprob`
        whose own body calls the module's `logprob`): its loads in `fdef`
        then name that function's own copy (made if need be)."""
        obj = parsed.namespace.get(n)
        if not inspect.isfunction(obj) or self.registry.lookup(obj) is not None \
                or is_library_function(obj):
            return False
        if self.helpers.get(obj) == n or self.globals.get(n) is obj:
            return False
        if not any(m == n for m in self.helpers.values()):
            return False  # (a name of the module's own: the derivative's)
        m = self.helpers.get(obj)
        if m is None:
            m = self._fresh_module_name(n)
            self._copy_helper(m, obj)
        for node in walk(fdef):
            if isinstance(node, gast.Name) and node.id == n and isinstance(node.ctx, gast.Load):
                node.id = m
        return True

    def _copy_helper(self, n, fn):
        if fn in self.helpers:
            return
        self.helpers[fn] = n
        self.module_names.add(n)
        ctx = helper_copy(fn, self, n)  # (the HELPER_COPY list of frontend/pipeline.py)
        tree, parsed = ctx.tree, ctx.parsed
        self._name_derivative_calls_in_copy(tree, parsed)
        _drop_read_defaults(tree)
        # (one copy serves every specialisation: the kinds of each the program made)
        self._late_forms(tree, parsed, copy_kinds(
            tree, parsed, [k for f, k in list(self._return_kinds) if f is fn], self.call_kind))
        # (first: a name it reads may be renamed, calling another helper's copy)
        self._collect_globals(tree, parsed)
        self._add_function(n, stmt_source(tree) + "\n", tree, first=True)

    def _copy_python(self, n, fn, parsed):
        """A block kept as Python, in the module as it is written (called in
        an object-mode block: not compiled)."""
        if fn in self.helpers:
            return
        self.helpers[fn] = n
        self.module_names.add(n)
        tree, source, own = block_source(fn, n, parsed.location)
        self.python_functions.append((n, source))
        self.names_used.update(names_of(tree))
        self._collect_globals(tree, own)


def _drop_read_defaults(tree):
    """A copy's defaults that read names (`def h(x, y=y)`) are left out: its
    calls pass every parameter (calls/binder.py), and the names are the
    defining scope's, not the generated module's."""
    args = tree.args
    if all(isinstance(d, gast.Constant) or d is None for d in args.defaults + args.kw_defaults):
        return
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
