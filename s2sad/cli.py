"""The command line: `python -m s2sad show|export path/to/file.py:func`,
`python -m s2sad docs` (the documentation site, docs_command.py) and
`python -m s2sad cache [--clear]` (the on-disk cache, cache_command.py).

    python -m s2sad show model.py:loss --wrt w,b --args "array2,array1,float"
    python -m s2sad show model.py:loss --mode hessian
    python -m s2sad export model.py:loss -o loss_grad.py

`show` prints the generated derivative source; `export` writes the
standalone module (numpy and numba only, as `s2sad.export`). Argument kinds
default to those `.source` guesses from how the arguments are used."""
import argparse
import importlib.util
import os
import sys

from . import cache_command, docs_command
from .transforms.errors import S2sadValueError

_MODES = ("grad", "value_and_grad", "vjp", "jvp", "hessian")
_KIND_HELP = ("comma-separated kinds of the arguments, in order: float, int, bool, "
              "array (1-d), array2, array3, ... (default: guessed from the source)")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m s2sad", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Show or export the derivative s2sad generates for a function in a file.",
        epilog="examples:\n" + __doc__.split("\n\n")[1] + "\n\n" + __doc__.split("\n\n")[2])
    commands = parser.add_subparsers(dest="command", required=True)
    for command, text in (("show", "print the generated derivative source"),
                          ("export", "write the derivative as a standalone module")):
        sub = commands.add_parser(command, help=text, description=text)
        sub.add_argument("target", help="path/to/file.py:function (or file.py:Class.method)")
        sub.add_argument("--wrt", default="0",
                         help="argument names or positions, comma-separated (default: 0)")
        sub.add_argument("--mode", choices=_MODES, default="grad",
                         help="the derivative (default: grad)")
        sub.add_argument("--args", dest="kinds", default=None, help=_KIND_HELP)
        if command == "export":
            sub.add_argument("-o", "--output", required=True, help="the module to write")
    docs_command.add_parser(commands)
    cache_command.add_parser(commands)
    options = parser.parse_args(argv)
    if options.command == "docs":
        return docs_command.run(options)
    if options.command == "cache":
        return cache_command.run(options)
    try:
        fn = load(options.target)
        wrt = _wrt(options.wrt)
        kinds = _kinds(options.kinds) if options.kinds else None
        if options.command == "show":
            print(show(fn, wrt, options.mode, kinds))
        else:
            name = export(fn, wrt, options.mode, kinds, options.output)
            print(f"wrote {options.output}: {name}")
    except (OSError, ValueError, TypeError, LookupError, SyntaxError, AttributeError) as exc:
        print(f"s2sad: {exc}", file=sys.stderr)
        return 1
    return 0


def load(target):
    """The function `path.py:name` names (the file is imported as a module,
    its folder first on sys.path, as `python path.py` would have it)."""
    path, sep, qualname = target.rpartition(":")
    if not sep or not path or not qualname:
        raise S2sadValueError(f"'{target}' is not path/to/file.py:function")
    if not os.path.isfile(path):
        raise OSError(f"no file {path}")
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (dataclasses and pickling look it up)
    spec.loader.exec_module(module)
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise AttributeError(f"{path} has no {qualname}")
        obj = getattr(obj, part)
    return getattr(obj, "fn", obj)  # a function decorated with @s2sad.grad: the function


def show(fn, wrt, mode, kinds=None):
    derivative = _derivative(fn, wrt, mode)
    if mode == "hessian":  # forward mode over the generated gradient
        from .api import _guess_kinds, _innermost, jvp
        kinds = kinds or _guess_kinds(_innermost(derivative.fn))
        entry = derivative.specialisation(kinds)
        generated = entry.module.python.__dict__[entry.fname]
        second = jvp(generated, wrt=derivative.wrt, jit=False)
        return entry.generated.source + "\n\n# ---- its forward mode: Hessian-vector " \
            "products ----\n" + second._generate(tuple(kinds)).source
    if kinds is None:
        return derivative.source
    return derivative._generate(tuple(kinds)).source


def export(fn, wrt, mode, kinds, output):
    from .export import export as write
    if mode == "hessian":
        raise S2sadValueError("export writes grad, value_and_grad, vjp or jvp modules; a Hessian "
                         "is computed from the exported gradient by forward mode")
    derivative = _derivative(fn, wrt, mode)
    derivative.specialisation(kinds)  # its kinds become those export writes
    return write(derivative, output)


def _derivative(fn, wrt, mode):
    from . import api
    maker = {"grad": api.grad, "value_and_grad": api.value_and_grad, "vjp": api.vjp,
             "jvp": api.jvp, "hessian": api.value_and_grad}[mode]
    return maker(fn, wrt=wrt, jit=False)


def _wrt(text):
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise S2sadValueError("--wrt names no argument")
    values = tuple(int(t) if t.lstrip("-").isdigit() else t for t in items)
    return values[0] if len(values) == 1 else values


def _kinds(text):
    from .transforms.analysis import kinds as K
    out = []
    for item in (t.strip() for t in text.split(",")):
        if item in ("float", "int", "bool"):
            out.append({"float": K.FLOAT, "int": K.INT, "bool": K.BOOL}[item])
        elif item.startswith("array") and (item[5:] == "" or item[5:].isdigit()):
            out.append(K.array(int(item[5:] or 1)))
        else:
            raise S2sadValueError(f"--args: '{item}' is not a kind; {_KIND_HELP}")
    return out
