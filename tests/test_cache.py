"""The on-disk cache: a new process reuses compiled derivatives; editing the
function, a helper or a kernel it calls, or upgrading s2sad makes new
entries; concurrent processes never leave a broken file; a read-only or
full cache directory falls back to compiling in memory; threads compile
once."""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import s2sad
from s2sad import api, backend, cache

SCRIPT = textwrap.dedent('''
    import json, os, warnings
    import numpy as np
    import s2sad
    warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
    if os.environ.get("FAKE_S2SAD_VERSION"):  # an upgrade of s2sad
        s2sad.cache.__version__ = os.environ["FAKE_S2SAD_VERSION"]
    import model

    out, seen = {}, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.CacheWarning)
        for name, args in [("loss", (np.linspace(0.1, 1.0, 50), 0.3)),
                           ("energy", (np.linspace(0.1, 1.0, 5),)),
                           ("uses_kernel", (np.linspace(0.1, 1.0, 5),)),
                           ("cube", (1.5,))]:
            df = s2sad.grad(getattr(model, name))
            g = df(*args)
            stats = df._last._call.stats
            out[name] = {"hits": sum(stats.cache_hits.values()),
                         "misses": sum(stats.cache_misses.values()),
                         "g": np.asarray(g).tolist()}
    out["warnings"] = [str(w.message) for w in caught]
    print(json.dumps(out))
''')

MODEL = textwrap.dedent('''
    import math
    import numba
    import numpy as np
    import s2sad

    def helper(a, b):
        return a * math.sin(b){edit}

    def loss(x, c):
        s = 0.0
        for i in range(x.shape[0]):
            s += helper(x[i], c) * x[i]
        return s

    def energy(x):
        e = 0.0
        for i in range(x.shape[0]):
            e += x[i] * x[i]{edit}
        return e

    @numba.njit
    def kernel(x):
        return x * 3.0{edit}

    @s2sad.register_gradient(kernel)
    def kernel_grad(dy, y, x):
        return dy * 3.0

    def uses_kernel(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += kernel(x[i])
        return s

    def power(x, n):
        if n == 0:
            return 1.0
        return x * power(x, n - 1)

    def cube(x):
        return power(x, 3)
''')

CACHED = ("loss", "energy", "uses_kernel")  # cube is recursive: compiled in memory


def write_model(workdir, edit=""):
    workdir.mkdir(exist_ok=True)
    (workdir / "model.py").write_text(MODEL.format(edit=edit))
    (workdir / "script.py").write_text(SCRIPT)


def start(workdir, cache_dir, env=(), obey_permissions=False, file_size_limit=None):
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache_dir), PYTHONDONTWRITEBYTECODE="1", **dict(env))
    return subprocess.Popen([sys.executable, "script.py"], cwd=workdir, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_restrict(obey_permissions, file_size_limit))


def finish(process):
    """The script's results, or the error of a process that failed (a crash
    of the interpreter is a negative return code)."""
    out, err = process.communicate(timeout=300)
    if process.returncode != 0:
        return {"returncode": process.returncode, "stderr": err[-3000:]}
    return json.loads(out.strip().splitlines()[-1])


def _restrict(obey_permissions, file_size_limit):
    if not obey_permissions and file_size_limit is None:
        return None

    def restrict():
        if file_size_limit is not None:  # writes past it fail (EFBIG), as on a full disk
            import resource
            import signal
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
        if obey_permissions and os.geteuid() == 0:
            # root ignores a directory's mode: drop CAP_DAC_OVERRIDE and
            # CAP_DAC_READ_SEARCH from the bounding set (prctl PR_CAPBSET_DROP)
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            for capability in (1, 2):
                if libc.prctl(24, capability, 0, 0, 0) != 0:
                    raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")
    return restrict


def _set_mode(root, file_mode, dir_mode):
    for d, _, files in os.walk(root):
        for f in files:
            os.chmod(os.path.join(d, f), file_mode)
        os.chmod(d, dir_mode)


def check_results(result, scale=1.0):
    assert "returncode" not in result, result
    x = np.linspace(0.1, 1.0, 50)
    np.testing.assert_allclose(result["loss"]["g"], scale * 2 * x * np.sin(0.3), rtol=1e-12)
    np.testing.assert_allclose(result["energy"]["g"], scale * 2 * np.linspace(0.1, 1.0, 5))
    assert result["cube"]["g"] == pytest.approx(3 * 1.5 ** 2)


