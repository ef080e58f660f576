"""Run-time helper for assignments through an index array that names a
position twice (numpy keeps the last write; transforms/checks/repeated_writes.py).

Re-exported by s2sad.runtime (generated code imports it from there); needs
numpy and numba only, so exported derivatives copy it in."""
import numpy as np
from s2sad.lazy_numba import register_jitable

__all__ = ["last_writes"]


@register_jitable
def last_writes(index, n):
    """1.0 where index[k] is the last entry naming its position of an axis
    of length n (negative entries count from the end), 0.0 elsewhere."""
    mask = np.ones(len(index))
    seen = np.zeros(n, dtype=np.bool_)
    for k in range(len(index) - 1, -1, -1):
        j = index[k] + n if index[k] < 0 else index[k]
        if seen[j]:
            mask[k] = 0.0
        seen[j] = True
    return mask
