"""What runs inside a DataLoader worker process: seeding, get_worker_info, the task loop,
and the wrapper that carries an exception (with its traceback text) to the main process."""
from __future__ import annotations

import os
import random
import signal
import sys
import traceback

import numpy as np

from .... import _random
from .fetch import create_fetcher
from . import shared_memory
from .shared_memory import BlockPool, Channel

WATCHDOG_INTERVAL = 1.0  # seconds between checks that the main process is still alive


class WorkerInfo:
    """What `get_worker_info()` returns inside a worker: id, num_workers, seed, dataset
    (this worker's copy). Read-only."""

    __initialized = False

    def __init__(self, **kwargs) -> None:
        for name, value in kwargs.items():
            setattr(self, name, value)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, name: str, value) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} "
                               "objects")
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process, this worker's WorkerInfo; None in the main
    process."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, pickled as its type and formatted traceback."""

    def __init__(self, exc_info, where: str) -> None:
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the same exception type in this process, its message carrying the
        worker's original traceback."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class KeyErrorMessage(str):
    """KeyError shows repr() of its argument; this keeps the traceback's line breaks."""

    def __repr__(self) -> str:
        return self


def numpy_seed(base_seed: int, worker_id: int) -> np.ndarray:
    """Four 32-bit words for np.random.seed, mixed from the worker id and both halves of
    the base seed by NumPy's SeedSequence (what torch 2.x does, so ember's workers and
    torch's start NumPy's global generator in the same state)."""
    entropy = [worker_id, base_seed & 0xFFFF_FFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4)


def seed_worker(base_seed: int, worker_id: int) -> int:
    seed = base_seed + worker_id
    random.seed(seed)
    _random.manual_seed(seed)
    np.random.seed(numpy_seed(base_seed, worker_id))
    return seed


class _Watchdog:
    """Notices when the main process has gone (the worker is re-parented)."""

    def __init__(self) -> None:
        self.parent = os.getppid()

    def parent_alive(self) -> bool:
        return os.getppid() == self.parent


def _next_message(conn: Channel, watchdog: _Watchdog):
    """The next message from the main process, or None when it asks us to stop or is
    gone."""
    while not conn.poll(WATCHDOG_INTERVAL):
        if not watchdog.parent_alive():
            return None
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None


def worker_loop(pipes: tuple, is_iterable: bool, dataset, auto_collation: bool, collate_fn,
                drop_last: bool, base_seed: int, init_fn, worker_id: int,
                num_workers: int) -> None:
    """Serve tasks until told to stop. Messages in: ("task", indices, released blocks),
    ("reset", released blocks) to restart an iterable dataset, or None. Messages out, one
    per task: ("data", block, block name, layout) (see BlockPool.pack),
    ("error", ExceptionWrapper) or ("end",) once an iterable dataset is exhausted."""
    global _worker_info
    conn = Channel(*pipes)  # (tasks in, answers out)
    signal.signal(signal.SIGTERM, shared_memory.exit_on_sigterm)  # run the cleanup below
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    watchdog = _Watchdog()
    pool = shared_memory._current_pool = BlockPool()
    where = f"in DataLoader worker process {worker_id}"
    init_error = fetcher = None
    try:
        seed = seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(sys.exc_info(), where)
    exhausted = False
    try:
        while (message := _next_message(conn, watchdog)) is not None:
            if message[0] == "reset":
                pool.release(message[1])
                if init_error is None:
                    fetcher = create_fetcher(is_iterable, dataset, auto_collation,
                                             collate_fn, drop_last)
                exhausted = False
                continue
            _, index, released = message
            pool.release(released)
            if init_error is not None:
                conn.send(("error", init_error))
                init_error = None  # reported once; the main process stops anyway
                continue
            if exhausted:
                conn.send(("end",))
                continue
            try:
                pool.start_task()
                conn.send(("data", *pool.pack(fetcher.fetch(index))))
            except StopIteration:
                exhausted = is_iterable
                conn.send(("end",) if is_iterable else
                          ("error", ExceptionWrapper(sys.exc_info(), where)))
            except Exception:
                conn.send(("error", ExceptionWrapper(sys.exc_info(), where)))
    except (KeyboardInterrupt, BrokenPipeError, EOFError, OSError):
        # The main process went away or interrupted us: stop serving; `finally` cleans up.
        return
    finally:
        pool.close()
        conn.close()