@pytest.fixture(scope="module")
def runs():
    """Every process the tests below look at, started in two waves (the
    machine has few cores): four processes at once on a fresh cache; then,
    from copies of that cache, a warm run, an edited model, an upgraded
    s2sad, read-only directories (empty and filled) and a full disk."""
    base = Path(tempfile.mkdtemp(prefix="s2sad-cache-test-"))
    plain, edited = base / "plain", base / "edited"
    write_model(plain)
    write_model(edited, edit=" * 2.0")  # the helper of loss, energy itself, the kernel
    shared = base / "shared"
    results = {"dir": shared, "cold": [finish(p) for p in [start(plain, shared) for _ in range(4)]]}
    for name in ("edit", "upgrade", "ro-filled"):
        shutil.copytree(shared, base / name)
    (base / "ro-empty").mkdir()
    for name in ("ro-empty", "ro-filled"):
        _set_mode(base / name, 0o444, 0o555)
    # HOME unwritable too, so numba finds no other place for its cache
    read_only = dict(env={"HOME": str(base / "ro-empty"), "NUMBA_CACHE_DIR": ""},
                     obey_permissions=True)
    wave = {
        "warm": start(plain, shared),
        "edit": start(edited, base / "edit"),
        "upgrade": start(plain, base / "upgrade", env={"FAKE_S2SAD_VERSION": "99.0"}),
        "ro-empty": start(plain, base / "ro-empty", **read_only),
        "ro-filled": start(plain, base / "ro-filled", **read_only),
        # 6 kB: the generated modules (1-2 kB) are written, numba's machine code is not
        "full": start(plain, base / "full", file_size_limit=6000),
    }
    results.update({name: finish(p) for name, p in wave.items()})
    results["ro-empty-files"] = os.listdir(base / "ro-empty")
    results["full-files"] = [f for _, _, files in os.walk(base / "full") for f in files]
    yield results
    for name in ("ro-empty", "ro-filled"):
        _set_mode(base / name, 0o644, 0o755)
    shutil.rmtree(base, ignore_errors=True)


def test_four_processes_at_once_leave_complete_files(runs):
    cold, shared = runs["cold"], runs["dir"]
    for r in cold:
        check_results(r)
        assert r["warnings"] == []
        assert r["loss"]["g"] == cold[0]["loss"]["g"]
    files = sorted(os.listdir(shared))
    modules = [f for f in files if f.endswith(".py")]
    assert not [f for f in files if "tmp" in f]
    # one per derivative, beside which the self-check may have cached a
    # compiled plain twin (when a call took long on a busy machine)
    described = [(shared / f).read_text().splitlines()[0] for f in modules]
    assert len(set(described)) == 3 and len(modules) <= 6, described
    for f in modules:
        compile((shared / f).read_text(), f, "exec")  # complete Python
    assert not [f for f in os.listdir(shared / "__pycache__") if "tmp" in f]


def test_new_process_loads_from_cache(runs):
    warm = runs["warm"]
    check_results(warm)
    for name in CACHED:
        assert warm[name]["hits"] >= 1 and warm[name]["misses"] == 0, (name, warm)


def test_editing_function_helper_or_kernel_invalidates(runs):
    edited = runs["edit"]
    check_results(edited, scale=2.0)
    for name in CACHED:
        assert edited[name]["misses"] >= 1 and edited[name]["hits"] == 0, (name, edited)


def test_upgrading_s2sad_invalidates(runs):
    upgraded = runs["upgrade"]
    check_results(upgraded)
    for name in CACHED:
        assert upgraded[name]["misses"] >= 1 and upgraded[name]["hits"] == 0, (name, upgraded)


@pytest.mark.parametrize("name", ["ro-empty", "ro-filled", "full"])
def test_unwritable_cache_directory_compiles_in_memory(runs, name):
    result = runs[name]
    check_results(result)
    assert result["warnings"], result
    assert all("compiling in memory" in w for w in result["warnings"])
    assert runs["ro-empty-files"] == []
    assert not [f for f in runs["full-files"] if "tmp" in f]  # failed writes are removed


def test_cache_key_covers_versions(monkeypatch):
    key = cache.module_key("source")
    for attribute in ("__version__", "_PACKAGE_HASH", "_NUMBA_VERSION"):
        with monkeypatch.context() as m:
            m.setattr(cache, attribute, "changed")
            assert cache.module_key("source") != key


