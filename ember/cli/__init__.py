"""The `ember` command (also `python -m ember`).

    ember run script.py [args...]      run Python code on ember: `import torch` gives ember
    ember run -m module [args...]      (also -c "code"; Python's own command-line shapes)
    ember torchrun [options] script.py start N processes, as torchrun (see ember.distributed.run)
    ember demo [args...]               train the bundled MNIST example
    ember --version / --help
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..version import ember_version
from . import run

_EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"
_DEMOS = ("mnist.py",)     # the first one present is the demo


def _demo_script() -> Path | None:
    return next((_EXAMPLES / name for name in _DEMOS if (_EXAMPLES / name).is_file()), None)


def _demo(args: list[str]) -> int:
    """`ember demo ...`: every argument belongs to the example."""
    if args[:1] in (["-h"], ["--help"]):
        print("usage: ember demo [args ...]\n\nTrain the bundled MNIST example on ember; "
              "the arguments are the example's own (see its --help).")
        return 0
    script = _demo_script()
    if script is None:
        print(f"ember demo: no example found in {_EXAMPLES} (the examples ship with the "
              f"source tree, not the installed package)", file=sys.stderr)
        return 2
    return run.run(run.SCRIPT, str(script), args)


def _torchrun(args: list[str]) -> int:
    """`ember torchrun ...`: torchrun's command line; the scripts import ember as torch."""
    from ..distributed import run as launcher
    launcher.main(args, prog="ember torchrun")
    return 0


# Each command takes the rest of the command line as it is: Python's and torchrun's
# shapes put options of the code after its name, which argparse cannot leave alone.
_COMMANDS = {"run": run.main, "torchrun": _torchrun, "demo": _demo}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ember", description="ember: PyTorch-compatible deep learning on NumPy.")
    parser.add_argument("--version", action="version", version=f"ember {ember_version}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("run", help="run a script, `-m module` or `-c code` with `import "
                        "torch` giving ember")
    commands.add_parser("torchrun", help="start N processes running a script, with "
                        "torchrun's options (MPI underneath)")
    commands.add_parser("demo", help="train the bundled MNIST example")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in _COMMANDS:
        return _COMMANDS[argv[0]](argv[1:])
    parser = _parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0
