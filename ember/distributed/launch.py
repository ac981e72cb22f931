"""`python -m ember.distributed.launch --nproc_per_node N script.py args`: the deprecated
torch.distributed.launch, which passes `--local-rank=<local rank>` to the script (before
its own arguments) unless `--use-env` is given. Prefer `python -m ember.distributed.run`.
"""
from __future__ import annotations

import argparse
import sys
import warnings

from .run import dispatch, get_args_parser, started_by_mpi


def parse_args(args: list[str]) -> argparse.Namespace:
    parser = get_args_parser(prog="python -m ember.distributed.launch")
    parser.add_argument("--use-env", "--use_env", action="store_true",
                        help="set LOCAL_RANK only, do not pass --local-rank to the script")
    return parser.parse_args(args)


def main(args: list[str] | None = None) -> None:
    argv = sys.argv[1:] if args is None else args
    parsed = parse_args(argv)
    if parsed.no_python and not parsed.use_env:
        raise ValueError("When using the '--no-python' flag, you must also set the "
                         "'--use-env' flag.")
    if not started_by_mpi():
        warnings.warn("The module torch.distributed.launch is deprecated\nand will be removed "
                      "in future. Use torchrun.\nNote that --use-env is set by default in "
                      "torchrun.\nIf your script expects `--local-rank` argument to be set, "
                      "please\nchange it to read from `os.environ['LOCAL_RANK']` instead. "
                      "(ember: python -m ember.distributed.run)", FutureWarning, stacklevel=2)
    dispatch(parsed, argv, "ember.distributed.launch", pass_local_rank=not parsed.use_env)


if __name__ == "__main__":
    main()
