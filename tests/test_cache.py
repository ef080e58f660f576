"""The on-disk cache: a new process reuses compiled derivatives; edits to
the function or its helpers make new entries."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    import s2sad
    from model import loss

    start = time.perf_counter()
    df = s2sad.grad(loss, wrt=(0, 1))
    g = df(np.linspace(0.1, 1.0, 50), 0.3)
    elapsed = time.perf_counter() - start
    stats = df._last._call.stats
    print(json.dumps({"hits": sum(stats.cache_hits.values()),
                      "misses": sum(stats.cache_misses.values()),
                      "seconds": elapsed, "g1": float(g[1])}))
''')

MODEL = textwrap.dedent('''
    import math

    def helper(a, b):
        return a * math.sin(b){edit}

    def loss(x, c):
        s = 0.0
        for i in range(x.shape[0]):
            s += helper(x[i], c) * x[i]
        return s
''')


def run(tmp_path, edit=""):
    (tmp_path / "model.py").write_text(MODEL.format(edit=edit))
    (tmp_path / "script.py").write_text(SCRIPT)
    env = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def test_new_process_loads_from_cache(workdir):
    first = run(workdir)
    assert first["misses"] >= 1 and first["hits"] == 0
    second = run(workdir)
    assert second["hits"] >= 1 and second["misses"] == 0  # nothing recompiled
    assert second["g1"] == first["g1"]


def test_editing_a_helper_invalidates(workdir):
    run(workdir)
    edited = run(workdir, edit=" * 2.0")
    assert edited["misses"] >= 1 and edited["hits"] == 0
    again = run(workdir, edit=" * 2.0")
    assert again["hits"] >= 1 and again["misses"] == 0
