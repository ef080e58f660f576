"""The on-disk cache of generated modules.

A generated module's file name is a hash of its source text together with
the code of s2sad itself (every module of the package, the compiler passes
and runtime helpers included, by size and modification time), and the versions of numba, numpy and Python.
The source already spells out the function, its helpers, the argument kinds
and the options, so equal keys mean equal code: any edit, to the function,
a helper or s2sad, gives a new file. (numba's cache does not notice a change
in a function the cached one calls; objects the generated module takes from
s2sad, not from its own text, are such functions.) Files are written atomically (temporary file +
rename), so concurrent processes never see a half-written module; numba's
own cache (`cache=True`) sits in `__pycache__` beside them."""
import hashlib
import importlib.util
import os
import sys
import tempfile

import numpy

from .version import __version__


def cache_dir():
    path = os.environ.get("S2SAD_CACHE_DIR")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "s2sad")
    return path


def _package_roots():
    """s2sad's directory and its compiler passes' (installed elsewhere in a
    development checkout)."""
    import s2sad.transforms
    return [os.path.dirname(os.path.abspath(__file__))] + list(s2sad.transforms.__path__)


def _package_hash(roots):
    """A hash of every Python file under `roots`, in a fixed order: of its
    size and modification time, as Python's own bytecode cache checks a
    source (reading all 300 files took 4.5 ms of every process's first
    gradient; a stat is a fifth of that)."""
    h = hashlib.sha256()
    for root in dict.fromkeys(os.path.realpath(r) for r in roots):
        files = []
        for dirpath, dirnames, names in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "transforms"))
            files += [os.path.join(dirpath, n) for n in names if n.endswith(".py")]
        for path in sorted(files):
            stat = os.stat(path)
            h.update(f"{os.path.relpath(path, root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()[:12]


_PACKAGE_HASH = _package_hash(_package_roots())


def _numba_version():
    """numba's version, without importing numba (a few tenths of a second):
    its _version.py, which says it."""
    spec = importlib.util.find_spec("numba")
    try:
        with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:12]
    except (OSError, AttributeError, TypeError):
        from importlib.metadata import version
        return version("numba")


_NUMBA_VERSION = _numba_version()


def module_key(source, extra=""):
    h = hashlib.sha256()
    for part in (source, extra, __version__, _PACKAGE_HASH, _NUMBA_VERSION,
                 numpy.__version__, sys.version):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def remembered(name, check, extra=""):
    """check()'s answer (True or False), kept in the cache directory for this
    version of s2sad, Python, numpy and numba: a fact about the installation
    proven once (any edit to s2sad gives a new key). Computed again if the
    file cannot be read or written."""
    path = os.path.join(cache_dir(), f"{name}-{module_key(name, extra)}.fact")
    try:
        with open(path, encoding="utf-8") as f:
            answer = f.read()
        if answer in ("True", "False"):
            return answer == "True"
    except OSError:
        pass
    answer = bool(check())
    try:
        write_file(path, str(answer))
    except OSError:
        pass
    return answer


def write_file(path, text):
    """Write `text` (str, or bytes) to `path` atomically (a temporary file
    renamed)."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path),
                               suffix=".tmp")
    try:
        binary = isinstance(text, bytes)
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_module(name, source):
    """Path of the module file for `name`, writing it if needed. Raises
    OSError if the cache directory cannot be written."""
    directory = cache_dir()
    path = os.path.join(directory, name + ".py")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == source:
                return path
    write_file(path, source)
    return path
