"""`ember run`: run Python code on ember, in Python's own command-line shapes.

    ember run script.py [args...]    as `python script.py args...`
    ember run -m module [args...]    as `python -m module args...` (e.g. `-m pytest`)
    ember run -c "code" [args...]    as `python -c "code" args...`
    ember run --doctor script.py     the same, with ember.doctor's checks on

`import torch` and `import torchvision` resolve to ember (ember.compat). The code sees what
Python would give it: `__name__ == "__main__"`, sys.argv ([script, args...], [module's
file, args...] or ['-c', args...]) and sys.path[0] (the script's directory, or the
current directory); it gets Python's exit status and traceback, without the runner's
own frames.
"""
from __future__ import annotations

import argparse
import importlib.machinery
import io
import os
import runpy
import sys
import types

from .. import compat
from ..backends.cpu import tune_malloc

SCRIPT, MODULE, CODE = "script", "-m", "-c"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ember run",
        usage="ember run [-h] [--doctor] (-m module | -c command | script) [args ...]",
        description="Run Python code on ember, as `python` would: `import torch` and "
                    "`import torchvision` resolve to ember.")
    parser.add_argument("--doctor", action="store_true", help="report silent training "
                        "mistakes (missing zero_grad, softmax into cross_entropy, ...) on "
                        "stderr, each at the line of the code that shows it")
    parser.add_argument("-m", metavar="module", help="run a library module as a script, "
                        "as `python -m module` (its arguments follow it)")
    parser.add_argument("-c", metavar="command", help="run the code in the string, as "
                        "`python -c command` (its arguments follow it)")
    parser.add_argument("script", nargs="?", help="path of the Python script to run")
    parser.add_argument("args", nargs="*", help="arguments passed to the code")
    return parser


def split_command_line(argv: list[str]) -> tuple[list[str], str | None, str | None, list]:
    """(runner options, mode, target, the code's arguments): as in Python's own command
    line, `-m module`, `-c command` or the first non-option ends the runner's options.
    The mode is None when there is no code to run, the target None when -m or -c lacks
    its argument."""
    for i, arg in enumerate(argv):
        if arg in (MODULE, CODE):
            return argv[:i], arg, (argv[i + 1] if i + 1 < len(argv) else None), argv[i + 2:]
        if arg[:2] in (MODULE, CODE):  # -mpytest, as Python accepts
            return argv[:i], arg[:2], arg[2:], argv[i + 1:]
        if not arg.startswith("-"):
            return argv[:i], SCRIPT, arg, argv[i + 1:]
    return argv, None, None, []


def run_target(mode: str, target: str, args: list[str]) -> None:
    """Run a script, a module or a code string as __main__, as `python` would. Whatever
    the code raises (SystemExit too) passes through."""
    if mode == MODULE:
        sys.argv = [target, *args]  # runpy puts the module's file in argv[0]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    elif mode == CODE:
        sys.argv = [CODE, *args]
        sys.path.insert(0, "")
        _run_as_main(target, "<string>")
    elif os.path.isfile(target):
        sys.argv = [target, *args]
        path = os.path.abspath(target)  # Python's __file__ and tracebacks name it in full
        sys.path.insert(0, os.path.dirname(path))
        with io.open_code(path) as f:
            source = f.read()
        _run_as_main(source, path, __file__=path, __cached__=None,
                     __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    else:  # a directory or zip file with a __main__.py
        sys.argv = [target, *args]
        runpy.run_path(target, run_name="__main__")


def _run_as_main(source, filename: str, **attributes) -> None:
    """Execute `source` in a fresh __main__ module, as python does with a script or -c."""
    main = types.ModuleType("__main__")
    main.__dict__.update(attributes)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(compile(source, filename, "exec"), main.__dict__)
    finally:
        sys.modules["__main__"] = saved


def code_traceback(exc: BaseException, caller: str | None = None):
    """exc's traceback from the user code's first frame on: the frames of the runner (and
    of the `caller` file that called it) dropped; None for a syntax error in the code
    itself, which Python prints without a traceback."""
    tb, runner = exc.__traceback__, {__file__, caller, runpy.__file__, "<frozen runpy>"}
    while tb is not None and tb.tb_frame.f_code.co_filename in runner:
        tb = tb.tb_next
    return tb


def run(mode: str, target: str, args: list[str], doctor: bool = False) -> int:
    """Run the code under the torch alias (with ember.doctor's checks on when `doctor`); its
    exit status (1 and its traceback on an uncaught exception)."""
    if mode == SCRIPT and not os.path.exists(target):
        print(f"ember run: can't open file {os.path.abspath(target)!r}: [Errno 2] No such "
              "file or directory", file=sys.stderr)
        return 2
    compat.install()
    tune_malloc()       # ember runs the whole program: keeping freed blocks pays off
    if doctor:
        from .. import doctor as checks
        checks.enable()
    try:
        run_target(mode, target, args)
    except Exception as error:  # SystemExit passes through: the code's exit status
        tb = code_traceback(error)
        if mode == MODULE and isinstance(error, ImportError) and tb is None:
            print(f"ember run: {error}", file=sys.stderr)  # no such module, as python says
        else:
            # Python's own hook, as python would call it: it offers "Did you mean ...?" for
            # a misspelled name, which the traceback module of Python 3.11 does not
            sys.excepthook(type(error), error.with_traceback(tb), tb)
        return 1
    return 0


def main(argv: list[str]) -> int:
    """`ember run ...`."""
    parser = _parser()
    options, mode, target, args = split_command_line(argv)
    runner = parser.parse_args(options)  # --help and --doctor are the runner's own options
    if mode is None:
        parser.error("one of -m module, -c command or a script is required")
    if target is None:
        parser.error(f"argument expected for the {mode} option")
    return run(mode, target, args, doctor=runner.doctor)
