"""Storages: the flat memory under tensors (torch.UntypedStorage, torch.TypedStorage) and the
Tensor methods that change which part of it a tensor sees (resize_, set_, as_strided_).

An ember tensor's `_data` is a NumPy window on a buffer of bytes. Normally that buffer is
the whole array of the tensor's root (its `_base`, or the tensor itself), so every view of
one base reports the same storage. resize_, set_ and as_strided_ can leave a root's array
covering only part of its buffer (or another tensor's buffer); such a root keeps the full
buffer in its `_storage_buffer` slot (left unset on every other tensor).

share_memory_ moves a storage into a shared-memory segment (_shared_memory.py) in place:
it copies the bytes there and points every tensor and storage object on the old memory
at the same places in the new (the arrays are rebuilt; the Python objects stay).
"""
from __future__ import annotations

import gc
import math
import sys
import warnings
from types import SimpleNamespace

import numpy as np

from . import _dtype, _shared_memory
from ._device import CPU
from ._memory_format import contiguous_format
from ._size import contiguous_strides, size_from_args
from ._modes import current as modes

__all__ = ["UntypedStorage", "TypedStorage", "BoolStorage", "ByteStorage", "CharStorage",
           "ShortStorage", "IntStorage", "LongStorage", "HalfStorage", "BFloat16Storage",
           "FloatStorage", "DoubleStorage", "ComplexFloatStorage", "ComplexDoubleStorage"]


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def byte_span(a: np.ndarray) -> np.ndarray:
    """A 1-D uint8 array over the bytes from a's lowest to its highest element."""
    if a.size == 0:
        return a.reshape(-1).view(np.uint8)     # empty arrays count as contiguous: no copy
    low, high = np.lib.array_utils.byte_bounds(a)
    # The element at the lowest address, as a one-element view, then widened to the span.
    corner = tuple(slice(0, 1) if s >= 0 else slice(-1, None) for s in a.strides)
    first = a[corner + (Ellipsis,)]      # the Ellipsis keeps a 0-d result a view
    first_bytes = first.reshape(-1).view(np.uint8)
    return np.lib.stride_tricks.as_strided(first_bytes, (high - low,), (1,))


def _lies_within(a: np.ndarray, buffer: np.ndarray) -> bool:
    if a.size == 0:
        return True
    low, high = np.lib.array_utils.byte_bounds(a)
    start = _address(buffer)
    return start <= low and high <= start + buffer.size


def storage_bytes(t) -> np.ndarray:
    """The whole buffer under tensor `t`, as a 1-D uint8 array sharing its memory."""
    root = t if t._base is None else t._base
    buffer = getattr(root, "_storage_buffer", None)
    if buffer is not None and _lies_within(root._data, buffer):
        return buffer
    return byte_span(root._data)


def _elements_needed(size: tuple, stride: tuple) -> int:
    """How many elements from the start a (size, stride) window reaches."""
    if 0 in size:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(size, stride))


def _window(buffer: np.ndarray, dtype: np.dtype, offset: int, size: tuple,
            stride: tuple) -> np.ndarray:
    """The array seen through `buffer` (bytes) at element `offset` with size and stride."""
    item = dtype.itemsize
    flat = buffer[offset * item:(offset + _elements_needed(size, stride)) * item].view(dtype)
    return _dtype.as_strided(flat, size, tuple(s * item for s in stride))


def _reference_counts(holder) -> tuple:
    """How many references hold `holder._data` and the array owning its memory (None when
    it owns its memory), counted by the same steps each time."""
    array = holder._data
    owner = array.base
    return sys.getrefcount(array), None if owner is None else sys.getrefcount(owner)


# The counts when one object alone holds an array, and that array alone its owner.
# Measured rather than written down, as what getrefcount sees varies between versions.
_ALONE = _reference_counts(SimpleNamespace(_data=np.empty(1)))
_ALONE_ON_OWNER = _reference_counts(SimpleNamespace(_data=np.empty(2)[1:]))


