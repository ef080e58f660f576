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
