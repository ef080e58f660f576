"""Tutorials are scripts (docs/tutorials/*.py) that the docs build runs and
renders with what they print and draw, so a page never shows output that
the code no longer gives.

A script is its module docstring (the first line is the page's title, the
rest Markdown) and cells, each starting at a line `# %%`: the cell's first
comment lines are Markdown, the rest is code. `python -m
docs_build.tutorials SCRIPT OUTDIR` runs the cells in order in one
namespace, in a process of its own, and writes OUTDIR/STEM.json: per cell,
its prose, code, standard output and the figures it left open (saved as
OUTDIR/STEM_N.png, then closed)."""
import ast
import contextlib
import io
import json
import os
import pathlib
import sys
import types

CELL = "# %%"


def split(source):
    """(title, intro, cells) of a tutorial script; each cell is a dict of
    its prose, its code and the line its code starts on (1-based)."""
    tree = ast.parse(source)
    doc = ast.get_docstring(tree) or ""
    title, _, intro = doc.partition("\n")
    lines = source.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == CELL]
    cells = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        body = lines[start + 1:end]
        prose = []
        while body and (body[0].startswith("# ") or body[0].strip() == "#"):
            prose.append(body.pop(0)[2:])
        skipped = end - start - 1 - len(body)
        while body and not body[-1].strip():
            body.pop()
        first = start + 2 + skipped
        while body and not body[0].strip():  # (blank lines between the prose and the code)
            body.pop(0)
            first += 1
        cells.append({"prose": "\n".join(prose), "code": "\n".join(body), "line": first})
    return title.strip(), intro.strip(), cells


def run(script, outdir):
    """Run `script`'s cells (see the module docstring); returns the record."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    script, outdir = pathlib.Path(script).resolve(), pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    title, intro, cells = split(script.read_text())
    name = f"tutorial_{script.stem}"
    module = types.ModuleType(name)
    module.__file__ = str(script)
    sys.modules[name] = module
    sys.path.insert(0, str(script.parent))
    os.chdir(outdir)  # (what a script writes lands beside its output)
    figures = 0
    for cell in cells:
        # compiled at its own lines, so a function's source is found in the file
        code = compile("\n" * (cell["line"] - 1) + cell["code"] + "\n", str(script), "exec")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, module.__dict__)
        cell["stdout"] = out.getvalue()
        cell["figures"] = []
        for number in plt.get_fignums():
            figures += 1
            png = f"{script.stem}_{figures}.png"
            plt.figure(number).savefig(outdir / png, dpi=96, bbox_inches="tight")
            cell["figures"].append(png)
        plt.close("all")
    record = {"title": title, "intro": intro, "cells": cells}
    (outdir / f"{script.stem}.json").write_text(json.dumps(record, indent=1))
    return record


def markdown(record, script_name):
    """The page of a tutorial run (`record` as `run` returns it)."""
    parts = [f"# {record['title']}", "", record["intro"], "",
             f"*The whole script: [{script_name}]({script_name}). The output and the "
             f"pictures below are made by running it when the site is built.*", ""]
    for cell in record["cells"]:
        if cell["prose"]:
            parts += [cell["prose"], ""]
        if cell["code"]:
            parts += ["```python", cell["code"], "```", ""]
        if cell["stdout"].strip():
            parts += ["Output:", "", "```text", cell["stdout"].rstrip("\n"), "```", ""]
        for png in cell["figures"]:
            parts += [f"![{record['title']}: figure]({png})", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2])
