"""Generated sources read back from disk by a later process
(s2sad/source_cache.py): read back only for what would generate them
again. Each case runs fresh Python processes on one cache directory: the
first generates, a second with one input changed must generate again (and
its gradient agree with finite differences of the changed program), a
third with the first program must read the record back without loading
the compiler."""
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad import source_cache

LIBRARY = "SHIFT = 0.5\n\ndef lib_helper(x):\n    return x * x\n"
SUBMODULE = "def g(x):\n    return 3.0 * x\n"  # (mypkg/sub.py, reached as mypkg.sub.g)

PROGRAM = """
import numpy as np
import mylib
import mypkg.sub

K = 3.0
W = np.array([1.0, 2.0, 3.0])
NAMES = ("a", "b")


def helper(x, c=2.0):
    return np.sin(x) * c


def make(scale):
    def inner(x):
        return x * scale
    return inner


inner = make(1.5)


class Base:
    def shift(self, v):
        return 0.25 * v


class Model(Base):
    pass


MODEL = Model()


def f(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += helper(x[i]) * y * K * W[i] + inner(x[i]) + mylib.SHIFT * mylib.lib_helper(x[i])
    return s + mypkg.sub.g(y) + MODEL.shift(y)
"""

# (name, file, text replaced, by): one input of the derivative changed
CHANGES = [
    ("constant", "program", "K = 3.0", "K = 4.0"),
    ("global array", "program", "W = np.array([1.0, 2.0, 3.0])", "W = np.array([1.0, 2.0, 5.0])"),
    ("helper body", "program", "return np.sin(x) * c", "return np.cos(x) * c"),
    ("default value", "program", "def helper(x, c=2.0):", "def helper(x, c=2.5):"),
    ("closure value", "program", "inner = make(1.5)", "inner = make(2.5)"),
    ("module attribute", "mylib", "SHIFT = 0.5", "SHIFT = 0.75"),
    ("other module's helper", "mylib", "return x * x", "return x * x * x"),
    ("operator", "program", "* y * K", "/ y * K"),
    ("submodule's helper", "sub", "return 3.0 * x", "return 4.0 * x"),
    ("inherited method", "program", "return 0.25 * v", "return 0.5 * v"),
]

CHILD = """
import json, sys
sys.path.insert(0, {dir!r})
import numpy as np
import s2sad
import warnings
import program
g = s2sad.grad(program.f, wrt=(0, 1), jit={jit!r})
x, y = np.array([0.3, -0.4, 0.9]), 1.7
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dx, dy = g(x, y)
h = 1e-6
fd_x = [(program.f(x + h * e, y) - program.f(x - h * e, y)) / (2 * h) for e in np.eye(3)]
fd_y = (program.f(x, y + h) - program.f(x, y - h)) / (2 * h)
print(json.dumps({{"agrees": bool(np.allclose(dx, fd_x, atol=1e-5) and abs(dy - fd_y) < 1e-5),
                  "compiler": "s2sad.transforms.program" in sys.modules,
                  "grad": [*map(float, dx), float(dy)],
                  "warnings": [w.category.__name__ for w in caught]}}))
"""


