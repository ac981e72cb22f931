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
from multiprocessing import resource_tracker
from multiprocessing.shared_memory import SharedMemory

import numpy as np

from ...._tensor import Tensor

ALIGN = 64


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def prepare_main_process() -> None:
    """Start the resource tracker before workers fork, so that the main process and
    every worker register their blocks with the same one."""
    resource_tracker.ensure_running()


class _ArrayPickler(pickle.Pickler):
    """Pickles an object, replacing large arrays by (kind, offset, dtype, shape, flag)
    references and collecting the arrays to be written at those offsets."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.arrays: list[tuple[int, np.ndarray]] = []
        self.nbytes = 0

    def persistent_id(self, obj):
        if type(obj) is Tensor:
            array, kind, flag = obj._data, "tensor", obj._requires_grad
        elif type(obj) is np.ndarray and not obj.dtype.hasobject:
            array, kind, flag = obj, "ndarray", False
        else:
            return None
        offset = self.nbytes
        self.arrays.append((offset, array))
        self.nbytes = _aligned(offset + array.nbytes)
        return (kind, offset, array.dtype, array.shape, flag)


class BlockPool:
    """A worker's shared-memory blocks: `pack` writes a batch into a free one."""

    def __init__(self) -> None:
        self.blocks: list[SharedMemory] = []
        self.free: set[int] = set()

    def release(self, slots) -> None:
        self.free.update(slots)

    def _acquire(self, nbytes: int) -> int:
        """A free block of at least `nbytes`: reused, grown (replaced) or added."""
        fitting = [s for s in self.free if self.blocks[s].size >= nbytes]
        if fitting:
            slot = fitting[0]
        elif self.free:
            slot = self.free.pop()
            self._unlink(self.blocks[slot])
            self.blocks[slot] = SharedMemory(create=True, size=nbytes)
        else:
            slot = len(self.blocks)
            self.blocks.append(SharedMemory(create=True, size=nbytes))
        self.free.discard(slot)
        return slot

    def pack(self, batch) -> tuple[int | None, str | None, bytes]:
        """(block id, block name, pickle) for `batch`; no block when nothing is large."""
        buffer = io.BytesIO()
        pickler = _ArrayPickler(buffer)
        pickler.dump(batch)
        if not pickler.arrays:
            return None, None, buffer.getvalue()
        slot = self._acquire(pickler.nbytes)
        block = self.blocks[slot]
        for offset, array in pickler.arrays:
            target = np.ndarray(array.shape, array.dtype, block.buf, offset)
            np.copyto(target, array, casting="no")
            del target  # drop the export of block.buf so the block can be closed later
        return slot, block.name, buffer.getvalue()

    @staticmethod
    def _unlink(block: SharedMemory) -> None:
        block.close()
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
