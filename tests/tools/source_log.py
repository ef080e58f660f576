"""Record the sha256 of every derivative source s2sad generates, to check
that a refactoring of the compiler changes no generated program.

Under pytest (any test run):

    S2SAD_SOURCE_LOG=/tmp/before python -m pytest -p tools.source_log ...

and for the benchmark workloads (`grad(primal, jit=False).source_for(small
inputs)`, and the same with the guessed kinds):

    python tests/tools/source_log.py workloads /tmp/before

Each process appends lines `key<TAB>sha256` to a file of its own in the
directory (pytest-xdist workers included); a generation that raises records
the exception's type and message instead. Compare two directories:

    python tests/tools/source_log.py compare /tmp/before /tmp/after

which prints the keys whose sources differ, or are only in one run, and
exits 1 if any do (`--both`: only keys both runs have count). Paths of
temporary directories (tmp_path modules) and of the checkout are replaced by
placeholders before hashing, so two runs of the same code give the same set,
and two checkouts of different code can be compared; so are the hashes in the
names of generated modules (`s2sad_<20 hex digits>`, `s2sad_primitive_...`),
which hash the compiler's own source. A test module moved between the two
checkouts is named as before with S2SAD_SOURCE_LOG_MOVED=new=old[,new=old]
(paths under the checkout: tests/frontend/calls/test_x.py=tests/test_x.py)."""
import hashlib
import os
import re
import sys

_TMP = re.compile(r"/tmp/[^\s:'\"]*?(?=/[^/\s:'\"]+\.py)|/tmp/[\w.-]+")
# the checkout's own path (a second checkout of other code gives the same keys)
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_GENERATED = re.compile(r"\b(s2sad_(?:[a-z]+_)?)[0-9a-f]{20}\b")


def _moved():
    """[(text, replacement)] for the paths and module names of moved tests."""
    out = []
    for pair in filter(None, os.environ.get("S2SAD_SOURCE_LOG_MOVED", "").split(",")):
        new, old = pair.split("=")
        out.append(("<repo>/" + new, "<repo>/" + old))
        dotted = [p[:-3].replace("/", ".").removeprefix("tests.") for p in (new, old)]
        out.append((dotted[0] + ".", dotted[1] + "."))
    return out


_MOVED = _moved()


def _normal(text):
    text = re.sub(r" at 0x[0-9a-f]+", "", text)  # (an object's address, in a message)
    # (a library function's path, in a refusal, names the environment)
    text = _TMP.sub("<tmp>", text.replace(_ROOT, "<repo>").replace(sys.prefix, "<venv>"))
    for new, old in _MOVED:
        text = text.replace(new, old)
    return _GENERATED.sub(r"\1<hash>", text)


def _repr(value):
    # (a set's order changes with the string hash seed of the process)
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(map(_repr, value))!r})"
    return repr(value)


def _key(fn, arg_kinds, args, kwargs):
    code = getattr(fn, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)
    rest = ", ".join([_repr(a) for a in args] + [f"{k}={_repr(v)}"
                                                 for k, v in sorted(kwargs.items())])
    text = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', fn)}@{where} " \
           f"{list(arg_kinds)!r} {rest}"
    return _normal(text).replace("\t", " ").replace("\n", " ")


def install(directory):
    """Wrap s2sad.generate.generate (as the api module calls it) so that
    every generation appends its key and source hash to a file in
    `directory`."""
    import s2sad.api
    import s2sad.generate
    os.makedirs(directory, exist_ok=True)
    original = s2sad.generate.generate
    if getattr(original, "_logged", False):
        return
    path = os.path.join(directory, f"log-{os.getpid()}.tsv")

    def generate(fn, arg_kinds, *args, **kwargs):
        key = _key(fn, arg_kinds, args, kwargs)
        try:
            gen = original(fn, arg_kinds, *args, **kwargs)
        except Exception as exc:
            text = f"raised {type(exc).__name__}: {_normal(str(exc))}"
            _append(path, key, "E:" + hashlib.sha256(text.encode()).hexdigest())
            raise
        _append(path, key, hashlib.sha256(_normal(gen.source).encode()).hexdigest())
        return gen

    generate._logged = True
    s2sad.generate.generate = generate
    s2sad.api.generate = generate


def _append(path, key, digest):
    with open(path, "a") as f:
        f.write(f"{key}\t{digest}\n")


def pytest_configure(config):
    directory = os.environ.get("S2SAD_SOURCE_LOG")
    if directory:
        install(directory)


def read(directory):
    """key -> set of digests, over every file of a log directory."""
    out = {}
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as f:
            for line in f:
                key, _, digest = line.rstrip("\n").rpartition("\t")
                out.setdefault(key, set()).add(digest)
    return out


def compare(before, after, both_only=False):
    a, b = read(before), read(after)
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    for k in changed:
        print("CHANGED", k[:300])
    if not both_only:
        for k in only_a:
            print("ONLY BEFORE", k[:300])
        for k in only_b:
            print("ONLY AFTER", k[:300])
    print(f"{len(a)} keys before, {len(b)} after, {len(set(a) & set(b))} in both, "
          f"{len(changed)} changed, {len(only_a)} only before, {len(only_b)} only after")
    return not changed and (both_only or not (only_a or only_b))


def workloads(directory):
    """Every benchmark workload's derivative source, as benchmarks/codegen.py
    generates it, with the guessed kinds and with the small inputs' kinds."""
    sys.path.insert(0, _ROOT)
    import tempfile
    os.environ.setdefault("S2SAD_CACHE_DIR", tempfile.mkdtemp(prefix="s2sad-source-log-"))
    install(directory)
    import s2sad
    from benchmarks.workloads import WORKLOADS, load
    for key in WORKLOADS:
        mod = load(key)
        df = s2sad.grad(mod.primal, wrt=mod.WRT, jit=False)
        try:
            df.source
        except Exception:  # noqa: BLE001 - (W4's `@` needs the real kinds)
            pass
        df.source_for(*mod.make_inputs("small"))
        print(key, "done")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "workloads":
        workloads(sys.argv[2])
    elif command == "compare":
        sys.exit(0 if compare(sys.argv[2], sys.argv[3], "--both" in sys.argv) else 1)
    else:
        sys.exit(__doc__)
