"""The compiler's import graph (tests/tools/imports.py reads it from the
source): no cycle inside transforms/, and a front-end pass imports no other
pass and no driver (frontend/pipeline.py runs them; a pass reaches another
function's tree through `ctx.parse`).

No cycle inside s2sad/ either, and none between s2sad and s2sad.transforms
as packages: the compiler imports nothing of the package around it (the
rules, markers, numpy definitions and runtime helpers reach it through the
Program that s2sad/generate.py:new_program configures).
"""
import pytest

from tools import imports

GRAPH = imports.graph()


# cycles still to open; this list only shrinks
KNOWN = []


def test_no_cycle_inside_transforms():
    found = imports.cycles(imports.within(GRAPH, "s2sad.transforms"))
    assert not found, "import cycles in transforms/:\n" + "\n".join(" ".join(c) for c in found)


def test_no_cycle_inside_s2sad():
    outside = {m: ts for m, ts in GRAPH.items() if not m.startswith("s2sad.transforms")}
    found = [c for c in imports.cycles(outside) if c not in KNOWN]
    assert not found, "import cycles in s2sad/:\n" + "\n".join(" ".join(c) for c in found)


def test_the_cycles_are_found():
    """The graph reads imports inside functions too: a cycle made by one is
    found (the test would pass on a graph that missed it)."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert imports.cycles(edges) == [["a", "b", "c"]]
    assert "s2sad.api" in GRAPH["s2sad.checking"]  # (`from .api import jvp, vjp` in a function)


def test_no_cycle_between_the_packages():
    found = imports.cycles(imports.packages(GRAPH))
    assert not found, "s2sad and s2sad.transforms import each other"


def test_the_compiler_imports_nothing_of_the_package():
    outside = {m: sorted(t for t in ts if t.startswith("s2sad") and not t.startswith("s2sad.transforms"))
               for m, ts in GRAPH.items() if m.startswith("s2sad.transforms")}
    assert not {m: ts for m, ts in outside.items() if ts}


def _pass_modules():
    from s2sad.transforms.frontend import pipeline
    found = set()

    def collect(entries):
        for e in entries:
            if isinstance(e, pipeline.Group):
                collect(e.passes)
            else:
                found.add(e.run.__module__)
    for entries in (pipeline.READ, pipeline.SPECIALISE, pipeline.HELPER_COPY):
        collect(entries)
    return found


PASSES = _pass_modules()
DRIVERS = {"s2sad.transforms.frontend.pipeline", "s2sad.transforms.frontend.specialise",
           "s2sad.transforms.program"}


def test_the_lists_name_the_passes():
    assert "s2sad.transforms.frontend.functions.closures" in PASSES
    assert len(PASSES) > 40


@pytest.mark.parametrize("module", sorted(PASSES))
def test_a_pass_imports_no_pass_and_no_driver(module):
    imported = GRAPH[module] & (PASSES | DRIVERS)
    assert not imported, f"{module} imports {sorted(imported)}"


def test_only_the_pipeline_imports_the_passes():
    importers = {m for m, ts in GRAPH.items() if ts & PASSES}
    assert importers <= {"s2sad.transforms.frontend.pipeline"}, sorted(importers)


def test_late_runtime_modules_export_what_their_source_lists():
    # s2sad.runtime reads special.py's __all__ from its text, without importing it
    import importlib

    import s2sad.runtime as runtime
    for module, names in runtime.LATE_MODULES.items():
        assert names == importlib.import_module(f"s2sad.runtime.{module}").__all__