def _write(directory, library=LIBRARY, program=PROGRAM, submodule=SUBMODULE):
    with open(os.path.join(directory, "mylib.py"), "w") as f:
        f.write(library)
    os.makedirs(os.path.join(directory, "mypkg"), exist_ok=True)
    with open(os.path.join(directory, "mypkg", "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(directory, "mypkg", "sub.py"), "w") as f:
        f.write(submodule)
    with open(os.path.join(directory, "program.py"), "w") as f:
        f.write(textwrap.dedent(program))


def _run(directory, cache_dir, jit=False, check="0"):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("S2SAD_", "NUMBA_"))}
    env.update(S2SAD_CACHE_DIR=str(cache_dir), S2SAD_SOURCE_CACHE="1", S2SAD_CHECK=check,
               S2SAD_BACKGROUND_COMPILE="0", NUMBA_CACHE_DIR=str(cache_dir / "numba"),
               PYTHONDONTWRITEBYTECODE="1")  # (a file rewritten within a second: no stale .pyc)
    out = subprocess.run([sys.executable, "-c", CHILD.format(dir=str(directory), jit=jit)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert check == "1" or "CacheWarning" not in result["warnings"]
    return result


def _records(cache_dir):
    folder = cache_dir / "sources"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_a_later_process_reads_the_source_back(tmp_path):
    _write(tmp_path)
    first = _run(tmp_path, tmp_path / "cache")
    assert first["agrees"] and first["compiler"]
    assert len(_records(tmp_path / "cache")) == 1
    again = _run(tmp_path, tmp_path / "cache")
    assert again["agrees"] and not again["compiler"]  # (read back: no compiler loaded)
    assert again["grad"] == first["grad"]


@pytest.mark.parametrize("name, where, old, new", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_changed_input_generates_again(tmp_path, name, where, old, new):
    cache_dir = tmp_path / "cache"
    _write(tmp_path)
    before = _run(tmp_path, cache_dir)
    assert before["agrees"] and before["compiler"]
    changed = {"library": LIBRARY, "program": PROGRAM, "submodule": SUBMODULE}
    key = {"mylib": "library", "sub": "submodule"}.get(where, "program")
    assert old in changed[key]
    changed[key] = changed[key].replace(old, new)
    _write(tmp_path, **changed)
    after = _run(tmp_path, cache_dir)
    assert after["compiler"], f"{name}: the record of the old program was read back"
    assert after["agrees"] and after["grad"] != before["grad"]
    _write(tmp_path)  # the first program again: its record is read back
    back = _run(tmp_path, cache_dir)
    assert not back["compiler"] and back["grad"] == before["grad"]


def test_compiled_derivatives_read_back_too(tmp_path):
    _write(tmp_path)
    first = _run(tmp_path, tmp_path / "cache", jit=True)
    again = _run(tmp_path, tmp_path / "cache", jit=True)
    assert first["agrees"] and again["agrees"] and not again["compiler"]
    assert np.allclose(first["grad"], again["grad"], rtol=1e-12, atol=0)


def test_a_damaged_record_is_generated_again(tmp_path):
    _write(tmp_path)
    first = _run(tmp_path, tmp_path / "cache")
    [record] = _records(tmp_path / "cache")
    record.write_bytes(b"not a pickle")
    again = _run(tmp_path, tmp_path / "cache")
    assert again["compiler"] and again["grad"] == first["grad"]
    third = _run(tmp_path, tmp_path / "cache")  # (written again)
    assert not third["compiler"] and third["grad"] == first["grad"]


def test_a_record_that_differs_is_found_when_derivatives_check_themselves(tmp_path):
    """S2SAD_CHECK=1 generates again and compares: a record that does not
    match (here: edited by hand) warns and is replaced."""
    _write(tmp_path)
    first = _run(tmp_path, tmp_path / "cache")
    [record] = _records(tmp_path / "cache")
    data = pickle.loads(record.read_bytes())
    data["generated"]["source"] += "\n# edited\n"
    record.write_bytes(pickle.dumps(data))
    checked = _run(tmp_path, tmp_path / "cache", check="1")
    assert "CacheWarning" in checked["warnings"] and checked["grad"] == first["grad"]
    assert not pickle.loads(record.read_bytes())["generated"]["source"].endswith("# edited\n")
    assert _run(tmp_path, tmp_path / "cache")["grad"] == first["grad"]


# ---- in one process: what is not cached ---------------------------------------

@pytest.fixture
def cache_on(tmp_path, monkeypatch):
    monkeypatch.setenv("S2SAD_SOURCE_CACHE", "1")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("S2SAD_CHECK", "0")  # (the self-check's twins would be kept too)
    # (other tests of this process registered gradients: then nothing is kept)
    monkeypatch.setattr(s2sad.registry.REGISTRY, "user_registrations", 0)
    return tmp_path


def _scale(x):
    return 2.0 * x


class Settings:
    def __init__(self):
        self.scale = 2.0


class Doubling:
    def __init__(self):
        self.scale = 2.0

    @property
    def doubled(self):
        return 2.0 * self.scale


SETTINGS = Settings()
DOUBLING = Doubling()


def uses_a_property(x):
    return DOUBLING.doubled * x * x


def uses_an_attribute(x):
    return SETTINGS.scale * x * x


def plain(x):
    return _scale(x) * x


def test_plain_functions_are_kept(cache_on):
    assert s2sad.grad(plain, jit=False)(1.5) == 6.0
    assert s2sad.grad(uses_an_attribute, jit=False)(1.5) == 6.0
    assert len(_records(cache_on)) == 2


def test_a_property_is_not_kept(cache_on):
    """A property's getter is code the walk does not read: nothing kept."""
    assert s2sad.grad(uses_a_property, jit=False)(1.5) == 12.0
    assert _records(cache_on) == []
    assert source_cache.fingerprint(uses_a_property) is None


def test_nothing_is_kept_after_a_gradient_is_registered(cache_on, monkeypatch):
    monkeypatch.setattr(s2sad.registry.REGISTRY, "user_registrations", 1)
    assert s2sad.grad(plain, jit=False)(1.5) == 6.0
    assert _records(cache_on) == []


def test_a_dataclass_argument_is_not_kept(cache_on):
    import dataclasses

    @dataclasses.dataclass
    class P:
        a: float

    def f(p):
        return p.a * p.a
    assert s2sad.grad(f, jit=False)(P(3.0)).a == 6.0
    assert _records(cache_on) == []


def test_the_key_reads_values_by_content():
    """Equal values give equal fingerprints; any changed value a different one."""
    def make(c):
        def f(x):
            return c * x
        return f
    assert source_cache.fingerprint(make(2.0)) == source_cache.fingerprint(make(2.0))
    assert source_cache.fingerprint(make(2.0)) != source_cache.fingerprint(make(2.5))
    assert source_cache.fingerprint(make(np.ones(3))) != source_cache.fingerprint(
        make(np.array([1.0, 1.0, 2.0])))
    assert source_cache.fingerprint(make(2)) != source_cache.fingerprint(make(2.0))
    assert source_cache.fingerprint(make(object())) is None  # (no content to write down)
