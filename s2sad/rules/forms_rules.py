"""The helpers of s2sad.runtime_forms stand for numpy calls numba cannot
compile (`mean_axis(x, axis=0)` is `np.mean(x, axis=0)`): each takes the
rule of the numpy function it stands for, so a generated derivative that
calls one can be differentiated again. Imported after every numpy rule."""
from .. import runtime_forms
from ..registry import REGISTRY

for _name, _fn in runtime_forms.STANDS_FOR.items():
    REGISTRY.register(getattr(runtime_forms, _name), REGISTRY.lookup(_fn))

# x.astype(dtype), np.squeeze / diff / repeat / roll / sort along an axis, np.pad
# (s2sad.runtime_forms_axes): the same table the late pass reads
from .. import runtime_forms_axes  # noqa: E402

runtime_forms.FORMS.extend(runtime_forms_axes.FORMS)
for _name, _fn in runtime_forms_axes.STANDS_FOR.items():
    if _fn is not None:
        REGISTRY.register(getattr(runtime_forms_axes, _name), REGISTRY.lookup(_fn))

# np.inner (s2sad.runtime_stacks)
from .. import runtime_stacks  # noqa: E402

runtime_forms.FORMS.extend(runtime_stacks.FORMS)
for _name, _fn in runtime_stacks.STANDS_FOR.items():
    REGISTRY.register(getattr(runtime_stacks, _name), REGISTRY.lookup(_fn))

# python_power(a, b) is a ** b (emit/numba_forms.py: exponents that may be negative integers)
import operator  # noqa: E402

from .. import runtime_values  # noqa: E402

REGISTRY.register(runtime_values.python_power, REGISTRY.lookup(operator.pow))
