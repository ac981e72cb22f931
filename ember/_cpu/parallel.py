"""Spread large NumPy passes over the BLAS threads.

NumPy runs every elementwise pass on one core, while its BLAS keeps a pool of worker
threads for matrix products: with two cores, ember's copies, transposes and pointwise
passes left one core idle (or, worse, fighting with the BLAS workers that spin-wait
for their next product). `parallel_for` hands pieces of a pass to those same workers
through OpenBLAS's `gotoblas_pthread` (its pthread_create-like entry point): each
worker calls back into Python, claims pieces from a shared counter and runs them;
NumPy releases the interpreter lock inside its loops, so the pieces run at once.

Rules for the work given to `parallel_for`:
- the pieces write disjoint memory and depend on nothing but their inputs;
- they may use NumPy freely, BLAS included: inside a parallel region OpenBLAS is set
  to one thread, so a product in a piece runs in that piece's thread;
- a parallel_for inside a piece runs its pieces one after another.
Where OpenBLAS is not NumPy's BLAS, or one thread is configured, pieces run in order
in the calling thread: results never depend on the number of threads.
"""
from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Callable

from .openblas import LIBRARY
from .tuning import MIN_PARALLEL_VALUES


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _Region:
    """The work of the running parallel_for: pieces claimed from a shared counter."""

    def __init__(self, pieces, task):
        self.pieces, self.task = pieces, task
        self.next_piece = itertools.count()
        self.owner = threading.get_ident()
        self.errors = []

    def work(self) -> None:
        try:
            for index in iter(self.next_piece.__next__, None):
                if index >= len(self.pieces):
                    return
                self.task(self.pieces[index])
        except BaseException as error:          # re-raised by the caller, not lost
            self.errors.append(error)


# One region at a time: held while it runs, so that a parallel_for inside a piece, or
# in another Python thread meanwhile, runs its pieces in order instead.
_busy = threading.Lock()
_current: list = [None]
_workers_with_python_state: set = set()


def _run_region(_argument) -> None:
    """Entry point of every thread taking part in a region (the caller's included)."""
    region = _current[0]
    thread = threading.get_ident()
    if thread != region.owner and thread not in _workers_with_python_state:
        # ctypes gives a foreign thread a fresh interpreter state on every callback and
        # frees it afterwards (~10 us); one extra, never released, keeps it for reuse.
        _workers_with_python_state.add(thread)
        ctypes.pythonapi.PyGILState_Ensure()
    region.work()


_ENTRY = _CALLBACK(_run_region)


def threads() -> int:
    """How many threads a parallel_for uses."""
    if LIBRARY.start_threads is None:
        return 1
    return LIBRARY.get_num_threads()


def parallel_for(pieces, task: Callable, values: int) -> None:
    """Call task(piece) for every piece, spread over the BLAS threads when the pass
    touches at least MIN_PARALLEL_VALUES `values` (and one after another otherwise)."""
    pieces = list(pieces)
    available = threads()
    count = min(available, len(pieces))
    if count < 2 or values < MIN_PARALLEL_VALUES or not _busy.acquire(blocking=False):
        for piece in pieces:
            task(piece)
        return
    region = _current[0] = _Region(pieces, task)
    LIBRARY.set_num_threads(1)
    try:
        LIBRARY.start_threads(count, ctypes.cast(_ENTRY, ctypes.c_void_p), None, 0)
    finally:
        LIBRARY.set_num_threads(available)
        _current[0] = None
        _busy.release()
    if region.errors:
        raise region.errors[0]


def split(total: int, parts: int) -> list:
    """`parts` contiguous slices covering range(total), sizes differing by at most one."""
    parts = max(1, min(parts, total))
    bounds = [total * k // parts for k in range(parts + 1)]
    return [slice(lo, hi) for lo, hi in zip(bounds, bounds[1:])]
