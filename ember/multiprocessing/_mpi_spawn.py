"""spawn's processes as the ranks of one MPI job, so that they can form a process group.

torch's CPU recipe for data-parallel training starts its workers with
`mp.spawn(fn, args, nprocs=N)`; each calls `init_process_group("gloo", rank=i,
world_size=N)` and gloo connects them. ember's process groups run on MPI, which connects
only processes that an MPI launcher started together. So when MPI is installed
(ember[distributed]), `spawn` starts its N processes with `mpiexec -n N` instead of
multiprocessing: process i is MPI rank i and runs fn(i, *args) exactly as a spawned child
would (the main script re-imported as __mp_main__, the arguments unpickled with
multiprocessing's reducers, so shared tensors stay shared). A failing process stops the
job and the parent raises ProcessRaisedException with its traceback, as spawn does.

    python -m ember.multiprocessing._mpi_spawn <job file>     (one rank; run by mpiexec)
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from multiprocessing import spawn as multiprocessing_spawn
from multiprocessing.reduction import ForkingPickler

from ..distributed import _job_files, _mpi
from ..distributed.distributed_c10d import ABORT_GRACE
from ..distributed.run import (forward_output, mpiexec_path, mpi_rank_from_environment,
                               passing_signals_to, started_by_mpi)
from .spawn import ProcessExitedException, ProcessRaisedException

_JOB_FILE = "spawn.pickle"
_POLL = 0.1             # seconds between the parent's looks for a failed rank
_STOP_GRACE = 2.0       # seconds the job gets to end by itself after a rank failed


def available() -> bool:
    """Whether spawn can start its processes as an MPI job: mpi4py and mpiexec are
    installed, this process is not itself a rank of one, and this is the main thread
    (which alone can pass signals on to mpiexec)."""
    if started_by_mpi() or not _mpi.is_mpi_importable() or \
            threading.current_thread() is not threading.main_thread():
        return False
    try:
        return bool(mpiexec_path())
    except RuntimeError:
        return False


def spawn(fn, args: tuple, nprocs: int) -> None:
    """Run fn(i, *args) for i < nprocs in the ranks of an MPI job and wait for them; raise
    spawn's exception for the first failing rank."""
    preparation = multiprocessing_spawn.get_preparation_data("ember-spawn")
    # (the key as bytes: its own type refuses to be pickled outside a process start)
    preparation["authkey"] = bytes(preparation["authkey"])
    # One pickle per rank: a tensor shared by file descriptor is handed over once per pickle.
    payloads = [bytes(ForkingPickler.dumps((fn, args))) for _ in range(nprocs)]
    with tempfile.TemporaryDirectory(prefix="ember-job-") as job:
        path = os.path.join(job, _JOB_FILE)
        with open(path, "wb") as f:
            pickle.dump((preparation, payloads), f)
        command = [mpiexec_path(), "-n", str(nprocs), sys.executable, "-m", __name__, path]
        process = subprocess.Popen(command, env=dict(os.environ, **{_job_files.JOB_DIR: job}),
                                   stdout=subprocess.PIPE)
        finished = threading.Event()
        watcher = threading.Thread(target=_stop_after_a_failure, args=(process, job, finished),
                                   daemon=True)
        watcher.start()
        with passing_signals_to(process):
            killed = forward_output(process.stdout)
            code = process.wait()
        finished.set()
        watcher.join()
        _job_files.remove_segments(job)
        if code != 0:
            raise _failure(job, code, killed)


def _stop_after_a_failure(process: subprocess.Popen, job: str, finished) -> None:
    """Stop the job once a rank has failed. A rank that had joined a process group aborts
    the MPI job itself; one that failed before would leave the others waiting (in
    MPI_Init, or for a message) until MPI's own timeout."""
    while not finished.wait(_POLL):
        if _job_files.read_failures(job):
            if not finished.wait(_STOP_GRACE):
                process.terminate()
            return


def _failure(job: str, code: int, killed) -> Exception:
    """spawn's exception for the failed job: the first rank's traceback, else the rank
    mpiexec reports killed by a signal, else mpiexec's exit code."""
    failures = _job_files.read_failures(job)
    pids = {rank: record["pid"] for rank, record in _job_files.read_ranks(job).items()}
    if failures:
        rank, trace = next(iter(failures.items()))
        return ProcessRaisedException(
            f"\n\n-- Process {rank:d} terminated with the following error:\n{trace}", rank,
            pids.get(rank, -1))
    if killed:
        pid, signum = killed
        rank = next((r for r, p in pids.items() if p == pid), 0)
        name = signal.Signals(signum).name
        return ProcessExitedException(f"process {rank:d} terminated with signal {name}", rank,
                                      pid, -signum, name)
    return ProcessExitedException(f"process 0 terminated with exit code {code:d}", 0,
                                  pids.get(0, -1), code)


def _run_rank(path: str) -> None:
    """In a rank of the job: become a spawned child of the parent, then run fn."""
    for stream in (sys.stdout, sys.stderr):    # whole lines reach the parent as they come
        stream.reconfigure(line_buffering=True)
    with open(path, "rb") as f:
        preparation, payloads = pickle.load(f)
    multiprocessing_spawn.prepare(preparation)    # sys.path, argv, __main__, authkey
    rank = mpi_rank_from_environment()
    try:
        fn, args = pickle.loads(payloads[rank])
        fn(rank, *args)
    except KeyboardInterrupt:
        return                          # stopped by the parent (Ctrl-C passed on), not failed
    except BaseException as error:      # noqa: BLE001  (SystemExit too: the rank failed)
        if isinstance(error, SystemExit) and error.code in (None, 0):
            return
        _job_files.record_failure(rank, traceback.format_exc())
        _stop_job()


def _stop_job() -> None:
    """End this failing rank; abort the job if the ranks are connected, so that the
    others do not wait for it in their next collective."""
    sys.stdout.flush()
    sys.stderr.flush()
    world = _mpi.started_world()
    if world is not None and world.Get_size() > 1:
        time.sleep(ABORT_GRACE)   # (for its output to reach the parent first)
        world.Abort(1)
    sys.exit(1)


if __name__ == "__main__":
    _run_rank(sys.argv[1])
