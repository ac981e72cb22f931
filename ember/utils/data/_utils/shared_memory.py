"""Moving batches from worker processes to the main process through shared memory.

A worker pickles its batch with every large array (the storage of a tensor or a NumPy
array) left out: the pickle records only where in a shared-memory block the array's
bytes were written. The main process unpickles that small message, copying the arrays
out of the block, and hands the block back to the worker for reuse (the block id rides
along with the worker's next task). So each worker keeps a few blocks alive for the
whole run instead of creating one per batch, and no large array is ever pickled.
"""
from __future__ import annotations

import io
import pickle
import select
from multiprocessing import resource_tracker
from multiprocessing.shared_memory import SharedMemory

import numpy as np

from ...._tensor import Tensor

ALIGN = 64


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


_current_pool: BlockPool | None = None  # set in a worker while it serves a task


def shared_empty(shape: tuple, dtype) -> np.ndarray | None:
    """In a worker serving a task, an uninitialised array in shared memory for batch
    data (saving a copy when the batch is sent); None elsewhere or when it won't fit."""
    return None if _current_pool is None else _current_pool.empty(shape, dtype)


def prepare_main_process() -> None:
    """Start the resource tracker before workers fork, so that the main process and
    every worker register their blocks with the same one."""
    resource_tracker.ensure_running()


class _ArrayPickler(pickle.Pickler):
    """Pickles an object, replacing arrays by (kind, offset, dtype, shape, flag)
    references and collecting the arrays still to be written at those offsets (arrays
    the pool handed out are already in place)."""

    def __init__(self, file, pool: "BlockPool"):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.pool = pool
        self.arrays: list[tuple[int, np.ndarray]] = []

    def persistent_id(self, obj):
        if type(obj) is Tensor:
            array, kind, flag = obj._data, "tensor", obj._requires_grad
        elif type(obj) is np.ndarray and not obj.dtype.hasobject:
            array, kind, flag = obj, "ndarray", False
        else:
            return None
        offset = self.pool.placed.get(id(array))
        if offset is None:
            offset = self.pool.reserve(array.nbytes)
            self.arrays.append((offset, array))
        return (kind, offset, array.dtype, array.shape, flag)


