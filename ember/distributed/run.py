"""`python -m ember.distributed.run --nproc-per-node N script.py args` (also `ember
torchrun ...`): torchrun's command line, with the processes started by MPI's `mpiexec`.

The launcher runs `mpiexec -n N python -m ember.distributed.run <same arguments>`; each
of those processes sees it was started by MPI, sets torchrun's environment variables
(RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT),
makes `import torch` give ember (as `ember run` does) and runs the script in place. The
same works across machines under an MPI launch of your own:
`mpiexec -n 8 -f hostfile python -m ember.distributed.run script.py`.

When one rank fails, its traceback is printed and MPI stops every process of the job
(init_process_group installs the hook that aborts the job on an uncaught exception). The
launcher then says which rank failed, with its traceback or the signal that killed it,
removes the shared memory its ranks' MPI left behind (`_job_files.py`), and exits with a
non-zero code. Stopping the launcher (Ctrl-C, SIGTERM) stops the job the same way.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from .. import compat
from ..cli import run as runner
from . import _job_files
from ._mpi import mpi
from .distributed_c10d import _abort_on_uncaught_exception

# Environment variables by which MPI launchers (MPICH's hydra, Open MPI) tell a process
# its place in the job: (rank, size, local rank, local size).
_MPI_ENV = [("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
             "OMPI_COMM_WORLD_LOCAL_SIZE")]


def get_args_parser(description: str = "Start N processes running a training script "
                    "(torchrun's options), connected by MPI.",
                    prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description, allow_abbrev=False)
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
    """Start `python -m <module> <argv>` in nproc processes under mpiexec; its exit code.
    mpiexec's output passes through this process, which reads the report mpiexec gives
    of a rank killed by a signal."""
    n = _nproc(args.nproc_per_node)
    command = [mpiexec_path(), "-n", str(n), sys.executable, "-u", "-m", module, *argv]
    env = dict(os.environ, MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port))
    if n > 1 and "OMP_NUM_THREADS" not in env:  # as torchrun: N processes x N BLAS threads
        env["OMP_NUM_THREADS"] = "1"             # would overload the machine
        print("Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
              "default, to avoid your system being overloaded, please further tune the "
              "variable for optimal performance in your application as needed.",
              file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ember-job-") as job:
        env[_job_files.JOB_DIR] = job
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE)
        with passing_signals_to(process) as received:
            killed = forward_output(process.stdout)
            code = process.wait()
        _job_files.remove_segments(job)
        if code != 0:
            _report_failure(module, code, job, killed, received)
    if received:  # end as the signal would have ended this process
        signal.signal(received[0], signal.SIG_DFL)
        os.kill(os.getpid(), received[0])
    return code


@contextlib.contextmanager
def passing_signals_to(process: subprocess.Popen):
    """Pass SIGINT, SIGTERM and SIGHUP on to mpiexec (which stops the ranks) instead of
    dying at once and leaving the job without its clean-up; yields the signals received."""
    received = []

    def forward(signum, frame):
        received.append(signum)
        process.send_signal(signum)
    previous = {sig: signal.signal(sig, forward)
                for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# mpiexec's (hydra's) report of a process that died of a signal.
_KILLED_PID = re.compile(r"^=\s+PID (\d+) RUNNING AT")
_KILLED_BY = re.compile(r"EXIT STRING: .*\(signal (\d+)\)")


def forward_output(stream) -> tuple[int, int] | None:
    """Copy mpiexec's output to ours as it comes; (pid, signal) of the rank it reports
    killed by a signal, if any."""
    out = sys.stdout.buffer
    pid = signum = None
    pending = b""
    for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
        out.write(chunk)
        out.flush()
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            text = line.decode(errors="replace")
            if pid is None and (match := _KILLED_PID.match(text)):
                pid = int(match.group(1))
            elif signum is None and (match := _KILLED_BY.search(text)):
                signum = int(match.group(1))
    return (pid, signum) if pid is not None and signum is not None else None


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _report_failure(module: str, code: int, job: str, killed, received: list) -> None:
    """torchrun-style summary: each failed rank's traceback, the rank killed by a signal,
    or the signal that stopped the launcher."""
    failures = _job_files.read_failures(job)
    for rank, text in failures.items():
        print(f"[rank {rank}] failed with:\n{text}", file=sys.stderr, end="")
    reasons = []
    if received:  # then the ranks died of the signal passed on to them
        reasons.append(f"the launcher received {_signal_name(received[0])} and stopped the "
                       "job")
    elif killed:
        pid, signum = killed
        ranks = {record["pid"]: rank for rank, record in _job_files.read_ranks(job).items()}
        who = f"rank {ranks[pid]}" if pid in ranks else "a process"
        reasons.append(f"{who} (pid {pid}) died of signal {signum} ({_signal_name(signum)})")
    if failures:
        reasons.append("the failing rank's error is above")
    why = "; ".join(reasons) or "no rank left a traceback"
    print(f"{module}: the job failed (mpiexec exit code {code}): {why}", file=sys.stderr)


def _mpi_environment() -> tuple[str, str, str, str]:
    """(rank, size, local rank, local size) as the MPI launcher gave them to this process."""
    for rank, size, local_rank, local_size in _MPI_ENV:
        if rank in os.environ:
            return (os.environ[rank], os.environ[size],
                    os.environ.get(local_rank, os.environ[rank]),
                    os.environ.get(local_size, os.environ[size]))
    raise RuntimeError("this process was not started by an MPI launcher")


def mpi_rank_from_environment() -> int:
    """This process's rank in the MPI job that started it, read before MPI starts."""
    return int(_mpi_environment()[0])


