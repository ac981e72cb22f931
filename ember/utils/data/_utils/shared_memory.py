"""Moving batches from worker processes to the main process through shared memory.

Each worker owns a pool of shared-memory blocks and writes each batch's arrays (the data
of its tensors and NumPy arrays) into a free block - TensorDataset gathers its rows
straight into one. Only the block's name and where each array lies in it go through the
pipe. The main process maps the block once and wraps those bytes as the batch's arrays
without copying them, as torch does with its shared-memory tensors.

A block goes back to its worker's free pool only when no array of its batch is left in
the main process: every array of a batch is a view of one per-batch "owner" array, and a
weak reference to the owner notes when it is gone (the block's id then rides along with
the worker's next task). A batch the user keeps alive keeps its block; the worker makes
a new block when none is free, so a block is never overwritten while still in use.

A worker's blocks are registered with multiprocessing's resource tracker, which warns at
exit about any left behind. SIGTERM (multiprocessing terminates daemonic workers at the
main process's exit) makes a worker exit through its cleanup; while a block is being made
or the blocks removed, it waits until that is done (`sigterm_deferred`), so that no block
is left half made or half removed.
"""
from __future__ import annotations

import contextlib

import functools
import io
import math
import mmap
import os
import pickle
import select
import struct
import sys
import weakref
from multiprocessing import resource_tracker
from multiprocessing.shared_memory import SharedMemory

import _posixshmem  # the shm_open / shm_unlink behind SharedMemory
import numpy as np

from ...._tensor import Tensor

ALIGN = 64
READ_SIZE = 1 << 16  # bytes asked of each read from a worker's pipe
_HEADER = struct.Struct("<Q")  # a message's length, before its pickle


_sigterm = {"deferring": 0, "pending": False}


def exit_on_sigterm(signum, frame) -> None:
    """A worker's SIGTERM handler: exit now (through the worker's cleanup), or as soon as
    the block work under way is done."""
    if _sigterm["deferring"]:
        _sigterm["pending"] = True
    else:
        sys.exit(0)


@contextlib.contextmanager
def sigterm_deferred():
    """Hold a SIGTERM back until the block work in this block is finished."""
    _sigterm["deferring"] += 1
    try:
        yield
    finally:
        _sigterm["deferring"] -= 1
    if _sigterm["pending"] and not _sigterm["deferring"]:
        sys.exit(0)


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


_current_pool: BlockPool | None = None  # set in a worker while it serves a task


def shared_empty(shape: tuple, dtype) -> np.ndarray | None:
    """In a worker serving a task, an uninitialised array in shared memory for batch
    data (saving a copy when the batch is sent); None elsewhere or when it won't fit."""
    return None if _current_pool is None else _current_pool.empty(shape, dtype)


def prepare_main_process() -> None:
    """Start the resource tracker before workers fork, so that every worker registers
    its blocks with the same one."""
    resource_tracker.ensure_running()


def _is_tensor_list(batch) -> bool:
    """A list or tuple of plain tensors: what default_collate makes of TensorDataset
    samples, sent as a bare layout instead of a pickle."""
    return type(batch) in (list, tuple) and all(type(item) is Tensor for item in batch)


class _ArrayPickler(pickle.Pickler):
    """Pickles an object, replacing its arrays by (kind, offset, dtype, shape, flag)
    references into the block (see BlockPool.locate)."""

    def __init__(self, file, pool: BlockPool, to_write: list):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.pool = pool
        self.to_write = to_write

    def persistent_id(self, obj):
        if type(obj) is Tensor:
            return ("tensor", *self.pool.locate(obj._data, self.to_write),
                    obj._requires_grad)
        if type(obj) is np.ndarray and not obj.dtype.hasobject:
            return ("ndarray", *self.pool.locate(obj, self.to_write), False)
        return None