def _sole_user(root) -> bool:
    """Whether nothing but `root` reaches its memory: no view, alias or other array of
    it (told by CPython's reference counts), so that rebinding `root` alone moves every
    user of the storage."""
    if getattr(root, "_storage_buffer", None) is not None:
        return False
    counts = _reference_counts(root)    # first: the names below add references
    owner = root._data.base
    if owner is None:
        return counts == _ALONE
    return type(owner) is np.ndarray and owner.base is None and counts == _ALONE_ON_OWNER


def _users_within(start: int, end: int) -> list:
    """The live tensors and untyped storages whose memory lies in the addresses
    [start, end). ember keeps no list of a storage's users, so this scans every object
    the garbage collector tracks (some milliseconds): share_memory_ is a set-up step."""
    from ._tensor import Tensor
    read_data = Tensor.__dict__["_data"].__get__   # the slot itself (lazy modules hide it)
    found = []
    for obj in gc.get_objects():
        kind = type(obj)    # (isinstance would ask proxies for their __class__)
        if issubclass(kind, Tensor):
            try:
                data = read_data(obj)
            except AttributeError:      # a tensor still being built
                continue
        elif kind is UntypedStorage:
            data = obj._bytes
        else:
            continue
        if type(data) is np.ndarray and data.size:     # (a meta tensor has no memory)
            low, high = np.lib.array_utils.byte_bounds(data)
            if start <= low and high <= end:
                found.append(obj)
    return found


def _rebind(user, old_start: int, new: np.ndarray) -> None:
    """Point a tensor's or storage's arrays at the same places in `new`, the moved copy
    of the storage that started at address `old_start`."""
    if type(user) is UntypedStorage:
        begin = _address(user._bytes) - old_start
        user._bytes = new[begin:begin + user._bytes.size]
        return
    data = user._data
    offset = _address(data) - old_start if data.size else 0
    moved = np.ndarray(data.shape, data.dtype, new, offset, data.strides)
    moved.flags.writeable = data.flags.writeable   # expand's views stay read-only
    user._data = moved
    buffer = getattr(user, "_storage_buffer", None)
    if buffer is not None:
        begin = _address(buffer) - old_start
        user._storage_buffer = new[begin:begin + buffer.size]


def share_storage(old: np.ndarray, sole_user=None) -> np.ndarray:
    """Move the storage whose bytes are `old` into a shared-memory segment, in place:
    every tensor on it (its root, views, aliases) and every storage object of it now
    sees the shared copy, which is returned. `sole_user` is a tensor known to be the
    storage's only user (see _sole_user), sparing the scan for the others. Already
    shared: `old` itself."""
    if _shared_memory.segment_of(old) is not None:
        return old
    new = _shared_memory.shared_bytes(_shared_memory.new_segment(old.size), old.size)
    new[...] = old
    start = _address(old) if old.size else 0
    if sole_user is not None:
        users = [sole_user]
    else:
        users = _users_within(start, start + old.size) if old.size else []
    for user in users:
        _rebind(user, start, new)
    return new


_warned_typed_storage = False


def _warn_typed_storage_removal() -> None:
    """torch warns once per process that TypedStorage is deprecated."""
    global _warned_typed_storage
    if not _warned_typed_storage:
        _warned_typed_storage = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)


class _StorageBase:
    """What untyped and typed storages share: device, sharing flags and the repr."""
    device = CPU
    is_cuda = False
    is_sparse = False

    def __len__(self) -> int:
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def is_shared(self) -> bool:
        return _shared_memory.segment_of(self.untyped()._bytes) is not None

    def share_memory_(self):
        """Move the storage into shared memory in place (tensors on it follow); a no-op
        when it is already there."""
        untyped = self.untyped()
        untyped._bytes = share_storage(untyped._bytes)
        return self

    def is_pinned(self, device=None) -> bool:
        return False

    def cpu(self):
        return self

    def _check_index(self, idx) -> int:
        if not isinstance(idx, (int, np.integer)):
            raise TypeError(f"can't index a torch.{type(self).__name__} with "
                            f"{type(idx).__name__}")
        n = self.size()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return int(idx) % n

    def __repr__(self) -> str:
        values = "\n ".join(str(v) for v in self.tolist())
        return f" {values}\n[{self._describe()} of size {self.size()}]"