def test_the_numba_version_is_read_without_importing_numba():
    import numba
    # the key holds a hash of numba's _version.py, which names the release
    assert cache._numba_version()
    with open(os.path.join(os.path.dirname(numba.__file__), "_version.py")) as f:
        assert numba.__version__ in f.read()


def test_cache_key_covers_the_compiler_code(tmp_path):
    (tmp_path / "passes" / "stage").mkdir(parents=True)
    module = tmp_path / "passes" / "stage" / "a_pass.py"
    module.write_text("x = 1\n")
    before = cache._package_hash([tmp_path / "passes"])
    module.write_text("x = 22\n")  # an edit in a subfolder of the passes
    edited = cache._package_hash([tmp_path / "passes"])
    assert edited != before
    module.write_text("x = 23\n")  # the same size, a later time (as Python's bytecode cache)
    later = os.stat(module).st_mtime_ns + 10**9
    os.utime(module, ns=(later, later))
    assert cache._package_hash([tmp_path / "passes"]) not in (before, edited)
    roots = cache._package_roots()
    assert any(os.path.isdir(os.path.join(r, "frontend")) or
               os.path.isfile(os.path.join(r, "program.py")) for r in roots)


def test_a_foreign_or_damaged_file_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))
    (tmp_path / "s2sad_damaged.py").write_text("def f(:\n")
    path = cache.write_module("s2sad_damaged", "x = 1\n")
    assert open(path).read() == "x = 1\n"
    assert os.listdir(tmp_path) == ["s2sad_damaged.py"]


def no_space_loss(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 3.4567
    return s


def test_no_space_for_the_module_compiles_in_memory(tmp_path, monkeypatch):
    import errno

    def replace(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache.os, "replace", replace)
    with pytest.warns(s2sad.CacheWarning, match="No space left on device.*compiling in memory"):
        g = s2sad.grad(no_space_loss)(np.ones(3))
    np.testing.assert_allclose(g, np.full(3, 3.4567))
    assert os.listdir(tmp_path) == []  # the temporary file is removed


# ---- threads -------------------------------------------------------------------

def threaded_loss(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i] * 1.2345
    return s


def threaded_loss_2(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i] * 2.3456
    return s


def test_threads_compile_once(monkeypatch):
    generated, compiled = [], []
    monkeypatch.setattr(api, "GENERATE_HOOKS", [lambda d, kinds: generated.append(d)])
    monkeypatch.setattr(backend, "COMPILE_HOOKS", [lambda *a: compiled.append(a)])
    x = np.linspace(0.0, 1.0, 7)
    shared = s2sad.grad(threaded_loss)
    barrier = threading.Barrier(8)

    def same_derivative(_):
        barrier.wait()
        return shared(x)

    def own_derivative(_):
        barrier.wait()
        return s2sad.grad(threaded_loss_2)(x)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(same_derivative, range(8)))
        assert len(generated) == 1 and len(compiled) == 1
        for g in results:
            np.testing.assert_allclose(g, 2 * 1.2345 * x)
        results = list(pool.map(own_derivative, range(8)))
    assert len(compiled) == 2  # eight derivatives of one function: one compilation
    for g in results:
        np.testing.assert_allclose(g, 2 * 2.3456 * x)


def test_the_source_is_read_again_when_its_file_changes(tmp_path, monkeypatch):
    """The function's lines are remembered (inspect tokenizes the file on
    every call), but only while the file is unchanged."""
    import importlib
    import time
    from s2sad.transforms.frontend.pipeline import parse as parse_function
    from s2sad.transforms.frontend.read import read
    reads = []
    code_lines = read._code_lines
    monkeypatch.setattr(read, "_code_lines", lambda fn: reads.append(fn) or code_lines(fn))
    path = tmp_path / "edited_module.py"
    path.write_text("def f(x):\n    return x * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_module")
    for _ in range(2):
        assert "\n".join(parse_function(module.f).source_lines).endswith("x * x")
    assert len(reads) == 1  # read once, then remembered
    path.write_text("def f(x):\n    return x * x * x\n")
    os.utime(path, (time.time() + 5, time.time() + 5))
    # the file is read again; its new text is not the old function's code
    with pytest.raises(s2sad.SourceUnavailableError, match="the file has changed"):
        parse_function(module.f)
    assert len(reads) == 2
    module = importlib.reload(module)
    assert "\n".join(parse_function(module.f).source_lines).endswith("x * x * x")
