"""The `ember` command (also `python -m ember`).

    ember run script.py [args...]   run a PyTorch script on ember (`import torch` gives ember)
    ember demo [args...]            train the bundled MNIST example
    ember --version / --help

`run` gives the script what `python script.py` would: sys.argv = [script, args...],
`__name__ == "__main__"`, its directory first on sys.path, its exit code, and its
traceback (without the runner's own frames) when it fails.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from pathlib import Path

from . import compat
from .version import ember_version

_EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_DEMOS = ("mnist.py",)     # the first one present is the demo


def _script_traceback(exc: BaseException, script: str):
    """exc's traceback from the script's first frame on (the runner's frames dropped)."""
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    return tb or exc.__traceback__


def run_script(path: str, args: list) -> int:
    """Run `path` as __main__ under the torch alias; return its exit status."""
    script = os.path.abspath(path)
    if not os.path.isfile(script):
        print(f"ember run: can't open file '{path}': No such file or directory", file=sys.stderr)
        return 2
    compat.install()
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except Exception as exc:      # SystemExit passes through: the script's exit code
        traceback.print_exception(type(exc), exc, _script_traceback(exc, script))
        return 1
    return 0


def _demo_script() -> Path | None:
    return next((_EXAMPLES / name for name in _DEMOS if (_EXAMPLES / name).is_file()), None)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ember", description="ember: PyTorch-compatible deep learning on NumPy.")
    parser.add_argument("--version", action="version", version=f"ember {ember_version}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser("run", help="run a PyTorch script with `import torch` giving ember",
                              description="Run a PyTorch script on ember: `import torch` and "
                                          "`import torchvision` resolve to ember.")
    run.add_argument("script", help="path of the Python script")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    demo = commands.add_parser("demo", help="train the bundled MNIST example",
                               description="Train the bundled MNIST example on ember.")
    demo.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the example")
    return parser


def _run_demo(args: list) -> int:
    script = _demo_script()
    if script is None:
        print(f"ember demo: no example found in {_EXAMPLES} (the examples ship with the "
              f"source tree, not the installed package)", file=sys.stderr)
        return 2
    return run_script(str(script), args)


def main(argv: list | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["demo"] and argv[1:2] not in (["-h"], ["--help"]):
        # Everything after `demo` belongs to the example, options included (argparse's
        # REMAINDER would refuse a leading `--option`).
        return _run_demo(argv[1:])
    parser = _parser()
    options = parser.parse_args(argv)
    if options.command == "run":
        return run_script(options.script, options.args)
    if options.command == "demo":
        return _run_demo(options.args)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