class UntypedStorage(_StorageBase):
    """Bytes: UntypedStorage(n) allocates n (zeroed) bytes, UntypedStorage(list) copies them."""

    def __init__(self, *args, device=None) -> None:
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            self._bytes = np.array(args[0], dtype=np.int64).astype(np.uint8)
        elif len(args) == 1 and isinstance(args[0], (int, np.integer)):
            self._bytes = np.zeros(int(args[0]), dtype=np.uint8)
        elif not args:
            self._bytes = np.empty(0, dtype=np.uint8)
        else:
            raise TypeError(f"UntypedStorage(): invalid arguments {args}")

    @classmethod
    def _wrap(cls, buffer: np.ndarray) -> "UntypedStorage":
        storage = cls.__new__(cls)
        storage._bytes = buffer
        return storage

    @classmethod
    def from_buffer(cls, buffer, dtype=None, byte_order: str = "native") -> "UntypedStorage":
        return cls._wrap(np.frombuffer(buffer, dtype=np.uint8).copy())

    @classmethod
    def from_file(cls, filename, shared: bool = False, nbytes: int = 0) -> "UntypedStorage":
        """The first `nbytes` bytes of a file, memory-mapped: with shared=True writes reach
        the file; otherwise the mapping is private (copy on write)."""
        if nbytes == 0:
            return cls()
        import os
        size = os.path.getsize(filename)
        if size < nbytes:
            raise RuntimeError(f"file <{filename}> size <{size}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        mapped = np.memmap(filename, dtype=np.uint8, mode="r+" if shared else "c",
                           shape=(nbytes,))
        return cls._wrap(mapped.view(np.ndarray))       # a plain array over the mapping

    def size(self) -> int:
        return self._bytes.size

    def nbytes(self) -> int:
        return self._bytes.size

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return _address(self._bytes) if self._bytes.size else 0

    def tolist(self) -> list:
        return self._bytes.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(self.size())
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 "
                                   "is supported")
            return UntypedStorage._wrap(self._bytes[start:stop])
        return int(self._bytes[self._check_index(idx)])

    def __setitem__(self, idx, value) -> None:
        key = idx if isinstance(idx, slice) else self._check_index(idx)
        self._bytes[key] = np.asarray(value).astype(np.uint8)

    def fill_(self, value) -> "UntypedStorage":
        self[:] = value
        return self

    def copy_(self, source: "UntypedStorage", non_blocking=None) -> "UntypedStorage":
        self._bytes[...] = source._bytes
        return self

    def clone(self) -> "UntypedStorage":
        return UntypedStorage._wrap(self._bytes.copy())

    def untyped(self) -> "UntypedStorage":
        return self

    def type(self, dtype=None, non_blocking: bool = False) -> str:
        return "torch.storage.UntypedStorage"

    def _describe(self) -> str:
        return f"torch.storage.UntypedStorage(device={self.device})"


class TypedStorage(_StorageBase):
    """Elements of one dtype over an UntypedStorage (deprecated in torch, still common).

    TypedStorage(n, dtype=) allocates n elements, TypedStorage(list, dtype=) copies values,
    TypedStorage(wrap_storage=untyped, dtype=) reinterprets existing bytes."""

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None) -> None:
        _warn_typed_storage_removal()
        self.dtype = dtype or getattr(type(self), "dtype", None) or _dtype.get_default_dtype()
        if wrap_storage is not None:
            self._untyped_storage = wrap_storage
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            values = np.array(args[0]).astype(self.dtype.numpy)
            self._untyped_storage = UntypedStorage._wrap(values.view(np.uint8))
        elif len(args) == 1 and isinstance(args[0], (int, np.integer)):
            self._untyped_storage = UntypedStorage(int(args[0]) * self.dtype.itemsize)
        elif not args:
            self._untyped_storage = UntypedStorage()
        else:
            raise TypeError(f"TypedStorage(): invalid arguments {args}")

    def _values(self) -> np.ndarray:
        return self._untyped_storage._bytes.view(self.dtype.numpy)

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def tolist(self) -> list:
        values = self._values()
        if self.dtype is _dtype.bfloat16:
            values = values.astype(np.float32)
        return values.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._values()[self._check_index(idx)].item()

    def __setitem__(self, idx, value) -> None:
        key = idx if isinstance(idx, slice) else self._check_index(idx)
        self._values()[key] = value

    def fill_(self, value) -> "TypedStorage":
        self._values()[...] = value
        return self

    def copy_(self, source: "TypedStorage", non_blocking=None) -> "TypedStorage":
        self._values()[...] = source._values()
        return self

    def clone(self) -> "TypedStorage":
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype)

    def type(self, dtype=None, non_blocking: bool = False) -> str:
        return f"torch.{self.dtype.scalar_name}Storage"

    def _describe(self) -> str:
        return f"torch.storage.TypedStorage(dtype={self.dtype}, device={self.device})"