class BlockPool:
    """A worker's shared-memory blocks. While a task runs, `empty` hands out arrays that
    already live in the largest free block (the task's arena), so a dataset can write its
    batch straight into shared memory; `pack` then writes whatever else the batch holds."""

    def __init__(self) -> None:
        self.blocks: list[SharedMemory] = []
        self.free: set[int] = set()
        self.arena: int | None = None
        self.cursor = 0
        self.placed: dict[int, tuple[int, np.ndarray]] = {}  # id -> (offset, array) of
        # the arrays `empty` handed out in this task (the array kept so the id stays valid)

    def release(self, slots) -> None:
        self.free.update(slots)

    def start_task(self) -> None:
        self.arena = max(self.free, key=lambda s: self.blocks[s].size, default=None)
        self.cursor, self.placed = 0, {}

    def _reserve(self, nbytes: int) -> int:
        offset = self.cursor
        self.cursor = _aligned(offset + nbytes)
        return offset

    def empty(self, shape: tuple, dtype) -> np.ndarray | None:
        """An uninitialised array in the arena, or None when it does not fit."""
        dtype = np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        if self.arena is None or self.cursor + nbytes > self.blocks[self.arena].size:
            return None
        offset = self._reserve(nbytes)
        out = np.ndarray(shape, dtype, self.blocks[self.arena].buf, offset)
        self.placed[id(out)] = (offset, out)
        return out

    def locate(self, array: np.ndarray, to_write: list) -> tuple[int, np.dtype, tuple]:
        """(offset, dtype, shape) of `array` in the block being packed; an array not
        already placed there is given an offset and added to `to_write`."""
        placed = self.placed.get(id(array))
        if placed is not None:
            return placed[0], array.dtype, array.shape
        offset = self._reserve(array.nbytes)
        to_write.append((offset, array))
        return offset, array.dtype, array.shape

    def _acquire(self, nbytes: int) -> int:
        """A free block of at least `nbytes`, other than the arena: reused, grown
        (replaced) or added."""
        candidates = self.free - {self.arena}
        fitting = [s for s in candidates if self.blocks[s].size >= nbytes]
        if fitting:
            return fitting[0]
        with sigterm_deferred():     # made, registered and listed as one step
            block = SharedMemory(create=True, size=max(nbytes, ALIGN))
            if candidates:
                slot = candidates.pop()
                self._unlink(self.blocks[slot])
                self.blocks[slot] = block
            else:
                slot = len(self.blocks)
                self.blocks.append(block)
        return slot

    def pack(self, batch) -> tuple[int | None, str | None, tuple | bytes]:
        """(block id, block name, layout) for `batch`, its arrays written to the block.
        The layout of a list or tuple of tensors is (is_tuple, ((offset, dtype, shape,
        requires_grad), ...)); anything else is pickled with references to its
        arrays. No block when the batch holds no array."""
        to_write: list[tuple[int, np.ndarray]] = []
        if _is_tensor_list(batch):
            refs = []
            for t in batch:
                offset, dtype, shape = self.locate(t._data, to_write)
                # NumPy's own dtypes travel as their short string ('<f4'), others (such
                # as bfloat16) as the dtype object
                dtype = dtype.str if dtype.isbuiltin == 1 else dtype
                refs.append((offset, dtype, shape, t._requires_grad))
            layout = (type(batch) is tuple, tuple(refs))
        else:
            buffer = io.BytesIO()
            _ArrayPickler(buffer, self, to_write).dump(batch)
            layout = buffer.getvalue()
        placed, self.placed = list(self.placed.values()), {}
        if not (to_write or placed):
            self.arena = None
            return None, None, layout
        if self.arena is not None and self.cursor <= self.blocks[self.arena].size:
            slot = self.arena
        else:  # a larger block, holding everything at the same offsets
            slot, to_write = self._acquire(self.cursor), to_write + placed
        block = self.blocks[slot]
        for offset, array in to_write:
            target = np.ndarray(array.shape, array.dtype, block.buf, offset)
            np.copyto(target, array, casting="no")
            del target  # drop the export of block.buf so the block can be closed later
        self.arena = None
        self.free.discard(slot)
        return slot, block.name, layout

    @staticmethod
    def _unlink(block: SharedMemory) -> None:
        # An array the dataset kept may still map the block (BufferError): unlinking is
        # enough then. A block already unlinked elsewhere is fine too.
        with contextlib.suppress(BufferError):
            block.close()
        with contextlib.suppress(FileNotFoundError):
            block.unlink()

    def close(self) -> None:
        with sigterm_deferred():
            for block in self.blocks:
                self._unlink(block)
            self.blocks, self.free = [], set()


class _ArrayUnpickler(pickle.Unpickler):
    def __init__(self, file, owner: np.ndarray):
        super().__init__(file)
        self.owner = owner

    def persistent_load(self, ref):
        kind, offset, dtype, shape, flag = ref
        array = np.ndarray(shape, dtype, self.owner, offset)
        return Tensor._wrap(array, flag) if kind == "tensor" else array


