"""`python -m s2sad cache [--clear]` (s2sad/cache_command.py): the report
names the directory and counts what s2sad wrote; --clear removes exactly
that, leaves other files alone, and the next process differentiates and
compiles again, with the same gradient."""
import os
import subprocess
import sys
import textwrap

import pytest

from s2sad import cli

PROGRAM = textwrap.dedent("""
    import numpy as np
    import s2sad

    def energy(x):
        return np.sum(np.sin(x) * x) + x[0] * x[-1]

    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(energy, jit=True)(x)
    expected = np.sin(x) + x * np.cos(x)
    expected[0] += x[-1]
    expected[-1] += x[0]
    assert np.allclose(g, expected), (g, expected)
    print("ok")
""")


def _run_program(tmp_path, cache):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache), S2SAD_SOURCE_CACHE="1")
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr


def test_report_and_clear(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    _run_program(tmp_path, cache)
    other = cache / "notes.txt"  # a file of the user's, in a directory they share
    other.write_text("keep me")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(cache))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)

    assert cli.main(["cache"]) == 0
    report = capsys.readouterr().out
    assert str(cache) in report
    counts = {line.split(":")[0].strip(): int(line.split(":")[1].split()[0])
              for line in report.splitlines()[1:5]}
    assert counts["modules"] >= 1 and counts["machine code"] >= 2 and counts["sources"] >= 1, report

    assert cli.main(["cache", "--clear"]) == 0
    assert "removed" in capsys.readouterr().out
    left = sorted(p.name for p in cache.rglob("*") if p.is_file())
    assert left == ["notes.txt"], left
    assert other.read_text() == "keep me"

    _run_program(tmp_path, cache)  # generated and compiled again, the same gradient
    assert any(p.name.startswith("s2sad_") for p in cache.iterdir())


def test_report_of_a_cache_not_made_yet(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "none"))
    assert cli.main(["cache"]) == 0
    assert "not created yet" in capsys.readouterr().out
    assert cli.main(["cache", "--clear"]) == 0
    assert "removed 0 files" in capsys.readouterr().out


@pytest.mark.parametrize("name, owned", [
    ("s2sad_0123abcd.py", True), ("s2sad_0123abcd.f.kinds.compiled", True),
    ("direct_printer-0123456789abcdef0123.fact", True), ("mine.py", False),
    ("results.fact", False), ("s2sad_notes.txt", False)])
def test_only_s2sad_files_are_owned(tmp_path, name, owned):
    from s2sad.cache_command import owned_files
    (tmp_path / name).write_text("")
    found = [os.path.basename(p) for paths in owned_files(str(tmp_path)).values() for p in paths]
    assert (name in found) == owned