class _LegacyStorageType(type):
    """torch.FloatStorage and friends: TypedStorage of one dtype; isinstance(s, FloatStorage)
    holds for every float32 TypedStorage, as in torch."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, TypedStorage) and obj.dtype is cls.dtype


def _legacy_storage(dt: _dtype.dtype) -> type:
    name = dt.scalar_name + "Storage"
    doc = f"Legacy TypedStorage of {dt}: {name}(n) allocates n elements, {name}(list) copies them."
    return _LegacyStorageType(name, (TypedStorage,),
                              {"dtype": dt, "__module__": "torch", "__doc__": doc})


BoolStorage = _legacy_storage(_dtype.bool)
ByteStorage = _legacy_storage(_dtype.uint8)
CharStorage = _legacy_storage(_dtype.int8)
ShortStorage = _legacy_storage(_dtype.int16)
IntStorage = _legacy_storage(_dtype.int32)
LongStorage = _legacy_storage(_dtype.int64)
HalfStorage = _legacy_storage(_dtype.float16)
BFloat16Storage = _legacy_storage(_dtype.bfloat16)
FloatStorage = _legacy_storage(_dtype.float32)
DoubleStorage = _legacy_storage(_dtype.float64)
ComplexFloatStorage = _legacy_storage(_dtype.complex64)
ComplexDoubleStorage = _legacy_storage(_dtype.complex128)


_LEGACY_STORAGE_TYPES = {cls.dtype: cls for cls in (
    BoolStorage, ByteStorage, CharStorage, ShortStorage, IntStorage, LongStorage, HalfStorage,
    BFloat16Storage, FloatStorage, DoubleStorage, ComplexFloatStorage, ComplexDoubleStorage)}


def _source_bytes(tensor, source) -> np.ndarray:
    """The bytes of set_'s `source` storage, with torch's dtype check for typed storages."""
    if isinstance(source, TypedStorage):
        if source.dtype is not tensor.dtype:
            raise RuntimeError(f"Expected a Storage of type {tensor.dtype.cpp_name} or an "
                               f"UntypedStorage, but got type {source.dtype.scalar_name} "
                               "for argument 1 'storage'")
        source = source.untyped()
    return source._bytes


class StorageMethods:
    """The Tensor methods about its storage (Tensor inherits them; see _tensor.py)."""
    __slots__ = ()

    def untyped_storage(self) -> UntypedStorage:
        """The bytes under this tensor (shared with it and its views), as an UntypedStorage."""
        return UntypedStorage._wrap(storage_bytes(self))

    def storage(self) -> TypedStorage:
        """The memory under this tensor as a TypedStorage of its dtype (deprecated in torch: warns
        once)."""
        _warn_typed_storage_removal()
        return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype)

    def storage_type(self) -> type | None:
        """The legacy storage class of self's dtype (torch.FloatStorage for float32 ...)."""
        _warn_typed_storage_removal()
        return _LEGACY_STORAGE_TYPES.get(self.dtype)

    def is_set_to(self, tensor) -> bool:
        """Whether self and `tensor` see the same memory the same way: one storage, and equal
        storage offsets, sizes and strides."""
        if not isinstance(tensor, StorageMethods):
            raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                            f"{type(tensor).__name__}")
        return (_address(storage_bytes(self)) == _address(storage_bytes(tensor))
                and self.storage_offset() == tensor.storage_offset()
                and self.shape == tensor.shape and self.stride() == tensor.stride())

    def share_memory_(self):
        """Move this tensor's storage into shared memory, in place: the tensor, its views
        and every other tensor on the storage keep aliasing it, now in memory that forked
        and spawned processes can share. A no-op when already shared; returns self."""
        if self._base is not None:
            share_storage(storage_bytes(self))
        else:
            sole = _sole_user(self)     # asked before storage_bytes adds a reference
            share_storage(storage_bytes(self), self if sole else None)
        return self

    def is_shared(self) -> bool:
        """Whether the storage is in shared memory (share_memory_, or received from
        another process)."""
        return _shared_memory.segment_of(storage_bytes(self)) is not None

    def storage_offset(self) -> int:
        """Offset of this tensor's first element in its storage, in elements."""
        return (_address(self._data) - _address(storage_bytes(self))) // self._data.itemsize

    def _remember_buffer(self) -> None:
        """Before a root's array shrinks to a window, note the buffer it is a window on."""
        if self._base is None:
            self._storage_buffer = storage_bytes(self)

    def resize_(self, *sizes, memory_format=None):
        """Give self the shape `sizes` in place, contiguous, from its current storage offset:
        shrinking keeps a prefix of the storage, growing past its end moves self to a larger
        copy of it. Unlike torch, which grows the shared storage itself, other tensors on the
        old storage keep the old memory."""
        if memory_format not in (None, contiguous_format):
            raise NotImplementedError(f"resize_: memory_format={memory_format} is not supported "
                                      "by ember (only contiguous)")
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        dims = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
        if any(isinstance(s, int) and s < 0 for s in dims):
            raise RuntimeError("numel: integer multiplication overflow")
        shape = size_from_args(sizes, "resize_")
        if shape == self._data.shape:
            return self
        offset, dtype = self.storage_offset(), self._data.dtype
        buffer = storage_bytes(self)
        needed = (offset + math.prod(shape)) * dtype.itemsize
        if needed > buffer.size:
            grown = np.zeros(needed, dtype=np.uint8)
            grown[:buffer.size] = buffer
            buffer, self._base = grown, None
            self._storage_buffer = grown
        else:
            self._remember_buffer()
        self._data = _window(buffer, dtype, offset, shape, contiguous_strides(shape))
        self._bump_version()
        return self

    def resize_as_(self, the_template, *, memory_format=None):
        """Resize self in place to the_template's shape (resize_ rules)."""
        return self.resize_(the_template.shape, memory_format=memory_format)

    def set_(self, source=None, storage_offset: int = 0, size=None, stride=None):
        """Make self look at `source`'s memory: a tensor (its storage, offset, size and strides
        unless given) or a storage (all of it as 1-D unless a size is given); set_() leaves
        self empty. self keeps its own version counter and is not a view, as in torch."""
        from ._tensor import Tensor
        self._check_inplace()
        dtype = self._data.dtype
        if source is None:
            buffer, size, storage_offset = np.empty(0, dtype=np.uint8), (0,), 0
        elif isinstance(source, Tensor):
            if source.dtype is not self.dtype:
                raise RuntimeError(f"Could not set tensor of type {source.dtype.cpp_name} "
                                   f"to a tensor of type {self.dtype.cpp_name}")
            if source._requires_grad and modes().grad_enabled:
                raise NotImplementedError("set_: a source tensor that requires grad is not "
                                          "supported by ember (torch records no usable "
                                          "gradient for it)")
            buffer = storage_bytes(source)
            if size is None:
                size, stride = source.shape, source.stride()
                storage_offset = source.storage_offset()
        elif isinstance(source, (UntypedStorage, TypedStorage)):
            buffer = _source_bytes(self, source)
            if size is None:
                size = (buffer.size // dtype.itemsize,)
        else:
            raise TypeError(f"set_() received an invalid combination of arguments - got "
                            f"({type(source).__name__})")
        size = tuple(int(s) for s in size)
        stride = contiguous_strides(size) if stride is None else tuple(int(s) for s in stride)
        if storage_offset < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
        if (storage_offset + _elements_needed(size, stride)) * dtype.itemsize > buffer.size:
            raise NotImplementedError("set_: a size beyond the end of the storage is not "
                                      "supported by ember (torch grows the shared storage)")
        self._data = _window(buffer, dtype, storage_offset, size, stride)
        self._base = None
        self._storage_buffer = buffer
        self._bump_version()
        return self
