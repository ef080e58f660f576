"""`python -m s2sad cache`: where s2sad's on-disk cache is and what it holds;
`--clear` removes what s2sad wrote there.

The cache (S2SAD_CACHE_DIR, else ~/.cache/s2sad) grows with every function,
argument kinds and version of s2sad, numba, numpy or Python met, and is
never pruned (as numba's own). Clearing it loses nothing but time: the next
first call of each derivative generates and compiles it again. Only s2sad's
own files go (generated modules `s2sad_*.py`, numba's machine code for them
in `__pycache__`, the compiled markers, kept sources and remembered facts),
so a directory shared with other files keeps them. A process running
meanwhile keeps the code it loaded; a compile it has in flight writes its
files after the clear, whole (every file is written atomically)."""
import os
import re
import sys

from . import cache


# cache.remembered's files: a name, then a module_key (20 hex digits)
_FACT = re.compile(r"^[a-z_]+-[0-9a-f]{20}\.fact$")


def add_parser(commands):
    sub = commands.add_parser("cache", help="show where the cache is and its size; --clear it",
                              description=__doc__.split("\n\n")[0])
    sub.add_argument("--clear", action="store_true",
                     help="remove s2sad's files from the cache directory")
    return sub


def owned_files(directory):
    """Paths of the files s2sad wrote in `directory` (its cache), by kind:
    {"modules", "machine code", "sources", "other"} -> [path]."""
    found = {"modules": [], "machine code": [], "sources": [], "other": []}
    for name in _listing(directory):
        path = os.path.join(directory, name)
        if name.startswith("s2sad_") and name.endswith(".py"):
            found["modules"].append(path)
        elif name.startswith("s2sad_") and name.endswith(".compiled") or _FACT.match(name):
            found["other"].append(path)
    pycache = os.path.join(directory, "__pycache__")
    for name in _listing(pycache):
        if name.startswith("s2sad_"):
            found["machine code"].append(os.path.join(pycache, name))
    sources = os.path.join(directory, "sources")
    for name in _listing(sources):
        if name.endswith(".pickle"):
            found["sources"].append(os.path.join(sources, name))
    return found


def _listing(directory):
    try:
        return sorted(os.listdir(directory))
    except OSError:  # (not there yet, or not a directory)
        return []


def _size(paths):
    total = 0
    for p in paths:
        try:
            total += os.path.getsize(p)
        except OSError:  # (removed meanwhile by another process's clear)
            pass
    return total


def _megabytes(n):
    return f"{n / 1e6:.1f} MB"


def run(options):
    directory = cache.cache_dir()
    found = owned_files(directory)
    everything = [p for paths in found.values() for p in paths]
    if not options.clear:
        print(f"s2sad cache: {directory}"
              + ("" if os.path.isdir(directory) else " (not created yet)"))
        for kind, paths in found.items():
            print(f"  {kind}: {len(paths)} files, {_megabytes(_size(paths))}")
        print(f"  total: {_megabytes(_size(everything))} "
              f"(python -m s2sad cache --clear removes it; S2SAD_CACHE_DIR moves it)")
        if os.environ.get("NUMBA_CACHE_DIR"):
            print(f"  (NUMBA_CACHE_DIR is set: numba keeps the machine code in "
                  f"{os.environ['NUMBA_CACHE_DIR']}, which this command does not touch)")
        return 0
    freed, failed = 0, []
    for path in everything:
        size = _size([path])
        try:
            os.unlink(path)
            freed += size
        except FileNotFoundError:  # (another process cleared it first)
            pass
        except OSError as exc:
            failed.append(f"{path}: {exc.strerror}")
    for sub in ("sources", "__pycache__"):
        try:  # (only when empty: anything else in it is not s2sad's)
            os.rmdir(os.path.join(directory, sub))
        except OSError:
            pass
    print(f"s2sad cache {directory}: removed {len(everything) - len(failed)} files, "
          f"{_megabytes(freed)}")
    if failed:
        print("s2sad: could not remove:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0
