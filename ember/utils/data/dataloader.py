"""DataLoader: batches from a dataset, in the main process or in worker processes.

With num_workers > 0 each worker is a real process with a pipe each way. The main
process keeps prefetch_factor * num_workers tasks (lists of indices) in flight, handed
out round-robin; a worker answers each of its tasks in order, sending the collated batch
through shared memory (see _utils/shared_memory.py) and only a small message through its
pipe. Batches are delivered in sampler order (in_order=True) or as they come.
"""
from __future__ import annotations

import contextlib

import itertools
import math
import multiprocessing
import os
import signal
import time
import warnings
from collections import deque
from multiprocessing.connection import wait as wait_for_connections
from typing import Generic, TypeVar

from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, fresh_seed
from .dataset import IterableDataset
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import create_fetcher
from ._utils.shared_memory import BlockReader, Channel, prepare_main_process
from ._utils.worker import worker_loop

__all__ = ["DataLoader"]

_T_co = TypeVar("_T_co", covariant=True)  # the batch type, as in DataLoader[Tensor]

SHUTDOWN_GRACE = 0.5  # seconds workers get to exit by themselves before being terminated
LIVENESS_INTERVAL = 0.5  # seconds between checks that the awaited worker is alive


class _InfiniteConstantSampler(Sampler):
    """None forever: the 'indices' for an IterableDataset (its fetcher ignores them)."""

    def __iter__(self):
        return itertools.repeat(None)


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


def _usable_cpu_count() -> int | None:
    """The CPUs this process may run on (its affinity mask, where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


def _check_context(multiprocessing_context, num_workers: int):
    if multiprocessing_context is None:
        return None
    if num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process "
                         f"loading (num_workers > 0), but got num_workers={num_workers}")
    if isinstance(multiprocessing_context, str):
        methods = multiprocessing.get_all_start_methods()
        if multiprocessing_context not in methods:
            raise ValueError("multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got "
                             f"multiprocessing_context={multiprocessing_context!r}")
        return multiprocessing.get_context(multiprocessing_context)
    if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or "
                        "a string specifying the start method, but got "
                        f"multiprocessing_context={multiprocessing_context}")
    return multiprocessing_context


class DataLoader(Generic[_T_co]):
    """Iterate over `dataset` in batches (see torch.utils.data.DataLoader; pin_memory is
    accepted and does nothing, as there is no accelerator)."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0, collate_fn=None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.in_order = in_order
        self._is_iterable = isinstance(dataset, IterableDataset)

        if self._is_iterable:
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = _check_context(multiprocessing_context, num_workers)
        self._IterableDataset_len_called = None
        self._iterator = None
        self.__initialized = True
        self.check_worker_number_rationality()

    def __setattr__(self, attr: str, value) -> None:
        if attr in _FROZEN and getattr(self, "_DataLoader__initialized", False):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What yields each fetch's index: the batch sampler, or the sampler itself when
        auto-batching is off."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def check_worker_number_rationality(self) -> None:
        """Warn, as torch does (at construction and at each start of the workers), when
        more workers are asked for than this process has CPUs to run them."""
        cpus = _usable_cpu_count()
        if not self.num_workers or (cpus is not None and self.num_workers <= cpus):
            return
        if cpus is None:
            suggestion = ("DataLoader is not able to compute a suggested max number of worker "
                          "in current system.")
        else:
            cpuset = ("" if hasattr(os, "sched_getaffinity")
                      else " (`cpuset` is not taken into account)")
            suggestion = (f"Our suggested max number of worker in current system is {cpus}"
                          f"{cpuset}, which is smaller than what this DataLoader is going to "
                          "create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                      f"total. {suggestion} Please be aware that excessive worker creation "
                      "might get DataLoader running slow or even freeze, lower the worker "
                      "number to avoid potential slowness/freeze if necessary.", stacklevel=2)

    def __iter__(self):
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self) -> int:
        if not self._is_iterable:
            return len(self._index_sampler)
        # An estimate from the dataset's own length; a warning follows if more batches
        # come (e.g. workers each yielding the whole stream).
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last else math.ceil(
                length / self.batch_size)
        return length


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        # Drawn before the sampler's own seed, as torch does, so a fixed generator gives
        # the same batches whatever num_workers is.
        self._base_seed = fresh_seed(loader.generator)
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def __iter__(self):
        return self

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if self._is_iterable and reported is not None and self._num_yielded > reported:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {reported}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have "
                   "been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not "
                        "properly configuring the IterableDataset replica at each worker. "
                        "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                        "data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getattr__(self, name: str):
        # Only reached for attributes that do not exist: torch's AttributeError, plus a
        # hint for the Python 2 spelling that old tutorials use (iter(loader).next()).
        message = f"'{type(self).__name__}' object has no attribute '{name}'"
        if name == "next":
            message += (". `it.next()` is the Python 2 iterator method; in Python 3 write "
                        "`next(it)` (for example `images, labels = next(iter(loader))`)")
        raise AttributeError(message, name=name, obj=self)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = create_fetcher(self._is_iterable, self._dataset, self._auto_collation,
                                       self._collate_fn, self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())