def _map_block(name: str) -> mmap.mmap:
    """The block `name` mapped into this process. Never closed explicitly: the mapping
    goes away with the last array viewing it."""
    fd = _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)
    try:
        return mmap.mmap(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


class BlockReader:
    """The main process's side: maps each worker's blocks once, wraps each batch's arrays
    in place, and collects per worker the blocks whose batches are gone."""

    def __init__(self, num_workers: int) -> None:
        self.mapped: dict[tuple[int, int], tuple[str, mmap.mmap]] = {}
        self.released: list[list[int]] = [[] for _ in range(num_workers)]
        self._owner_refs: dict[int, weakref.ref] = {}  # kept alive until they fire

    def _block(self, worker_id: int, slot: int, name: str) -> mmap.mmap:
        mapped = self.mapped.get((worker_id, slot))
        if mapped is None or mapped[0] != name:  # new, or replaced by a bigger one
            mapped = self.mapped[worker_id, slot] = (name, _map_block(name))
        return mapped[1]

    def unpack(self, worker_id: int, slot: int | None, name: str | None, layout):
        if slot is None:
            return pickle.loads(layout)
        owner = np.frombuffer(self._block(worker_id, slot, name), np.uint8)
        owner_ref = weakref.ref(owner, functools.partial(self._free, worker_id, slot))
        self._owner_refs[id(owner_ref)] = owner_ref
        if type(layout) is bytes:
            return _ArrayUnpickler(io.BytesIO(layout), owner).load()
        is_tuple, refs = layout
        tensors = [Tensor._wrap(np.ndarray(shape, dtype, owner, offset), flag)
                   for offset, dtype, shape, flag in refs]
        return tuple(tensors) if is_tuple else tensors

    def _free(self, worker_id: int, slot: int, owner_ref: weakref.ref) -> None:
        """Called when the last array of a batch is gone."""
        del self._owner_refs[id(owner_ref)]
        self.released[worker_id].append(slot)

    def take_released(self, worker_id: int) -> list[int]:
        released, self.released[worker_id] = self.released[worker_id], []
        return released

    def close(self, dead_workers=()) -> None:
        """Forget every block (each mapping lives on while arrays view it); unlink those
        of workers that could not clean up."""
        for (worker_id, _), (name, _) in self.mapped.items():
            if worker_id in dead_workers:
                try:
                    _posixshmem.shm_unlink("/" + name)
                except FileNotFoundError:
                    continue
                resource_tracker.unregister("/" + name, "shared_memory")
        self.mapped = {}


class Channel:
    """One side of a worker's link: two one-way pipes (cheaper per message than a
    socket pair), carrying length-prefixed pickles. Reads go through a buffer: once poll
    has seen data, one read brings the whole message, or several (Connection.recv_bytes
    reads the header and the payload separately, through more Python layers)."""

    def __init__(self, reader, writer) -> None:
        self.conns = (reader, writer)  # they own the descriptors
        self.fd, self._out = reader.fileno(), writer.fileno()
        self._buffer = bytearray()
        self._closed_by_peer = False
        self._poller = select.poll()  # made once: Connection.poll builds one per call
        self._poller.register(self.fd, select.POLLIN)

    def send(self, message) -> None:
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(_HEADER.pack(len(payload)) + payload)
        while view:  # a signal can interrupt a large write part way
            view = view[os.write(self._out, view):]

    def _message_end(self) -> int:
        """Where the buffer's first message ends; 0 while it is not all in."""
        buffer = self._buffer
        if len(buffer) >= _HEADER.size:
            end = _HEADER.size + _HEADER.unpack_from(buffer)[0]
            if len(buffer) >= end:
                return end
        return 0

    def _read(self) -> None:
        """Append what has arrived to the buffer (waiting for something)."""
        chunk = os.read(self.fd, READ_SIZE)
        self._closed_by_peer = not chunk
        self._buffer += chunk

    def poll(self, timeout: float) -> bool:
        """Whether a message (or the other end's closing) arrived within `timeout` s;
        False may also come early, with part of a message in."""
        if self._message_end():
            return True
        if not self._poller.poll(timeout * 1000):
            return False
        self._read()
        return bool(self._message_end()) or self._closed_by_peer

    def recv(self):
        """The next message; EOFError once the other end has closed."""
        while not (end := self._message_end()):
            if self._closed_by_peer:
                raise EOFError
            self._read()
        payload = self._buffer[_HEADER.size:end]
        del self._buffer[:end]
        return pickle.loads(payload)

    def close(self) -> None:
        for conn in self.conns:
            conn.close()
