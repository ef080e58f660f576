"""The front end's lists (transforms/frontend/pipeline.py): every order
constraint a pass declares holds, every name it declares is a pass, and
every pass is a module of its own with one entry point and a docstring."""
import inspect
import os

import pytest

from s2sad.transforms.frontend import pipeline

LISTS = {"READ": pipeline.READ, "SPECIALISE": pipeline.SPECIALISE,
         "HELPER_COPY": pipeline.HELPER_COPY}


def flat(entries):
    out = []
    for e in entries:
        out += flat(e.passes) if isinstance(e, pipeline.Group) else [e]
    return out


# what runs, in order: READ before the specialisation and before a helper's copy
RUNS = {"READ": flat(pipeline.READ),
        "SPECIALISE": flat(pipeline.READ) + flat(pipeline.SPECIALISE),
        "HELPER_COPY": flat(pipeline.READ) + flat(pipeline.HELPER_COPY)}
NAMES = {p.name for passes in RUNS.values() for p in passes}


@pytest.mark.parametrize("which", sorted(RUNS))
def test_order_constraints_hold(which):
    order = [p.name for p in RUNS[which]]
    for k, p in enumerate(RUNS[which]):
        for before in p.after:
            if before in order:  # (a pass a list does not run constrains nothing there)
                assert before in order[:k], f"{which}: {p.name} runs before {before}"


def test_constraints_name_passes():
    for passes in RUNS.values():
        for p in passes:
            assert set(p.after) <= NAMES, (p.name, set(p.after) - NAMES)


def test_a_pass_runs_once_per_list():
    for which, entries in LISTS.items():
        names = [p.name for p in flat(entries)]
        assert len(names) == len(set(names)), which


def test_every_pass_says_what_it_lowers():
    for passes in RUNS.values():
        for p in passes:
            assert p.idiom.strip(), p.name
            module = inspect.getmodule(p.run)
            if p.run.__name__ == "run":  # a pass module: its docstring, one entry point
                assert module.__doc__ and module.__doc__.strip(), module.__name__
                entries = [n for n, v in vars(module).items() if inspect.isfunction(v)
                           and v.__module__ == module.__name__ and not n.startswith("_")]
                assert entries == ["run"], (module.__name__, entries)
            else:  # a step of steps.py
                assert p.run.__doc__, p.name


def test_retyping_passes_run_once_kinds_are_known():
    order = [p.name for p in RUNS["SPECIALISE"]]
    for p in RUNS["SPECIALISE"]:
        if p.retypes:
            assert order.index("infer_kinds") < order.index(p.name), p.name


def test_modules_stay_small():
    folder = os.path.dirname(pipeline.__file__)
    for dirpath, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f)) as fh:
                    lines = sum(1 for _ in fh)
                assert lines <= 600, (f, lines)


def test_every_pass_has_its_test_file():
    here = os.path.dirname(os.path.abspath(__file__))
    for passes in RUNS.values():
        for p in passes:
            if p.run.__name__ != "run":
                continue  # (the steps: test_steps.py)
            family, name = p.run.__module__.split(".")[-2:]
            path = os.path.join(here, family, f"test_{name}.py")
            assert os.path.exists(path), path