def _died_message(dead) -> str:
    pids = ", ".join(str(p.pid) for p in dead)
    causes = []
    for p in dead:
        code = p.exitcode
        if code is not None and code < 0:
            try:
                causes.append(f"pid {p.pid} was killed by signal {signal.Signals(-code).name}")
            except ValueError:
                causes.append(f"pid {p.pid} was killed by signal {-code}")
        elif code is not None:
            causes.append(f"pid {p.pid} exited with code {code}")
    hint = (f" ember: {'; '.join(causes)} (out of memory, os._exit or sys.exit in the "
            "dataset or a crash in a C extension are the usual causes).") if causes else ""
    return f"DataLoader worker (pid(s) {pids}) exited unexpectedly.{hint}"


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        self._shutdown = True  # until the workers exist
        context = loader.multiprocessing_context or multiprocessing
        prepare_main_process()
        self._reader = BlockReader(self._num_workers)
        self._workers, self._conns = [], []
        first_tasks = self._plan_epoch()
        for worker_id in range(self._num_workers):
            task_in, task_out = context.Pipe(duplex=False)
            answer_in, answer_out = context.Pipe(duplex=False)
            process = context.Process(
                target=worker_loop, daemon=True,
                args=((task_in, answer_out), self._is_iterable, self._dataset,
                      self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, loader.worker_init_fn, worker_id, self._num_workers))
            process.start()  # returns at once: workers boot in parallel
            task_in.close()
            answer_out.close()
            self._workers.append(process)
            self._conns.append(Channel(answer_in, task_out))
            self._shutdown = False
            # its first tasks at once: it starts on them while the next one is forked
            self._send_tasks(worker_id, first_tasks[worker_id])

    def _plan_epoch(self) -> list[list]:
        """The epoch's first prefetch_factor * num_workers tasks, handed out
        round-robin: per worker, its list of indices."""
        self._active = [True] * self._num_workers  # False once an iterable worker ended
        self._next_worker = itertools.cycle(range(self._num_workers))
        self._pending: deque[int] = deque()  # the worker of each task, in send order
        tasks = [[] for _ in range(self._num_workers)]
        for _ in range(self._prefetch_factor * self._num_workers):
            worker_id, index = self._next_task()
            if worker_id is None:
                break
            tasks[worker_id].append(index)
        return tasks

    def _reset(self, loader: DataLoader) -> None:
        """Start a new epoch on the same (persistent) workers."""
        super()._reset(loader)
        while self._pending:  # answers to the abandoned epoch's tasks: receive, drop
            worker_id = self._pending.popleft()
            self._unpack(worker_id, self._receive(worker_id))
        first_tasks = self._plan_epoch()
        for worker_id in range(self._num_workers):
            self._send(worker_id, ("reset", self._reader.take_released(worker_id)))
            self._send_tasks(worker_id, first_tasks[worker_id])

    def _next_task(self) -> tuple[int | None, object]:
        """(worker, index) of the next task, noted as pending; (None, None) when the
        sampler is exhausted or no worker is active."""
        if not any(self._active):
            return None, None
        try:
            index = self._next_index()
        except StopIteration:
            return None, None
        worker_id = next(self._next_worker)
        while not self._active[worker_id]:
            worker_id = next(self._next_worker)
        self._pending.append(worker_id)
        return worker_id, index

    def _send(self, worker_id: int, message) -> None:
        """Send `message` to a worker; one that died (its pipe broken) is reported as
        such, whether or not the loss was noticed before."""
        try:
            self._conns[worker_id].send(message)
        except OSError:     # BrokenPipeError: its end of the pipe is closed
            self._workers[worker_id].join(SHUTDOWN_GRACE)
            self._fail_dead_workers(worker_id)

    def _send_tasks(self, worker_id: int, indices: list) -> None:
        for index in indices:
            self._send(worker_id, ("task", index, self._reader.take_released(worker_id)))

    def _try_put_index(self) -> None:
        worker_id, index = self._next_task()
        if worker_id is not None:
            self._send_tasks(worker_id, [index])

    def _receive(self, worker_id: int):
        """The next message from `worker_id`, raising when it died or timed out."""
        conn, process = self._conns[worker_id], self._workers[worker_id]
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            left = LIVENESS_INTERVAL if deadline is None else deadline - time.monotonic()
            if conn.poll(max(0.0, min(left, LIVENESS_INTERVAL))):
                try:
                    return conn.recv()
                except (EOFError, OSError):  # its end of the pipe closed: it is gone
                    process.join(SHUTDOWN_GRACE)
                    self._fail_dead_workers(worker_id)
            if not process.is_alive():
                self._fail_dead_workers(worker_id)
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _fail_dead_workers(self, suspect: int | None = None):
        """Stop and raise the error naming the dead workers (`suspect`, whose pipe
        broke, if no other is found dead)."""
        dead = [p for p in self._workers if not p.is_alive()]
        if not dead and suspect is not None:
            dead = [self._workers[suspect]]
        self._shutdown_workers()
        raise RuntimeError(_died_message(dead))

    def _receive_any(self) -> tuple[int, tuple]:
        """in_order=False: the first answer from any worker with tasks in flight."""
        busy = list(dict.fromkeys(self._pending))  # oldest task's worker first
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            for worker_id in busy:  # a message may already sit in a channel's buffer
                if self._conns[worker_id].poll(0):
                    return worker_id, self._receive(worker_id)
            left = LIVENESS_INTERVAL if deadline is None else deadline - time.monotonic()
            if wait_for_connections([self._conns[w].fd for w in busy],
                                    max(0.0, min(left, LIVENESS_INTERVAL))):
                continue
            if not all(self._workers[w].is_alive() for w in busy):
                self._fail_dead_workers()
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _unpack(self, worker_id: int, message: tuple):
        """The batch in `message`, or the ExceptionWrapper of an error."""
        kind = message[0]
        if kind == "data":
            return self._reader.unpack(worker_id, *message[1:])
        if kind == "error":
            return message[1]
        return None  # "end": this worker's IterableDataset is exhausted

    def _next_data(self):
        while self._pending:
            if self._in_order:
                worker_id = self._pending.popleft()
                message = self._receive(worker_id)
            else:
                worker_id, message = self._receive_any()
                self._pending.remove(worker_id)  # its oldest task
            data = self._unpack(worker_id, message)
            if message[0] == "end":
                self._active[worker_id] = False
                self._try_put_index()
                continue
            self._try_put_index()
            if message[0] == "error":
                self._shutdown_workers()
                data.reraise()
            return data
        if not self._persistent_workers:
            # Every task is answered, so each worker is waiting for its next message and
            # exits as soon as it reads the request to stop: no need to wait for it
            # (exiting takes a forked process milliseconds; multiprocessing reaps it later).
            self._shutdown_workers(wait=False)
        raise StopIteration

    def _shutdown_workers(self, wait: bool = True) -> None:
        """Ask every worker to stop and, with `wait`, give them a moment, then terminate
        the rest."""
        if self._shutdown:
            return
        self._shutdown = True
        for conn in self._conns:
            with contextlib.suppress(OSError):  # BrokenPipeError: that worker is already gone
                conn.send(None)
        if wait:
            self._join_workers()
        dead = {i for i, p in enumerate(self._workers) if p.exitcode not in (0, None)}
        self._reader.close(dead_workers=dead)
        for conn in self._conns:
            conn.close()

    def _join_workers(self) -> None:
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for process in self._workers:
            process.join(max(0.0, deadline - time.monotonic()))
        stuck = [p for p in self._workers if p.is_alive()]
        for process in stuck:
            process.terminate()
        for process in stuck:
            process.join(SHUTDOWN_GRACE)
            if process.is_alive():
                process.kill()
                process.join()

    def __del__(self) -> None:
        if not getattr(self, "_shutdown", True):
            self._shutdown_workers()