def _export_rank_environment(args) -> int:
    """Set torchrun's variables from MPI's own ones; returns the local rank."""
    values = _mpi_environment()
    os.environ.update(RANK=values[0], WORLD_SIZE=values[1], LOCAL_RANK=values[2],
                      LOCAL_WORLD_SIZE=values[3], GROUP_RANK=str(args.node_rank),
                      ROLE_RANK=values[0], ROLE_WORLD_SIZE=values[1])
    os.environ.setdefault("MASTER_ADDR", args.master_addr)
    os.environ.setdefault("MASTER_PORT", str(args.master_port))
    return int(values[2])


def run_worker(args, pass_local_rank: bool) -> None:
    """In a process started by MPI: set the environment and run the training script,
    with `import torch` giving ember."""
    local_rank = _export_rank_environment(args)
    script_args = list(args.training_script_args)
    if pass_local_rank:  # torch.distributed.launch's way: before the script's arguments
        script_args.insert(0, f"--local-rank={local_rank}")
    if args.no_python:
        sys.stdout.flush()
        os.execvp(args.training_script, [args.training_script, *script_args])
    mpi()  # MPI starts before the script does, so the rank records what to clean up
    compat.install()
    rank = int(os.environ["RANK"])
    try:
        runner.run_target(runner.MODULE if args.module else runner.SCRIPT,
                          args.training_script, script_args)
    except SystemExit as exit:
        if exit.code not in (None, 0):
            print(f"[rank {rank}] exited with {exit.code!r}", file=sys.stderr)
            _job_files.record_failure(rank, f"exited with {exit.code!r}\n")
            _abort_job()
        raise
    except BaseException as error:
        # Also before init_process_group (whose hook handles later failures): MPI does
        # not stop the other ranks when one merely exits with an error.
        _abort_on_uncaught_exception(type(error), error,
                                     runner.code_traceback(error, __file__))
        sys.exit(1)  # a job of one process is not aborted


def _abort_job() -> None:
    sys.stderr.flush()
    mpi().COMM_WORLD.Abort(1)


def dispatch(args, argv: list[str], module: str, pass_local_rank: bool = False) -> None:
    """Run the script here when MPI started this process, else start the processes."""
    _check(args)
    if started_by_mpi():
        run_worker(args, pass_local_rank)
    else:
        sys.exit(launch_workers(args, module, argv))


def main(argv: list[str] | None = None, prog: str = "python -m ember.distributed.run") -> None:
    """torchrun's entry point: launch the processes, or (in one of them) run the script."""
    argv = sys.argv[1:] if argv is None else argv
    dispatch(get_args_parser(prog=prog).parse_args(argv), argv, "ember.distributed.run")


if __name__ == "__main__":
    main()
