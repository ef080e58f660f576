"""docs/internals.md lists the compiler's passes as the code runs them: it is
what `python -m s2sad.transforms.internals --write` writes from the lists."""
from s2sad.transforms import internals


def test_the_page_is_the_one_the_code_writes():
    with open(internals.path()) as f:
        written = f.read()
    assert written == internals.page(), \
        "docs/internals.md is stale: python -m s2sad.transforms.internals --write"
