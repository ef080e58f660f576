"""Every python code block of README.md and of the pages in docs/ runs, and
prints what the page says it prints (docs_build/code_blocks.py says how a
page marks a block's output, or a block that is not meant to run).

Each block is written to a file of its own before it runs, as a user's code
lives in a file: s2sad reads a function's source from its file."""
import contextlib
import io
import pathlib
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from docs_build.code_blocks import blocks, output_matches  # noqa: E402

PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def _id(page):
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_id)
def test_page_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (a block may write files: an export, a plot)
    name = "page_" + "".join(c if c.isalnum() else "_" for c in _id(page).removesuffix(".md"))
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    for block in blocks(page.read_text()):
        if not block.runs:
            continue
        # (each block in a file example.py of its own: what errors print)
        path = tmp_path / f"line{block.line}" / "example.py"
        path.parent.mkdir()
        path.write_text(block.text)
        module.__file__ = str(path)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block.text, str(path), "exec"), module.__dict__)
        except Exception as exc:
            raise AssertionError(f"{_id(page)}, the block at line {block.line} raised "
                                 f"{type(exc).__name__}: {exc}") from exc
        if block.expected is not None:
            assert output_matches(block.expected, out.getvalue()), (
                f"{_id(page)}, the block at line {block.line} printed\n{out.getvalue()}\n"
                f"where the page says\n{block.expected}")


def test_every_python_block_runs_or_says_why_not():
    """A python block that is not run is marked so (`<!-- not run: why -->`
    on the line before it), never skipped silently; and the marker is only
    used on python blocks."""
    for page in PAGES:
        for block in blocks(page.read_text()):
            if block.not_run is not None:
                assert block.language in ("python", "py"), \
                    f"{_id(page)}:{block.line}: 'not run' on a {block.language or 'plain'} block"
