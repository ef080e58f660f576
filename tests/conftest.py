import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# every test session compiles into a cache directory of its own
os.environ.setdefault("S2SAD_CACHE_DIR", tempfile.mkdtemp(prefix="s2sad-test-cache-"))


@pytest.fixture(params=[True, False], ids=["jit", "python"])
def jit(request):
    return request.param


def pytest_configure(config):
    # a derivative that silently stopped compiling would make every timing
    # claim wrong: the tests treat the fallback warning as an error unless
    # they expect it
    config.addinivalue_line("filterwarnings", "error::s2sad.NumbaFallbackWarning")
