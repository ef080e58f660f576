import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# every test session compiles into a cache directory of its own (each
# pytest-xdist worker into one of its own, inside the session's)
os.environ.setdefault("S2SAD_CACHE_DIR", tempfile.mkdtemp(prefix="s2sad-test-cache-"))
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["S2SAD_CACHE_DIR"] = os.path.join(os.environ["S2SAD_CACHE_DIR"],
                                                 os.environ["PYTEST_XDIST_WORKER"])


# every derivative any test builds checks itself at its first call (plain
# twin, Taylor test, forward against reverse: s2sad/self_check.py), not only
# those whose test compares values; S2SAD_CHECK=0 switches it off
os.environ.setdefault("S2SAD_CHECK", "1")

# generated sources are not read back from disk (s2sad/source_cache.py): a
# test that patches the compiler must see its patch; tests/test_source_cache.py
# switches it on
os.environ.setdefault("S2SAD_SOURCE_CACHE", "0")

# a derivative with jit="auto" compiles at its first call, as jit=True does,
# instead of in the background (running as Python meanwhile): the tests of
# compiled code test compiled code; tests/test_background_compile.py
# switches it on
os.environ.setdefault("S2SAD_BACKGROUND_COMPILE", "0")


@pytest.fixture(params=[True, False], ids=["jit", "python"])
def jit(request):
    return request.param


def pytest_configure(config):
    # a derivative that silently stopped compiling would make every timing
    # claim wrong: the tests treat the fallback warning as an error unless
    # they expect it
    config.addinivalue_line("filterwarnings", "error::s2sad.NumbaFallbackWarning")


# Compiled (jit=True) cases run for a deterministic sample unless
# S2SAD_FULL=1: a sixth in the big parametrised files, a quarter elsewhere
# (every case also runs as Python, and numba compiling is most of the
# suite's time). A case kept at every 6th or 4th is kept at every 3rd or
# 2nd: halving a rate never starts compiling a case the larger sample did
# not. CI stays within its budget; the full run is a command.
FULL = os.environ.get("S2SAD_FULL", "") not in ("", "0")
_GRID_MODULES = {"test_forward.py", "test_rules.py", "test_binding.py", "test_functions.py",
                 "test_errors.py", "test_numba_forms.py", "test_pytrees.py",
                 "test_containers.py", "test_float32.py", "test_language.py",
                 "test_higher_linear.py", "test_higher_nonlinear.py"}
# whole programs as their authors wrote them: compiled every time
_EVERY_CASE_MODULES = {"test_adbench.py"}


def pytest_collection_modifyitems(config, items):
    if FULL:
        return
    import zlib
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if params.get("jit") is not True \
                or os.path.basename(str(item.fspath)) in _EVERY_CASE_MODULES:
            kept.append(item)
            continue
        every = 6 if os.path.basename(str(item.fspath)) in _GRID_MODULES else 4
        (kept if zlib.crc32(item.nodeid.encode()) % every == 0 else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
