"""Jacobians, Hessians and Hessian-vector products, built from the compiled
vjp (reverse mode) and jvp (forward mode) derivatives.

Shapes follow tf.GradientTape.jacobian: output shape + input shape."""
import functools
import inspect
import threading

import numpy as np

from . import pytrees, self_check, sparse_jacobians, travel, vector_mode
from .api import Derivative, _as_value, jvp, vjp
from .errors import NoForwardModeError
from .transforms.frontend.containers.aux import rebuild_aux
from .partials import fixed_parameters, unpartial
from .primitives import as_function
from .transforms.errors import S2sadTypeError, S2sadValueError


class _Transform:
    """Shared plumbing: bind arguments, find the one `wrt` argument."""

    def __init__(self, fn, wrt, jit, optimise=None, check=None):
        given, fn = fn, as_function(unpartial(fn))
        # (as grad's: the plain derivative, self-checks; passed to the parts)
        self.options = dict(optimise=optimise, check=check)
        functools.update_wrapper(self, fn)
        self._given = given  # what a pickle refers to (s2sad.travel)
        self.fn, self.jit = fn, jit
        self.signature = inspect.signature(fn)
        every = list(self.signature.parameters)
        params = [p for p in every if p not in fixed_parameters(fn)]  # a partial's own
        if isinstance(wrt, str):
            if wrt not in params:
                raise S2sadValueError(f"wrt names '{wrt}', but {fn.__name__} has no argument of "
                                 f"that name; its arguments are {', '.join(params)}")
            wrt = params.index(wrt)
        if not isinstance(wrt, int) or not -len(params) <= wrt < len(params):
            raise S2sadValueError(f"wrt must be one argument (position or name) of {fn.__name__}")
        self.wrt = every.index(params[wrt])

    def _sparse_setup(self, sparse, sparsity, what):
        """sparse=True: results as scipy sparse arrays, of the pattern
        `sparsity` (None: probed, sparse_jacobians.Patterns)."""
        self.sparse = bool(sparse) or sparsity is not None
        self.sparsity = sparsity
        where = f"{what} of {self.fn.__name__}"
        self._patterns = sparse_jacobians.Patterns(sparsity, where, symmetric=what == "hessian")
        if self.sparse and getattr(self, "has_aux", False) and what == "hessian":
            raise S2sadValueError(f"{where}: sparse=True with has_aux=True is not supported; "
                                  f"return the aux from a function of its own")

    def _verify(self, result, pattern, products, shape):
        """The self-check of a sparse result, once per pattern (check=True
        or S2SAD_CHECK=1): sparse_jacobians.verify."""
        if id(pattern) not in self._patterns.verified and self_check.wanted(self.options["check"]):
            sparse_jacobians.verify(result, products, shape, self._patterns.where)
            self._patterns.verified.add(id(pattern))

    def __reduce__(self):
        """Pickles as a reference to the function plus the options."""
        options = dict(wrt=list(self.signature.parameters)[self.wrt], jit=self.jit,
                       **self.options)
        if getattr(self, "_parts", None) is not None:
            options["wrt"] = tuple(part.signature_names()[part.wrt] for part in self._parts)
        if isinstance(self, jacobian):
            options["mode"] = self.mode
        if getattr(self, "sparse", False):
            options.update(sparse=True, sparsity=self.sparsity)
        if getattr(self, "has_aux", False):
            options["has_aux"] = True
        return travel.rebuild, (type(self), travel.reference(self._given), options)

    def wait_compiled(self):
        """Wait until the compiled code of the derivatives this transform
        calls is in use (Derivative.wait_compiled). Returns self."""
        for value in vars(self).values():  # (derivatives, tuples and dicts of them)
            values = value.values() if isinstance(value, dict) else \
                value if isinstance(value, tuple) else (value,)
            for part in values:
                if hasattr(part, "wait_compiled"):
                    part.wait_compiled()
        return self

    def bind(self, args, kwargs, containers=False):
        """The argument values and the one differentiated. `containers`:
        whether this transform takes container arguments (pytrees)."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = [_as_value(v) for v in bound.arguments.values()]
        x = values[self.wrt]
        if not containers and any(pytrees.is_container(v) for v in values):
            raise S2sadTypeError(f"{type(self).__name__} of {self.fn.__name__}: container arguments "
                            f"(dicts, NamedTuples, lists of arrays) are not supported here; "
                            f"jacobian, grad, vjp and jvp take them. Pass their leaves as "
                            f"separate arguments.")
        if containers and pytrees.is_container(x):
            return values, x
        if not isinstance(x, (float, np.ndarray)):
            raise S2sadTypeError(f"the argument differentiated must be a float or a float array, "
                            f"not {type(x).__name__}")
        return values, x

    def call(self, fn, values, *extra):
        """`fn(*values, *extra)` with `values` bound in signature order: the
        keyword-only parameters' values go by keyword, after the extra
        (seed or tangent) positional argument."""
        params = list(self.signature.parameters.values())
        n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        keywords = {p.name: v for p, v in zip(params[n:], values[n:])}
        return fn(*values[:n], *extra, **keywords)


class jacobian(_Transform):
    """`jacobian(f, wrt=0, mode="auto")(*args)`: the Jacobian of the output
    of `f` w.r.t. one argument, of shape output shape + argument shape.
    mode "rev" computes one vjp per output element, "fwd" one jvp per input
    element; "auto" picks the one with fewer passes (reverse where a part
    of `f` has no forward mode: a custom vjp).

    A tuple output gives a tuple of Jacobians, one per element of the
    output, each of that element's shape + the argument's shape (as
    jax.jacrev; the elements may differ in shape). A tuple `wrt` gives a
    tuple of those, one per argument: `jacobian(f, wrt=(0, 1))` of an `f`
    returning `(u, v)` is `((du/da0, dv/da0), (du/da1, dv/da1))`.
    `has_aux=True` (as jax.jacrev): `f` returns `(output, aux)`, the result
    is `(jacobian of the output, aux)`.

    All the passes run in one call into the generated code (vector_mode.py).
    `sparse=True`: a scipy.sparse.csr_array of shape (outputs, inputs), the
    output and the argument flattened, computed by colouring (one pass per
    colour of the columns, or of the rows in reverse mode; "auto": the mode
    with fewer colours). The pattern is `sparsity=` (a scipy sparse matrix
    or a boolean array of that shape; giving it implies sparse=True), else
    probed at the first call for each kind of arguments: the dense Jacobian
    at two random points near the arguments, assumed to hold at every point
    (structural sparsity, as ColPack assumes). Takes one array output and a
    float or float array argument."""

    _parts = None  # for a tuple wrt: the jacobian w.r.t. each (as jax.jacrev's argnums)

    def __init__(self, fn, wrt=0, *, mode="auto", jit="auto", has_aux=False, sparse=False,
                 sparsity=None, optimise=None, check=None):
        self.has_aux = bool(has_aux)
        if isinstance(wrt, tuple):
            if not wrt:
                raise S2sadValueError("wrt must name at least one argument")
            if sparsity is not None:
                raise S2sadValueError("sparsity= gives the pattern of one Jacobian: pass one wrt "
                                      "argument with it (one jacobian per argument)")
            self._parts = tuple(jacobian(fn, w, mode=mode, jit=jit, has_aux=has_aux,
                                         sparse=sparse, optimise=optimise, check=check)
                                for w in wrt)
            wrt = wrt[0]
        super().__init__(fn, wrt, jit, optimise, check)
        self._sparse_setup(sparse, sparsity, "jacobian")
        if mode not in ("auto", "rev", "fwd"):
            raise S2sadValueError(f"mode must be 'auto', 'rev' or 'fwd', not {mode!r}")
        self.mode = mode
        self._vjp = vjp(fn, wrt=self.wrt, jit=jit, has_aux=has_aux, **self.options)
        self._jvp = jvp(fn, wrt=self.wrt, jit=jit, has_aux=has_aux, **self.options)
        self._outputs = {}  # argument kinds (sparse_jacobians.key_of) -> output shapes
        self._local = threading.local()  # the values the passes of a call computed

    def __call__(self, *args, **kwargs):
        if self._parts is not None:
            results = [part(*args, **kwargs) for part in self._parts]
            if self.has_aux:  # (one aux: every part's is the same call's)
                return tuple(r[0] for r in results), results[0][1]
            return tuple(results)
        values, x = self.bind(args, kwargs, containers=True)
        key = self._output_key(values, x)
        if key in self._outputs:
            result = self._with_known_output(values, x, self._outputs[key])
            if result is not None:
                return result
        raw = self.call(self.fn, values)
        if key is not None and not self.has_aux:
            self._outputs[key] = _structure(raw)
        if self.has_aux:
            if not isinstance(raw, (tuple, list)) or len(raw) != 2:
                raise S2sadTypeError(f"jacobian of {self.fn.__name__}: expected a function with aux "
                                f"output to return a two-element tuple (output, aux), but it "
                                f"returned {type(raw).__name__} {raw!r}")
            raw, aux = raw
            return self._jacobian(values, x, raw), aux
        return self._jacobian(values, x, raw)

    def _output_key(self, values, x):
        """What the output's shapes are kept for (sparse_jacobians.key_of),
        or None: has_aux (the aux is the Python function's), containers."""
        if self.has_aux or not isinstance(x, (float, np.ndarray)) \
                or not vector_mode.plain(values):
            return None
        return sparse_jacobians.key_of(values)

    def _with_known_output(self, values, x, structure):
        """The Jacobian without running `f` as Python to learn its output's
        shapes: with those of an earlier call of these argument kinds, kept
        only if every pass's value (computed by the compiled passes) has
        them; else None (the caller runs `f` and starts again)."""
        self._local.values = []
        try:
            result = self._jacobian(values, x, _placeholder(structure))
            seen = self._local.values
            if seen and all(v is not None and _structure(v) == structure for v in seen):
                return result
        except Exception:  # noqa: BLE001 - the general path raises it again, or not
            pass
        finally:
            self._local.values = None
        return None

    def _seen(self, value):
        """Keep a batch's value for _with_known_output."""
        if getattr(self._local, "values", None) is not None:
            self._local.values.append(value)

    def _jacobian(self, values, x, raw):
        """The Jacobian of the output `raw`: for a tuple output, a tuple of
        Jacobians, one per element of the output (as jax.jacrev), each of
        that element's shape + the argument's shape."""
        tuple_out = isinstance(raw, tuple)
        if self.sparse:
            return self._sparse(values, x, raw)
        outs = [np.asarray(r) for r in raw] if tuple_out else [np.asarray(raw)]
        of = self._of_container if pytrees.is_container(x) else self._of_array
        size, inputs = sum(o.size for o in outs), sum(np.size(p) for p in pytrees.leaves(x))
        if self.mode != "auto":
            blocks = of(values, x, outs, tuple_out, self.mode)
        elif size <= inputs:
            blocks = of(values, x, outs, tuple_out, "rev")
        else:
            try:
                blocks = of(values, x, outs, tuple_out, "fwd")
            except NoForwardModeError:  # (a custom vjp: reverse mode only, as in JAX)
                blocks = of(values, x, outs, tuple_out, "rev")
        return tuple(blocks) if tuple_out else blocks[0]

    def _of_array(self, values, x, outs, tuple_out, mode):
        """The Jacobian of each of `outs` w.r.t. the float or array x, all
        rows (reverse) or columns (forward) in one batch (vector_mode)."""
        in_shape, dtype = np.shape(x), _dtype(x)
        if mode == "rev":
            total = sum(out.size for out in outs)
            seeds, start = [], 0
            for out in outs:  # row `start + k` picks element k of this output
                seed = np.zeros((total, out.size), _dtype(out))
                seed[start + np.arange(out.size), np.arange(out.size)] = 1.0
                seeds.append(seed.reshape((total,) + out.shape))
                start += out.size
            rows = self._vjps(values, seeds)
            bounds = np.cumsum([0] + [out.size for out in outs])
            return [rows[lo:hi].reshape(out.shape + in_shape)
                    for lo, hi, out in zip(bounds[:-1], bounds[1:], outs)]
        n = np.size(x)
        cols = self._jvps(values, np.eye(n, dtype=dtype).reshape((n,) + in_shape),
                          [out.shape for out in outs], tuple_out)
        return [np.moveaxis(block.reshape(in_shape + out.shape), list(range(len(in_shape))),
                            list(range(out.ndim, out.ndim + len(in_shape))))
                for block, out in zip(cols, outs)]

    def _jvps(self, values, tangents, out_shapes, tuple_out):
        """The jvps along `tangents` (first axis: one per tangent), stacked,
        one block per output, in one batch."""
        blocks = [np.empty((tangents.shape[0],) + shape, tangents.dtype) for shape in out_shapes]
        picks = [(1, j) for j in range(len(blocks))] if tuple_out else [(1,)]
        self._seen(vector_mode.batch(self._jvp, values, [tangents], picks, blocks,
                                     lambda t: self.call(self._jvp, values, t)[:2]))
        return blocks

    def _vjps(self, values, seeds):
        """The vjps of the seeds (a list, one array per output, first axis:
        one per seed), stacked, in one batch."""
        x = values[self.wrt]
        rows = np.empty((seeds[0].shape[0],) + np.shape(x), _dtype(x))
        call = (lambda s: (None, self._row(self.call(self._vjp, values, s))))
        self._seen(vector_mode.batch(self._vjp, values, seeds, [(1,)], [rows], call))
        return rows

    def _sparse(self, values, x, raw):
        """The Jacobian as a scipy.sparse.csr_array (outputs x inputs,
        flattened), by compressed passes (sparse_jacobians.py)."""
        if isinstance(raw, tuple) or not isinstance(x, (float, np.ndarray)):
            raise S2sadValueError(f"jacobian of {self.fn.__name__} with sparse=True takes one "
                                  f"float or float array argument and one array output (it "
                                  f"returned {type(raw).__name__}); for a tuple output, "
                                  f"differentiate each element in a function of its own")
        out = np.asarray(raw)
        m, n = out.size, np.size(x)

        def dense_at(probe):  # the dense (m, n) Jacobian at other arguments
            mode = "rev" if m <= n else "fwd"
            try:
                block = self._of_array(probe, probe[self.wrt], [out], False, mode)[0]
            except NoForwardModeError:
                block = self._of_array(probe, probe[self.wrt], [out], False, "rev")[0]
            return block.reshape(m, n)

        pattern = self._patterns.get(values, self.wrt, (m, n), dense_at)
        vjps = (lambda seeds: self._vjps(values, [seeds]))
        result = sparse_jacobians.jacobian(
            pattern, self.mode, x, out.shape,
            lambda tangents: self._jvps(values, tangents, [out.shape], False)[0], vjps,
            _dtype(x))
        self._verify(result, pattern, lambda w: vjps(w[None])[0], out.shape)
        return result

    def _row(self, result):
        """A vjp's gradient (with has_aux, its result is (gradient, aux))."""
        return result[0] if self.has_aux else result

    def _of_container(self, values, x, outs, tuple_out, mode):
        """As jax.jacobian: per output, the structure of x, each float leaf
        holding its block (output shape + leaf shape); an int leaf's block
        is zeros."""
        where = f"jacobian of {self.fn.__name__}"
        structure = pytrees.structure_of(x, where, (self.signature_names()[self.wrt],))
        parts = pytrees.leaves(x)
        sizes = [np.size(p) for p in parts]
        dtype = np.result_type(*[p for p in parts if pytrees.is_float(p)] or [float])
        blocks = [[np.zeros((out.size,) + np.shape(p), dtype) for p in parts] for out in outs]
        if mode == "rev":
            for j, out in enumerate(outs):
                for k in range(out.size):
                    g = self._row(self.call(self._vjp, values, _seed(outs, j, k, tuple_out)))
                    for block, leaf in zip(blocks[j], pytrees.leaves(g)):
                        block[k] = leaf
        else:
            for i, p in enumerate(parts):
                if not pytrees.is_float(p):
                    continue
                for e in range(sizes[i]):
                    tangent = [np.zeros_like(q) if np.ndim(q) else 0.0 for q in parts]
                    one = np.zeros(sizes[i], np.asarray(p).dtype)
                    one[e] = 1.0
                    tangent[i] = one.reshape(np.shape(p)) if np.ndim(p) else one[0]
                    col = self.call(self._jvp, values, pytrees.unflatten(structure, tangent, x))[1]
                    for j, part in enumerate(col if tuple_out else (col,)):
                        blocks[j][i].reshape(outs[j].size, sizes[i])[:, e] = np.ravel(part)
        return [pytrees.unflatten(structure, [b.reshape(out.shape + np.shape(p))
                                              for b, p in zip(block, parts)], x)
                for block, out in zip(blocks, outs)]

    def signature_names(self):
        return list(self.signature.parameters)


class batch_jacobian(_Transform):
    """`batch_jacobian(f, wrt=0)(x, ...)` for x of shape (batch, ins) and an
    output of shape (batch, outs): the (batch, outs, ins) per-example
    Jacobians, one vjp per output column (never the (batch, outs, batch,
    ins) full Jacobian). Valid only when examples do not interact (no batch
    normalisation or other batch-coupled operation), as in TensorFlow.
    `has_aux=True`: `f` returns `(output, aux)`, the result is
    `(batch jacobian of the output, aux)`."""

    def __init__(self, fn, wrt=0, *, jit="auto", has_aux=False, optimise=None, check=None):
        super().__init__(fn, wrt, jit, optimise, check)
        self.has_aux = bool(has_aux)
        self._vjp = vjp(fn, wrt=self.wrt, jit=jit, has_aux=self.has_aux, **self.options)

    def __call__(self, *args, **kwargs):
        values, x = self.bind(args, kwargs)
        raw = self.call(self.fn, values)
        if self.has_aux:
            raw, aux = _output_and_aux(raw, "batch_jacobian", self.fn)
        out = np.asarray(raw)
        if np.ndim(x) < 1 or out.ndim < 1 or out.shape[0] != np.shape(x)[0]:
            raise S2sadValueError(f"batch_jacobian needs an argument and an output with the same "
                             f"first (batch) axis; got {np.shape(x)} and {out.shape}")
        batch = out.shape[0]
        outs = out.reshape(batch, -1).shape[1]
        result = np.empty((batch, outs) + np.shape(x)[1:])
        for j in range(outs):
            seed = np.zeros((batch, outs))
            seed[:, j] = 1.0
            column = self.call(self._vjp, values, seed.reshape(out.shape))
            result[:, j] = column[0] if self.has_aux else column
        result = result.reshape(out.shape + np.shape(x)[1:])
        return (result, aux) if self.has_aux else result


class hvp(_Transform):
    """`hvp(f, wrt=0)(*args, v)`: the Hessian of scalar `f` times `v`, by
    forward mode over the generated reverse-mode gradient (the Hessian is
    never formed). `has_aux=True`: `f` returns `(output, aux)`, the result
    is `(Hessian of the output times v, aux)`; the aux is the one the
    gradient's forward sweep computed (the jvp's primal value)."""

    def __init__(self, fn, wrt=0, *, jit="auto", has_aux=False, optimise=None, check=None):
        super().__init__(fn, wrt, jit, optimise, check)
        self.has_aux = bool(has_aux)
        self._grad = Derivative(fn, self.wrt, jit, "grad", True, has_aux=self.has_aux,
                                **self.options)
        self._grad.lazy_budget = False  # (differentiated again: no check_memory lines)
        self._grad.split_recursion = False  # (nor record stacks of recursive calls)
        self._jvps = {}

    def __call__(self, *args, **kwargs):
        *args, v = args
        values, x = self.bind(args, kwargs)
        entry, forward = self.forward_of_gradient(values)
        (value, _), (_, hv) = forward(*values, _as_value(v))
        if self.has_aux:  # the generated gradient returns ((output, aux), gradient)
            return hv, rebuild_aux(entry.generated.aux_structure, value[1])
        return hv

    def forward_of_gradient(self, values):
        """The gradient's entry for these arguments, and the jvp of its
        generated function (which returns ((value, _), (_, H v)))."""
        entry = self._grad.specialisation_for(values)
        generated = entry.module.python.__dict__[entry.fname]
        key = id(generated)
        if key not in self._jvps:  # the gradient's own derivative
            self._jvps[key] = jvp(generated, wrt=self.wrt, jit=self.jit, **self.options)
        return entry, self._jvps[key]


class hessian(_Transform):
    """`hessian(f, wrt=0)(*args)`: shape argument shape + argument shape,
    one Hessian-vector product per element of the argument, all in one call
    into the generated code. `has_aux=True` (as jax.hessian): `f` returns
    `(output, aux)`, the result is `(Hessian of the output, aux)`.
    `sparse=True` (or a `sparsity=` pattern): a scipy.sparse.csr_array of
    shape (inputs, inputs), flattened, one product per colour of the
    columns of the pattern (probed as for jacobian's, and made symmetric);
    not with has_aux."""

    def __init__(self, fn, wrt=0, *, jit="auto", has_aux=False, sparse=False, sparsity=None,
                 optimise=None, check=None):
        super().__init__(fn, wrt, jit, optimise, check)
        self.has_aux = bool(has_aux)
        self._sparse_setup(sparse, sparsity, "hessian")
        self._hvp = hvp(fn, wrt=self.wrt, jit=jit, has_aux=self.has_aux, **self.options)

    def __call__(self, *args, **kwargs):
        values, x = self.bind(args, kwargs)
        shape = np.shape(x)
        n = int(np.prod(shape)) if shape else 1
        if self.has_aux:
            return self._with_aux(values, shape, n)
        if self.sparse:
            return self._sparse(values, x)
        cols = self.products(values, np.eye(n, dtype=_dtype(x)).reshape((n,) + shape))
        return cols.reshape(n, n).T.reshape(shape + shape)

    def products(self, values, vectors):
        """The Hessian times each of `vectors` (first axis: one per
        vector), stacked, in one batch (vector_mode)."""
        x = values[self.wrt]
        _, forward = self._hvp.forward_of_gradient(values)
        out = np.empty(vectors.shape, _dtype(x))
        vector_mode.batch(forward, values, [vectors], [(1, 1)], [out],
                          lambda v: forward(*values, v))
        return out

    def _sparse(self, values, x):
        """The Hessian as a scipy.sparse.csr_array (inputs x inputs,
        flattened), by compressed products (sparse_jacobians.py)."""
        n, shape = np.size(x), np.shape(x)

        def dense_at(probe):  # the dense (n, n) Hessian at other arguments
            eye = np.eye(n, dtype=_dtype(x)).reshape((n,) + shape)
            return self.products(probe, eye).reshape(n, n).T

        pattern = self._patterns.get(values, self.wrt, (n, n), dense_at)
        result = sparse_jacobians.hessian(pattern, x, lambda v: self.products(values, v),
                                          _dtype(x))
        self._verify(result, pattern, lambda w: self.products(values, w[None])[0], shape)
        return result

    def _with_aux(self, values, shape, n):
        """(Hessian, aux): one product per element of the argument."""
        x = values[self.wrt]
        cols = np.empty((n, n), _dtype(x))
        aux = None
        for k in range(n):
            v = np.zeros(n, _dtype(x))
            v[k] = 1.0
            hv, aux = self.call(self._hvp, values, v.reshape(shape) if shape else v[0])
            cols[k] = np.ravel(hv)  # (every product's aux is the same call's)
        if n == 0:  # no product was computed: the function's own aux
            aux = _output_and_aux(self.call(self.fn, values), "hessian", self.fn)[1]
        return cols.T.reshape(shape + shape), aux


def _output_and_aux(raw, what, fn):
    """(output, aux) of a function with aux output, or JAX's TypeError."""
    if not isinstance(raw, (tuple, list)) or len(raw) != 2:
        raise S2sadTypeError(f"{what} of {fn.__name__}: expected a function with aux output to "
                        f"return a two-element tuple (output, aux), but it returned "
                        f"{type(raw).__name__} {raw!r}")
    return raw[0], raw[1]


def _structure(raw):
    """The shapes and dtypes of an output: a tuple's, or one array's."""
    if isinstance(raw, tuple):
        return ("tuple",) + tuple((np.shape(r), np.asarray(r).dtype.str) for r in raw)
    return (np.shape(raw), np.asarray(raw).dtype.str)


def _placeholder(structure):
    """An output of that structure (its values unused)."""
    if structure[0] == "tuple":
        return tuple(np.zeros(shape, dtype) for shape, dtype in structure[1:])
    return np.zeros(*structure)


def _seed(outs, j, k, tuple_out):
    """The seed picking element `k` of output `j` (of the outputs `outs`): a
    tuple of seeds for a tuple output, zero for the other elements."""
    seeds = []
    for i, out in enumerate(outs):
        seed = np.zeros(out.size, _dtype(out))
        if i == j:
            seed[k] = 1.0
        seeds.append(seed.reshape(out.shape) if out.shape else seed[0])
    return tuple(seeds) if tuple_out else seeds[0]


def _dtype(x):
    """float32 for a float32 argument or output, else float64."""
    dtype = getattr(x, "dtype", None)
    return dtype if dtype is not None and dtype == np.float32 else np.float64
