"""The compiler's passes in the order they run, as a markdown page made from
the code: the front end's lists (frontend/pipeline.py), the stages
program.py runs after them, and the optimisations of a reverse-mode
derivative (optimise/pipeline.py). docs/internals.md is this page; a test
keeps it equal to what this module writes.

    python -m s2sad.transforms.internals            # print the page
    python -m s2sad.transforms.internals --write    # write docs/internals.md
"""
import importlib
import inspect
import os
import sys

from .frontend import pipeline

# what program.py runs for a derivative once the front end is done, in order
# (module under transforms/, the step it takes there)
REVERSE = [
    ("analysis/differentiable", "the arguments named in wrt are floats; the output a float"),
    ("reverse/markers", "stop_gradients' assignments made constants"),
    ("analysis/activity", "the values that depend on wrt and reach the output"),
    ("reverse/reverse_mode", "the forward sweep, recording what the reverse sweep reads, "
                             "and the reverse sweep from the gradient rules"),
    ("reverse/argument_copies", "argument arrays the derivative writes into, copied"),
    ("optimise/pipeline", "the optimisations below"),
    ("emit/tuple_adjoints", "the adjoint of a tuple of values of different kinds, one "
                            "name per item"),
    ("reverse/checkpoint_loops", "the default memory budget's checks before long loops"),
    ("emit/numba_forms", "calls numba cannot compile, as runtime helpers"),
    ("emit/unparse", "the source, the user's lines as comments above their adjoints"),
]
FORWARD = [
    ("analysis/activity", "the values that depend on wrt and reach the output"),
    ("forward/forward_mode", "each statement followed by its tangent's"),
    ("optimise/cleanup", "dead stores dropped"),
    ("checks/bounds", "the generated code's own index checks"),
    ("emit/numba_forms", "calls numba cannot compile, as runtime helpers"),
    ("emit/unparse", "the source"),
]

HEAD = """# Internals: the passes, in the order they run

This page is generated from the code (`python -m s2sad.transforms.internals
--write`): the front end's lists in `transforms/frontend/pipeline.py`, the
stages `transforms/program.py` runs after them, and the optimisations of
`transforms/optimise/pipeline.py`. Every front-end pass is a module of a
family folder with one entry point, `run(tree, ctx)`; its test file is
`tests/frontend/<family>/test_<pass>.py`.
"""


def _where(run):
    module = inspect.getmodule(run).__name__.removeprefix("s2sad.transforms.")
    path = "transforms/" + module.replace(".", "/") + ".py"
    return f"`{path}`" if run.__name__ == "run" else f"`{path}` `{run.__name__}`"


def _entries(entries, depth=0):
    lines, k = [], 0
    for e in entries:
        indent = "   " * depth
        if isinstance(e, pipeline.Group):
            lines.append(f"{indent}- *{e.name}*, when {_first_line(e.when).removeprefix('whether ')}:")
            lines += _entries(e.passes, depth + 1)
            continue
        k += 1
        notes = []
        if e.retypes:
            notes.append("kinds inferred again after it")
        if e.after:
            notes.append("after " + ", ".join(f"`{a}`" for a in e.after))
        note = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f"{indent}- **{e.name}**: {e.idiom}{note}. {_where(e.run)}")
    return lines


def _first_line(fn):
    doc = " ".join((inspect.getdoc(fn) or fn.__name__).split())
    doc = doc.split(". ")[0].rstrip(".")
    return doc[0].lower() + doc[1:] if doc else fn.__name__


def _stages(stages):
    lines = []
    for module, what in stages:
        importlib.import_module("s2sad.transforms." + module.replace("/", "."))
        lines.append(f"1. {what} (`transforms/{module}.py`)")
    return lines


def _optimisations():
    from .optimise import pipeline as optimise
    lines = ["Made by the front end (`FRONT_END`):", ""]
    lines += [f"1. **{o.name}**: {o.what}" for o in optimise.FRONT_END]
    lines += ["", "Decided while the sweeps are built (`SWEEP`):", ""]
    lines += [f"1. **{o.name}**: {o.what}" for o in optimise.SWEEP]
    lines += ["", "Passes over the finished derivative, in order (`PASSES`):", ""]
    lines += [f"1. **{o.name}**: {o.what}" for o in optimise.PASSES]
    lines += ["", "Each can be switched off by its name (`optimise=\"-gather\"`, "
              "`S2SAD_OPTIMISE=-gather`), all of them with `optimise=False`; the index "
              "checks are made last, whatever ran."]
    return lines


def page():
    """The page, as markdown text."""
    out = [HEAD,
           "## Front end: READ",
           "",
           "Once per function (its tree is kept for the next read of the same "
           "lines): from the source to a tree with no nested function and no "
           "statement form or spelling the passes after it do not follow.",
           "",
           *_entries(pipeline.READ),
           "",
           "## Front end: SPECIALISE",
           "",
           "Per argument kinds: from the tree READ gave to normalised code (one "
           "primitive operation per statement) with the kinds of its variables. A "
           "pass may start it again (`Restart`), with more loops kept as written or "
           "more calls rewritten.",
           "",
           *_entries(pipeline.SPECIALISE),
           "",
           "## A helper's primal copy: HELPER_COPY",
           "",
           "The copy of a helper the forward sweep calls, after READ:",
           "",
           *_entries(pipeline.HELPER_COPY),
           "",
           "## Reverse mode (`transforms/program.py`, `derivative`)",
           "",
           *_stages(REVERSE),
           "",
           "## Forward mode (`transforms/program.py`, `jvp`)",
           "",
           *_stages(FORWARD),
           "",
           "## Optimisations of a reverse-mode derivative",
           "",
           *_optimisations(),
           ""]
    return "\n".join(out)


def path():
    """docs/internals.md of the checkout."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(root, "docs", "internals.md")


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        os.makedirs(os.path.dirname(path()), exist_ok=True)
        with open(path(), "w") as f:
            f.write(page())
    else:
        sys.stdout.write(page())
