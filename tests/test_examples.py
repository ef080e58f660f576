"""Every example script runs to completion (they assert their own results)."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


@pytest.mark.parametrize("script", sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py")))
def test_example_runs(script, tmp_path):
    env = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
