"""The on-disk cache of generated modules.

A generated module's file name is a hash of its source text together with
the versions of s2sad, its runtime helpers, numba and numpy. The source
already spells out the function, its helpers, the argument kinds and the
options, so equal keys mean equal code: any edit, to the function or a
helper, gives a new file. Files are written atomically (temporary file +
rename), so concurrent processes never see a half-written module; numba's
own cache (`cache=True`) sits in `__pycache__` beside them."""
import hashlib
import os
import sys
import tempfile

import numba
import numpy

from . import __version__
from .export import _runtime_source


def cache_dir():
    path = os.environ.get("S2SAD_CACHE_DIR")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "s2sad")
    return path


# runtime.py with every module it re-exports (runtime_shapes, runtime_forms), as exported
_RUNTIME_HASH = hashlib.sha256(_runtime_source().encode()).hexdigest()[:12]


def module_key(source, extra=""):
    h = hashlib.sha256()
    for part in (source, extra, __version__, _RUNTIME_HASH, numba.__version__,
                 numpy.__version__, sys.version):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def write_module(name, source):
    """Path of the module file for `name`, writing it if needed. Raises
    OSError if the cache directory cannot be written."""
    directory = cache_dir()
    path = os.path.join(directory, name + ".py")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == source:
                return path
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(source)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
