"""Pickling tensors and storages for another process through shared memory.

`init_reductions()` teaches multiprocessing's ForkingPickler (which pickles Process
arguments under spawn/forkserver and everything sent through its queues, pipes and pools)
to send an ember tensor as a handle to its storage's shared-memory segment plus its
size, strides and offset, as torch's reductions do: a storage not yet shared is moved
into shared memory first, in place, so sender and receiver then see the same memory.
"""
from __future__ import annotations

from multiprocessing.reduction import DupFd, ForkingPickler

import numpy as np

from .. import _shared_memory
from .._storage import (TypedStorage, UntypedStorage, _LegacyStorageType, share_storage,
                        storage_bytes)
from .._tensor import Tensor
from ..nn.parameter import Buffer, Parameter

__all__ = ["init_reductions", "reduce_tensor", "reduce_storage", "rebuild_tensor",
           "rebuild_storage"]


def _handle(buffer: np.ndarray) -> tuple:
    """(opener, its arguments) by which another process maps the shared segment under
    `buffer`: a duplicate of its descriptor, or its name (file_system strategy)."""
    segment = _shared_memory.segment_of(buffer)
    if segment.name is not None:
        _shared_memory.keep_for_receivers(segment)
        return _shared_memory.open_named, (segment.name, len(segment))
    return _open_dup, (DupFd(segment.fd), len(segment))


def _open_dup(dup, nbytes: int):
    return _shared_memory.open_fd(dup.detach(), nbytes)


def _reopen(handle) -> np.ndarray:
    """The whole segment named by `handle`, as bytes, in this process."""
    opener, args = handle
    segment = opener(*args)
    return _shared_memory.shared_bytes(segment, args[1])


def reduce_tensor(tensor: Tensor):
    """Pickle `tensor` as a view of its storage's shared segment (moving it there)."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries.  If "
                           "you just want to transfer the data, call detach() on the tensor "
                           "before serializing (e.g., putting it on the queue).")
    if storage_bytes(tensor).size:      # (not kept: share_memory_ counts references)
        tensor.share_memory_()
    storage = storage_bytes(tensor)
    handle = _handle(storage) if storage.size else None     # empty: sent as is, as torch
    data = tensor._data
    offset = tensor.data_ptr() - storage.__array_interface__["data"][0] if data.size else 0
    layout = (data.dtype, data.shape, data.strides, offset, storage.size)
    return rebuild_tensor, (type(tensor), handle, layout, tensor.requires_grad)


def rebuild_tensor(cls, handle, layout, requires_grad: bool) -> Tensor:
    """The receiving side of reduce_tensor: a tensor on the same shared memory."""
    dtype, shape, strides, offset, storage_nbytes = layout
    storage = np.empty(0, np.uint8) if handle is None else _reopen(handle)[:storage_nbytes]
    t = Tensor._wrap(np.ndarray(shape, dtype, storage, offset, strides))
    t._storage_buffer = storage     # storage_offset() and untyped_storage() as the sender's
    if cls is Parameter:
        t = Parameter(t, requires_grad=requires_grad)
        t._storage_buffer = storage
    else:
        t.requires_grad = requires_grad
    return t


def reduce_storage(storage):
    """Pickle an UntypedStorage or TypedStorage as a handle to its shared segment."""
    untyped = storage.untyped()
    handle = None
    if untyped._bytes.size:
        untyped._bytes = share_storage(untyped._bytes)
        handle = _handle(untyped._bytes)
    dtype = storage.dtype if isinstance(storage, TypedStorage) else None
    return rebuild_storage, (handle, untyped._bytes.size, dtype)


def rebuild_storage(handle, nbytes: int, dtype):
    """The receiving side of reduce_storage: an UntypedStorage, or a TypedStorage of
    `dtype` (FloatStorage and friends arrive as TypedStorage, as in torch)."""
    untyped = UntypedStorage() if handle is None else \
        UntypedStorage._wrap(_reopen(handle)[:nbytes])
    if dtype is None:
        return untyped
    return TypedStorage(wrap_storage=untyped, dtype=dtype)


def _storage_classes() -> list:
    from .. import _storage
    return [UntypedStorage, TypedStorage] + [
        getattr(_storage, name) for name in _storage.__all__
        if isinstance(getattr(_storage, name), _LegacyStorageType)]


def init_reductions() -> None:
    """Register the tensor and storage reductions with multiprocessing's pickler (done
    when ember.multiprocessing is imported)."""
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_tensor)
    ForkingPickler.register(Buffer, reduce_tensor)     # arrives as a plain tensor, as in torch
    for cls in _storage_classes():
        ForkingPickler.register(cls, reduce_storage)
