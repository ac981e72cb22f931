"""`python -m ember.distributed.run --nproc-per-node N script.py args`: torchrun's
command line, with the processes started by MPI's `mpiexec`.

The launcher runs `mpiexec -n N python -m ember.distributed.run <same arguments>`; each
of those processes sees it was started by MPI, sets torchrun's environment variables
(RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT)
and runs the script in place. The same works across machines under an MPI launch of
your own: `mpiexec -n 8 -f hostfile python -m ember.distributed.run script.py`.

When one rank fails, its traceback is printed and MPI stops every process of the job
(init_process_group installs the hook that aborts the job on an uncaught exception); the
launcher then exits with a non-zero code.
"""
from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import tempfile
import sys

from .distributed_c10d import _abort_on_uncaught_exception

# Environment variables by which MPI launchers (MPICH's hydra, Open MPI) tell a process
# its place in the job: (rank, size, local rank, local size).
_MPI_ENV = [("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
             "OMPI_COMM_WORLD_LOCAL_SIZE")]


def get_args_parser(description: str = "Start N processes running a training script "
                    "(torchrun's options), connected by MPI.") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description, allow_abbrev=False)
    parser.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                        help="processes to start: a number, or 'auto'/'cpu' for the CPU count")
    parser.add_argument("--nnodes", default="1",
                        help="only 1: for several machines use mpiexec with a host file")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0)
    parser.add_argument("--standalone", action="store_true",
                        help="single-node job (the only kind this launcher starts)")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                        help="exported as MASTER_ADDR (MPI itself does not need it)")
    parser.add_argument("--master-port", "--master_port", type=int, default=29500,
                        help="exported as MASTER_PORT (MPI itself does not need it)")
    parser.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    parser.add_argument("-m", "--module", action="store_true",
                        help="run the script as a module, like python -m")
    parser.add_argument("--no-python", "--no_python", action="store_true",
                        help="run the script as an executable, not with python")
    parser.add_argument("training_script", help="the script (or module, or program) to run")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def _nproc(value: str) -> int:
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"Unsupported nproc_per_node value: {value}") from None


def _check(args) -> None:
    if args.nnodes not in ("1", "1:1"):
        raise NotImplementedError(
            f"--nnodes {args.nnodes}: this launcher starts processes on one machine; for "
            "several machines run `mpiexec -n N -f hostfile python -m ember.distributed.run "
            "script.py` (MPI starts the processes on the hosts)")
    if args.max_restarts:
        raise NotImplementedError("--max-restarts: ember's launcher does not restart failed "
                                  "workers")
    if args.module and args.no_python:
        raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at "
                         "the same time.")


def mpiexec_path() -> str:
    """The mpiexec next to this Python (the mpich wheel installs it there), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = beside if os.path.exists(beside) else shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("mpiexec was not found: pip install ember[distributed] installs "
                           "MPICH with it")
    return found


def started_by_mpi() -> bool:
    return any(names[0] in os.environ for names in _MPI_ENV)


def launch_workers(args, module: str, argv: list[str]) -> int:
    """Start `python -m <module> <argv>` in nproc processes under mpiexec; its exit code."""
    n = _nproc(args.nproc_per_node)
    command = [mpiexec_path(), "-n", str(n), sys.executable, "-u", "-m", module, *argv]
    env = dict(os.environ, MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port))
    if n > 1 and "OMP_NUM_THREADS" not in env:  # as torchrun: N processes x N BLAS threads
        env["OMP_NUM_THREADS"] = "1"             # would overload the machine
        print("Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
              "default, to avoid your system being overloaded, please further tune the "
              "variable for optimal performance in your application as needed.",
              file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ember-errors-") as errors:
        env["EMBER_ERROR_DIR"] = errors          # failing ranks leave their traceback here
        process = subprocess.Popen(command, env=env)
        try:
            code = process.wait()
        except KeyboardInterrupt:  # the terminal's Ctrl-C reached mpiexec too; let it stop
            code = process.wait()
        if code != 0:
            _report_failures(module, code, errors)
    return code


def _report_failures(module: str, code: int, errors: str) -> None:
    """torchrun-style summary: the traceback of each rank that failed."""
    for name in sorted(os.listdir(errors)):
        rank = name.removeprefix("rank").removesuffix(".txt")
        with open(os.path.join(errors, name), encoding="utf-8") as f:
            print(f"[rank {rank}] failed with:\n{f.read()}", file=sys.stderr, end="")
    print(f"{module}: the job failed (mpiexec exit code {code}); the failing rank's "
          "traceback is above", file=sys.stderr)


def _export_rank_environment(args) -> int:
    """Set torchrun's variables from MPI's own ones; returns the local rank."""
    for rank, size, local_rank, local_size in _MPI_ENV:
        if rank in os.environ:
            values = (os.environ[rank], os.environ[size],
                      os.environ.get(local_rank, os.environ[rank]),
                      os.environ.get(local_size, os.environ[size]))
            break
    os.environ.update(RANK=values[0], WORLD_SIZE=values[1], LOCAL_RANK=values[2],
                      LOCAL_WORLD_SIZE=values[3], GROUP_RANK=str(args.node_rank),
                      ROLE_RANK=values[0], ROLE_WORLD_SIZE=values[1])
    os.environ.setdefault("MASTER_ADDR", args.master_addr)
    os.environ.setdefault("MASTER_PORT", str(args.master_port))
    return int(values[2])


def run_worker(args, pass_local_rank: bool) -> None:
    """In a process started by MPI: set the environment and run the training script."""
    local_rank = _export_rank_environment(args)
    script_args = list(args.training_script_args)
    if pass_local_rank:  # torch.distributed.launch's way: before the script's arguments
        script_args.insert(0, f"--local-rank={local_rank}")
    if args.no_python:
        sys.stdout.flush()
        os.execvp(args.training_script, [args.training_script, *script_args])
    sys.argv = [args.training_script, *script_args]
    try:
        if args.module:
            runpy.run_module(args.training_script, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(args.training_script)))
            runpy.run_path(args.training_script, run_name="__main__")
    except SystemExit as exit:
        if exit.code not in (None, 0):
            print(f"[rank {os.environ['RANK']}] exited with {exit.code!r}", file=sys.stderr)
            _abort_job()
        raise
    except BaseException:
        # Also before init_process_group (whose hook handles later failures): MPI does
        # not stop the other ranks when one merely exits with an error.
        _abort_on_uncaught_exception(*sys.exc_info())


def _abort_job() -> None:
    from ._mpi import mpi
    sys.stderr.flush()
    mpi().COMM_WORLD.Abort(1)


def dispatch(args, argv: list[str], module: str, pass_local_rank: bool = False) -> None:
    """Run the script here when MPI started this process, else start the processes."""
    _check(args)
    if started_by_mpi():
        run_worker(args, pass_local_rank)
    else:
        sys.exit(launch_workers(args, module, argv))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    dispatch(get_args_parser().parse_args(argv), argv, "ember.distributed.run")


if __name__ == "__main__":
    main()
