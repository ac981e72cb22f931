"""spawn / start_processes: run fn(i, *args) in nprocs processes and wait for them.

When a process fails, the others are stopped and the parent raises: a
ProcessRaisedException carrying the child's traceback text when fn raised, a
ProcessExitedException with the exit code or signal when the process died otherwise.
A child writes its traceback to a file named by the parent (a one-shot message that
cannot block the way a full pipe can).
"""
from __future__ import annotations

import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import traceback
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
_DEFAULT_GRACE = 30.0   # seconds the others get after SIGTERM before SIGKILL (torch's)


class ProcessException(Exception):
    """A process started by spawn failed: `error_index` is its index, `error_pid` its pid."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """fn raised an exception in the child; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """The child exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _die_with_parent() -> None:
    """Linux: have the kernel send this process SIGINT when its parent dies, so that
    non-daemonic children do not outlive a killed parent."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGINT)
        except (OSError, AttributeError):
            pass


def _wrap(fn, i: int, args: tuple, error_file: str) -> None:
    """The child's entry point: fn(i, *args), its traceback written to error_file."""
    _die_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass     # stopped by the parent
    except Exception:
        with open(error_file, "w") as f:
            f.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by start_processes, and their error files."""

    def __init__(self, processes: list, error_files: list):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list:
        return [int(process.pid) for process in self.processes]

    def _join_all(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait up to `timeout` for a process to end. True once all have ended well,
        False while some still run. When one failed, stop the others (SIGTERM after
        `grace_period`, SIGKILL if they do not go) and raise its exception."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        self._stop_all(grace_period)
        raise self._error(error_index)

    def _stop_all(self, grace_period: float | None) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", process.pid)
                process.terminate()
        self._join_all(_DEFAULT_GRACE if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting "
                            "via SIGKILL", process.pid)
                process.kill()
            process.join()

    def _error(self, index: int) -> ProcessException:
        process, error_file = self.processes[index], self.error_files[index]
        if os.path.exists(error_file):
            with open(error_file) as f:
                trace = f.read()
            os.unlink(error_file)
            return ProcessRaisedException(
                f"\n\n-- Process {index:d} terminated with the following error:\n{trace}",
                index, process.pid)
        code = process.exitcode
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            return ProcessExitedException(f"process {index:d} terminated with signal {name}",
                                          index, process.pid, code, name)
        return ProcessExitedException(f"process {index:d} terminated with exit code {code:d}",
                                      index, process.pid, code)


class SpawnContext(ProcessContext):
    """The old name of ProcessContext."""

    def __init__(self, processes: list, error_files: list):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def _error_file_name() -> str:
    """A fresh path for a child's traceback; the file exists only if the child fails."""
    handle, name = tempfile.mkstemp(prefix="ember-errorfile-", suffix=".txt")
    os.close(handle)
    os.unlink(name)
    return name


def start_processes(fn, args: tuple = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn"):
    """Start nprocs processes running fn(i, *args) with the given start method ('spawn',
    'fork' or 'forkserver'). With join, wait for all (raising on the first failure) and
    return None; else return their ProcessContext."""
    context = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        error_file = _error_file_name()
        process = context.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    process_context = ProcessContext(processes, error_files)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn"):
    """start_processes with the 'spawn' start method: fn must be importable by name
    (defined at the top level of a module), as the children start afresh. With MPI
    installed, the processes of a joined spawn are the ranks of one MPI job (_mpi_spawn.py),
    so that fn can call init_process_group(rank=i, world_size=nprocs)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    if join and nprocs > 1:
        from . import _mpi_spawn
        if _mpi_spawn.available():   # the processes are MPI ranks: they can form a group
            return _mpi_spawn.spawn(fn, args, nprocs)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