class BlockPool:
    """A worker's shared-memory blocks. While a task runs, `empty` hands out arrays that
    already live in a free block (the task's arena), so a dataset can write its batch
    straight into shared memory; `pack` then writes whatever else the batch holds."""

    def __init__(self) -> None:
        self.blocks: list[SharedMemory] = []
        self.free: set[int] = set()
        self.arena: int | None = None
        self.cursor = 0
        self.placed: dict[int, int] = {}  # id(array handed out) -> its offset
        self._keep: list[np.ndarray] = []  # keeps those ids valid until `pack`

    def release(self, slots) -> None:
        self.free.update(slots)

    def start_task(self) -> None:
        """Make the largest free block this task's arena."""
        self.arena = max(self.free, key=lambda s: self.blocks[s].size, default=None)
        self.cursor = 0

    def reserve(self, nbytes: int) -> int:
        offset = self.cursor
        self.cursor = _aligned(offset + nbytes)
        return offset

    def empty(self, shape: tuple, dtype) -> np.ndarray | None:
        """An uninitialised array in the arena, or None when it does not fit."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape)) * dtype.itemsize
        if self.arena is None or self.cursor + nbytes > self.blocks[self.arena].size:
            return None
        out = np.ndarray(shape, dtype, self.blocks[self.arena].buf, self.reserve(nbytes))
        self.placed[id(out)] = self.cursor - _aligned(nbytes)
        self._keep.append(out)
        return out

    def _acquire(self, nbytes: int) -> int:
        """A free block of at least `nbytes`, other than the arena: reused, grown
        (replaced) or added."""
        candidates = self.free - {self.arena}
        fitting = [s for s in candidates if self.blocks[s].size >= nbytes]
        if fitting:
            return fitting[0]
        block = SharedMemory(create=True, size=max(nbytes, ALIGN))
        if candidates:
            slot = candidates.pop()
            self._unlink(self.blocks[slot])
            self.blocks[slot] = block
        else:
            slot = len(self.blocks)
            self.blocks.append(block)
        return slot

    def pack(self, batch) -> tuple[int | None, str | None, bytes]:
        """(block id, block name, pickle) for `batch`; no block when it holds no array."""
        buffer = io.BytesIO()
        pickler = _ArrayPickler(buffer, self)
        pickler.dump(batch)
        placed = [(offset, self._keep[i]) for i, offset in enumerate(self.placed.values())]
        if not (pickler.arrays or placed):
            self.arena = None
            return None, None, buffer.getvalue()
        if self.arena is not None and self.cursor <= self.blocks[self.arena].size:
            slot, to_copy = self.arena, pickler.arrays
        else:  # a larger block, holding everything at the same offsets
            slot, to_copy = self._acquire(self.cursor), pickler.arrays + placed
        block = self.blocks[slot]
        for offset, array in to_copy:
            target = np.ndarray(array.shape, array.dtype, block.buf, offset)
            np.copyto(target, array, casting="no")
            del target  # drop the export of block.buf so the block can be closed later
        self.arena, self.placed, self._keep = None, {}, []
        self.free.discard(slot)
        return slot, block.name, buffer.getvalue()

    @staticmethod
    def _unlink(block: SharedMemory) -> None:
        try:
            block.close()
        except BufferError:  # an array the dataset kept still maps it; unlinking is enough
            pass
        try:
            block.unlink()
        except FileNotFoundError:
            pass

    def close(self) -> None:
        for block in self.blocks:
            self._unlink(block)
        self.blocks, self.free = [], set()


class _ArrayUnpickler(pickle.Unpickler):
    def __init__(self, file, block: SharedMemory | None):
        super().__init__(file)
        self.block = block

    def persistent_load(self, ref):
        kind, offset, dtype, shape, flag = ref
        array = np.ndarray(shape, dtype, self.block.buf, offset).copy()
        return Tensor._wrap(array, flag) if kind == "tensor" else array


class BlockReader:
    """The main process's side: maps each worker's blocks once and unpacks batches."""

    def __init__(self) -> None:
        self.mapped: dict[tuple[int, int], SharedMemory] = {}

    def _block(self, worker_id: int, slot: int, name: str) -> SharedMemory:
        block = self.mapped.get((worker_id, slot))
        if block is None or block.name != name:  # new, or replaced by a bigger one
            if block is not None:
                block.close()
            block = self.mapped[worker_id, slot] = SharedMemory(name=name)
        return block

    def unpack(self, worker_id: int, slot: int | None, name: str | None, blob: bytes):
        block = None if slot is None else self._block(worker_id, slot, name)
        return _ArrayUnpickler(io.BytesIO(blob), block).load()

    def close(self, dead_workers=()) -> None:
        """Unmap every block; also unlink those of workers that could not clean up."""
        for (worker_id, _), block in self.mapped.items():
            block.close()
            if worker_id in dead_workers:
                try:
                    block.unlink()
                except FileNotFoundError:
                    pass
        self.mapped = {}


class Channel:
    """One end of a worker's pipe, carrying plain pickles. A poll object is made once
    (Connection.poll builds a selector on every call, which costs more than the batch's
    own message)."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self._poller = select.poll()
        self._poller.register(conn.fileno(), select.POLLIN)

    def send(self, message) -> None:
        self.conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def recv(self):
        """The next message; EOFError once the other end has closed."""
        return pickle.loads(self.conn.recv_bytes())

    def poll(self, timeout: float) -> bool:
        """Whether a message (or the other end's closing) arrived within `timeout` s."""
        return bool(self._poller.poll(timeout * 1000))

    def close(self) -> None:
        self.conn.close()
