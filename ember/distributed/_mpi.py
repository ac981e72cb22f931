"""The MPI side of ember.distributed: the lazy mpi4py import, tensor arrays as MPI
buffers, reduction ops, and Work objects that wait on MPI requests with a deadline.

MPI has no timeout on its collectives, so every operation is started nonblocking and
waited for by polling its requests (`Request.Testall`) until it completes or the
process group's timeout passes; then RuntimeError is raised instead of hanging.
"""
from __future__ import annotations

import enum
import functools
import time

import numpy as np

_MPI = None

# MPI moves a nonblocking collective forward only while some MPI call (here Test) runs,
# so a waiting rank polls continuously, yielding the CPU once per millisecond (for
# oversubscribed machines), for this long; only a longer wait, such as a rank waiting for
# another to save a checkpoint, backs off with short sleeps.
_BUSY_POLL_SECONDS = 5.0
_YIELD_EVERY = 1e-3
_MAX_PAUSE = 1e-3


def mpi():
    """mpi4py's MPI module, imported (and MPI initialised) on first use. Under ember's
    launcher, the rank then records what its launcher must clean up if it fails."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as error:
            raise ImportError("ember.distributed runs on MPI through mpi4py, which is not "
                              "installed: pip install ember[distributed]") from error
        _MPI = MPI
        from ._job_files import record_rank
        record_rank(MPI.COMM_WORLD.Get_rank())
    return _MPI


def started_world():
    """MPI's COMM_WORLD if this process has started MPI, else None (without starting it)."""
    return None if _MPI is None else _MPI.COMM_WORLD


def is_mpi_importable() -> bool:
    import importlib.util
    return _MPI is not None or importlib.util.find_spec("mpi4py") is not None


class RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class ReduceOp:
    """The reductions of all_reduce, reduce and reduce_scatter (ReduceOp.SUM, ...)."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED


_MPI_OP_NAMES = {RedOpType.SUM: "SUM", RedOpType.AVG: "SUM", RedOpType.PRODUCT: "PROD",
                 RedOpType.MIN: "MIN", RedOpType.MAX: "MAX", RedOpType.BAND: "BAND",
                 RedOpType.BOR: "BOR", RedOpType.BXOR: "BXOR"}


def mpi_op(op, array: np.ndarray):
    """The MPI.Op for ReduceOp `op` (AVG is a SUM divided afterwards)."""
    if op not in _MPI_OP_NAMES:
        if op == RedOpType.PREMUL_SUM:
            raise NotImplementedError("ReduceOp.PREMUL_SUM is not supported by ember's MPI "
                                      "backend")
        raise ValueError(f"Invalid ``op``. Expected ``op`` to be of type "
                         f"``torch.distributed.ReduceOp``, but got {op}.")
    if array.dtype.kind == "c" and op in (RedOpType.MIN, RedOpType.MAX):
        raise ValueError(f"all_reduce does not support {op.name} on complex tensors")
    return getattr(mpi(), _MPI_OP_NAMES[op])


def _is_half(dtype: np.dtype) -> bool:
    return dtype.itemsize == 2 and dtype.kind not in "iu"  # float16 and bfloat16


def as_buffer(array: np.ndarray, reduce: bool):
    """An array MPI can send or receive into for `array`, and a function that writes the
    result back into `array` (None when MPI works on `array`'s own memory).

    Moving data (broadcast, gather...) reinterprets half types and bool as raw bytes.
    MPI cannot add float16/bfloat16 numbers or bool, so reductions work on a float32
    (int32 for bool) copy that is rounded back into the tensor, as torch's fp16 math on
    CPU does. A non-contiguous array goes through a contiguous copy.
    """
    contiguous = array.flags.c_contiguous
    if not reduce and contiguous:
        if _is_half(array.dtype):
            return array.view(np.uint16), None
        if array.dtype == np.bool_:
            return array.view(np.uint8), None
        return array, None
    if reduce and (_is_half(array.dtype) or array.dtype == np.bool_):
        buffer = array.astype(np.int32 if array.dtype == np.bool_ else np.float32)
    elif contiguous:
        return array, None
    else:
        buffer = np.ascontiguousarray(array)

    def write_back():
        array[...] = buffer
    return buffer, write_back


def wait_requests(requests: list, seconds: float, what: str, statuses=None) -> None:
    """Wait until every MPI request in `requests` completed, or raise RuntimeError after
    `seconds`."""
    if len(requests) == 1:  # the common case, tested without building request arrays
        status = statuses[0] if statuses else None
        done = functools.partial(requests[0].Test, status)
    else:
        done = functools.partial(mpi().Request.Testall, requests, statuses)
    if done():
        return
    start = last_yield = time.monotonic()
    pause = 0.0
    while not done():
        now = time.monotonic()
        waited = now - start
        if waited > seconds:
            raise RuntimeError(f"Timed out waiting {int(seconds * 1000)}ms for {what} to "
                               "complete. Another rank may have stopped or be waiting in a "
                               "different collective (the timeout is init_process_group's "
                               "timeout= argument).")
        if waited > _BUSY_POLL_SECONDS:
            pause = min(2 * pause + 1e-5, _MAX_PAUSE)
            time.sleep(pause)
        elif now - last_yield > _YIELD_EVERY:
            time.sleep(0)
            last_yield = now


class Work:
    """A started communication; `wait()` blocks until it is done (async_op=True returns
    it). `finish` runs once after completion: AVG's division, copying results back. It
    may instead return `(requests, finish)`, a next stage to wait for (a receive that
    learns the payload's size from a header first). An exception raised by `finish` is
    the operation's error: `wait()` raises it."""

    def __init__(self, requests: list, timeout: float, what: str, finish=None,
                 result=None, statuses=None) -> None:
        self._requests = requests
        self._timeout = timeout
        self._what = what
        self._finish = finish
        self._result = result if result is not None else []
        self._statuses = statuses          # kept for source_rank()
        self._stage_statuses = statuses    # filled by the current stage's requests
        self._done = False
        self._exception = None

    def _advance(self) -> None:
        """The current requests completed: run `finish`, maybe starting a next stage."""
        finish, self._finish = self._finish, None
        try:
            stage = finish() if finish is not None else None
        except Exception as error:
            stage, self._exception = None, error
        if stage is None:
            self._done = True
        else:
            self._requests, self._finish = stage
            self._stage_statuses = None

    def is_completed(self) -> bool:
        """Whether the operation finished (checking does not block)."""
        while not self._done and mpi().Request.Testall(self._requests, self._stage_statuses):
            self._advance()
        return self._done

    def wait(self, timeout=None) -> bool:
        """Block until done; RuntimeError after `timeout` (a timedelta; default: the
        process group's timeout), or the operation's own error."""
        seconds = self._timeout if timeout is None else timeout.total_seconds()
        while not self._done:
            wait_requests(self._requests, seconds, self._what, self._stage_statuses)
            self._advance()
        if self._exception is not None:
            raise self._exception
        return True

    def is_success(self) -> bool:
        return self.is_completed() and self._exception is None

    def exception(self):
        """The error the operation ended with, or None."""
        return self._exception

    def result(self) -> list:
        """The output tensors of the operation."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """For a receive from any source: the rank that sent the message."""
        self.wait()
        if self._statuses is None:
            raise RuntimeError("source_rank() is only available on a receive's Work")
        return self._statuses[0].Get_source()
