"""Pickling tensors under torch's global names, and a restricted unpickler.

ember never imports torch, yet files it writes must name torch's functions and classes
(`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`, `torch.float32`...) so that
real torch can read them. The standard pickler can only name globals it can import, so
ember uses the pure-Python pickler (`pickle._Pickler`, whose `dispatch` table can be
extended) and writes those names itself as GLOBAL opcodes. Loading maps the same names
back to ember's objects.

The weights-only unpickler admits only the globals a checkpoint of tensors needs;
anything else (an `os.system` reduce, an arbitrary import) is refused before it is
imported or called.
"""
from __future__ import annotations

import _compat_pickle
import codecs
import importlib
import io
import pickle
import pickletools
import types
from collections import Counter, OrderedDict

import numpy as np

from .. import _dtype, _layout, compat
from .._device import device
from .._size import Size
from .._tensor import Tensor
from ..nn.parameter import Parameter
from ..sparse import sparse_coo_tensor


# ---------------------------------------------------------------- torch's names
class TorchName:
    """A global in torch's namespace, written to the pickle by name only."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):
        # Never called: pickle only requires the function of a reduce value to be callable.
        raise TypeError(f"{self.module}.{self.name} is a name for torch.load, not callable")


REBUILD_TENSOR_V2 = TorchName("torch._utils", "_rebuild_tensor_v2")
# torch saves dtypes without a typed-storage class (uint16/32/64) as bytes plus their dtype.
REBUILD_TENSOR_V3 = TorchName("torch._utils", "_rebuild_tensor_v3")
UNTYPED_STORAGE = TorchName("torch.storage", "UntypedStorage")
REBUILD_PARAMETER = TorchName("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = TorchName("torch._utils", "_rebuild_parameter_with_state")
REBUILD_SPARSE_TENSOR = TorchName("torch._utils", "_rebuild_sparse_tensor")
GET_LAYOUT = TorchName("torch.serialization", "_get_layout")
TORCH_SIZE = TorchName("torch", "Size")
TORCH_DEVICE = TorchName("torch", "device")
TORCH_DTYPE = {d: TorchName("torch", d.name) for d in _dtype.ALL_DTYPES}
# torch's legacy typed-storage classes ('torch.FloatStorage'), one per dtype that has one.
STORAGE_TYPE = {d: TorchName("torch", d._legacy_name.replace("Tensor", "Storage"))
                for d in _dtype.ALL_DTYPES if not d.is_limited}


class StorageRef:
    """Stands for one saved storage in the pickle; pickled as a persistent id."""

    __slots__ = ("pid",)

    def __init__(self, pid: tuple):
        self.pid = pid


class StorageTable:
    """Gives every distinct block of memory one storage record, so that tensors which
    share memory (NumPy views of one array) are saved once with their offsets."""

    def __init__(self, legacy: bool):
        self.records: dict[str, np.ndarray] = {}     # key -> 1-D array of the storage
        self._by_root: dict[int, tuple] = {}         # id(root array) -> (ref, flat, root)
        self._legacy = legacy

    def locate(self, array: np.ndarray) -> tuple[StorageRef, int, tuple]:
        """(storage, storage_offset, stride) for a tensor's array, in elements."""
        root = _memory_root(array)
        entry = self._by_root.get(id(root))
        if entry is None:
            flat = _flat_memory(root, array.dtype)
            entry = self._by_root[id(root)] = (self._add(flat), flat, root)
        ref, flat, _ = entry
        if flat is not None and flat.dtype != array.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        placed = _placement(array, flat) if flat is not None else None
        if placed is None:
            # Memory torch cannot describe (negative strides...): save a compact copy.
            flat = np.ascontiguousarray(array).reshape(-1)
            ref = self._add(flat)
            placed = 0, _contiguous_strides(array.shape)
            self._by_root[id(flat)] = (ref, flat, flat)
        return (ref,) + placed

    def _add(self, flat: np.ndarray | None) -> StorageRef | None:
        if flat is None:
            return None
        key = str(len(self.records))
        self.records[key] = flat
        kind = STORAGE_TYPE.get(_dtype._BY_NUMPY[flat.dtype])
        pid = ("storage", kind, key, "cpu", flat.size) if kind is not None else \
            ("storage", UNTYPED_STORAGE, key, "cpu", flat.nbytes)
        return StorageRef(pid + (None,) if self._legacy else pid)


def _memory_root(array: np.ndarray) -> np.ndarray:
    """The array at the bottom of a chain of NumPy views (the one owning the memory)."""
    while True:
        base = array.base
        if isinstance(base, np.ndarray):
            array = base
        elif isinstance(getattr(base, "base", None), np.ndarray):
            array = base.base        # as_strided wraps its source in a helper object
        else:
            return array


def _flat_memory(root: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """`root`'s whole memory as a 1-D array of `dtype` (None when it is not one block)."""
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    flat = root.ravel(order="K")
    if flat.dtype != dtype and flat.nbytes % dtype.itemsize == 0:
        flat = flat.view(dtype)     # a dtype-reinterpreting view: torch types the storage
    return flat


def _contiguous_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _placement(array: np.ndarray, flat: np.ndarray) -> tuple[int, tuple] | None:
    """(offset, strides) in elements of `array` inside `flat`, or None if torch's strided
    layout cannot express it. Dimensions of size <= 1 get torch's canonical stride."""
    item = array.itemsize
    start = array.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    strides = []
    for n, s, canonical in zip(array.shape, array.strides, _contiguous_strides(array.shape)):
        if n > 1 and (s < 0 or s % item):
            return None
        strides.append(s // item if n > 1 else canonical)
    if start < 0 or start % item:
        return None
    offset = start // item
    last = offset + sum((n - 1) * s for n, s in zip(array.shape, strides) if n > 1)
    fits = last < flat.size if array.size else offset <= flat.size
    return (offset, tuple(strides)) if fits else None


class TorchPickler(pickle._Pickler):
    """Pickles ember tensors, dtypes, devices and sizes as torch does; anything else as
    the standard pickler would (ember's own classes under their ember names)."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol: int, storages: StorageTable):
        super().__init__(file, protocol)
        self._storages = storages

    def persistent_id(self, obj):
        return obj.pid if type(obj) is StorageRef else None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            plain = Tensor._wrap(obj._data)
            if obj.__dict__:
                return REBUILD_PARAMETER_WITH_STATE, (plain, obj.requires_grad, OrderedDict(),
                                                      obj.__dict__)
            return REBUILD_PARAMETER, (plain, obj.requires_grad, OrderedDict())
        if isinstance(obj, Tensor):
            if obj.is_sparse:       # torch's form: layout, then indices, values, size, flag
                return REBUILD_SPARSE_TENSOR, (obj.layout, (obj._indices(), obj._values(),
                                                            obj.shape, obj.is_coalesced()))
            storage, offset, stride = self._storages.locate(obj._data)
            args = (storage, offset, tuple(obj.shape), stride, obj.requires_grad, OrderedDict())
            if obj.dtype.is_limited:
                return REBUILD_TENSOR_V3, args + (obj.dtype,)
            return REBUILD_TENSOR_V2, args
        if type(obj) is Size:
            return TORCH_SIZE, (tuple(obj),)
        if type(obj) is device:
            return TORCH_DEVICE, (str(obj),)
        if type(obj) is _layout.layout:
            return GET_LAYOUT, (repr(obj),)
        return NotImplemented

    def save_global(self, obj, name=None) -> None:
        """ember's classes and functions are written under the torch names they stand in
        for (ember.nn.modules.linear.Linear as torch.nn.modules.linear.Linear), so that a
        whole model saved by ember loads in torch; loading maps the names back."""
        module = compat.torch_module_name(getattr(obj, "__module__", None) or "")
        name = name or getattr(obj, "__qualname__", "")
        if module is None or not name.isidentifier():     # nested or local: ember's name
            super().save_global(obj, name)
            return
        self._write_global(module, name)
        self.memoize(obj)

    def _save_torch_name(self, obj: TorchName) -> None:
        self._write_global(obj.module, obj.name)
        self.memoize(obj)

    def _write_global(self, module: str, name: str) -> None:
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))

    def _save_dtype(self, obj: _dtype.dtype) -> None:
        self.save(TORCH_DTYPE[obj])

    dispatch[TorchName] = _save_torch_name
    dispatch[_dtype.dtype] = _save_dtype
    dispatch[types.FunctionType] = save_global       # the base table holds pickle's own


# ---------------------------------------------------------------- loading
class StorageType:
    """What `torch.FloatStorage` (etc.) means in a loaded pickle: a storage's dtype."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: _dtype.dtype):
        self.dtype = dtype


def _strided(storage: np.ndarray, offset: int, size, stride) -> np.ndarray:
    """The view torch's (storage, offset, size, stride) describes, bounds-checked so a
    malformed file cannot make it reach outside the storage."""
    size, stride = tuple(size), tuple(stride)
    if not isinstance(storage, np.ndarray):
        raise pickle.UnpicklingError(f"expected a storage, got {type(storage).__name__}")
    if len(size) != len(stride) or min(size + stride + (offset,), default=0) < 0:
        raise RuntimeError(f"invalid tensor geometry: size {list(size)}, stride "
                           f"{list(stride)}, storage offset {offset}")
    if 0 in size:
        return np.empty(size, storage.dtype)
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{offset}, and itemsize {storage.itemsize} requiring a storage size of "
            f"{needed * storage.itemsize} are out of bounds for storage of size "
            f"{storage.nbytes}")
    item = storage.itemsize
    return _dtype.as_strided(storage[offset:], size, [s * item for s in stride])


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None) -> Tensor:
    t = Tensor._wrap(_strided(storage, storage_offset, size, stride))
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None) -> Tensor:
    """torch's form for tensors over an untyped (byte) storage: `dtype` says how to read it."""
    if not isinstance(storage, np.ndarray) or not isinstance(dtype, _dtype.dtype) or \
            storage.nbytes % dtype.itemsize:
        raise pickle.UnpicklingError(f"expected a byte storage and a dtype, got "
                                     f"{type(storage).__name__} and {dtype!r:.40}")
    return _rebuild_tensor_v2(storage.view(dtype.numpy), storage_offset, size, stride,
                              requires_grad, backward_hooks, metadata)


def _rebuild_tensor(storage, storage_offset, size, stride) -> Tensor:
    return _rebuild_tensor_v2(storage, storage_offset, size, stride)


def _rebuild_parameter(data, requires_grad, backward_hooks) -> Parameter:
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state) -> Parameter:
    param = Parameter(data, requires_grad)
    _set_state(param, state)
    return param


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch's wrapper for tensors with Python attributes or of a Tensor subclass."""
    result = func(*args)
    if new_type is Parameter and type(result) is not Parameter:
        result = Parameter(result, result.requires_grad)
    elif new_type is not Tensor and type(result) is not new_type:
        result = Tensor._make_subclass(new_type, result, result.requires_grad)
    _set_state(result, state)
    return result


def _set_state(obj, state) -> None:
    """Give a rebuilt tensor the Python attributes a checkpoint saved with it. Names of
    ember's own Tensor machinery (`_data`, `grad`, `shape`...) are refused: setting them
    would corrupt the tensor rather than restore a user's attribute."""
    if isinstance(state, tuple):      # (__dict__ state, slots state)
        state = {**(state[0] or {}), **(state[1] or {})}
    for name, value in (state or {}).items():
        if not isinstance(name, str) or hasattr(Parameter, name):
            raise pickle.UnpicklingError(
                f"the checkpoint sets attribute {name!r} of a tensor, which is part of the "
                "tensor's own machinery, not a saved Python attribute")
        try:
            setattr(obj, name, value)
        except AttributeError:
            raise NotImplementedError(
                f"ember.load: the checkpoint sets attribute '{name}' on a tensor; plain ember "
                "tensors cannot hold Python attributes") from None


def _get_layout(name: str) -> _layout.layout:
    """torch.serialization._get_layout: a layout from its name ('torch.sparse_coo')."""
    found = getattr(_layout, name.removeprefix("torch."), None)
    if type(found) is not _layout.layout:
        raise pickle.UnpicklingError(f"unknown tensor layout {name!r}")
    return found


def _rebuild_sparse_tensor(layout, data) -> Tensor:
    """A sparse tensor from torch's pickled form (indices, values, size[, is_coalesced]);
    its indices are checked against the size."""
    if layout is not _layout.sparse_coo:
        raise NotImplementedError(f"ember.load: sparse tensors of layout {layout} are not "
                                  "supported by ember (only torch.sparse_coo)")
    indices, values, size, *coalesced = data
    return sparse_coo_tensor(indices, values, size, is_coalesced=bool(coalesced and
                                                                      coalesced[0]))


# Every torch name a checkpoint of tensors uses, and the ember object standing for it.
TORCH_GLOBALS = {
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
    "torch.serialization._get_layout": _get_layout,
    "torch.Size": Size,
    "torch.device": device,
    "torch.Tensor": Tensor,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.storage.UntypedStorage": StorageType(_dtype.uint8),
    **{f"torch.{d.name}": d for d in _dtype.ALL_DTYPES},
    **{f"{n.module}.{n.name}": StorageType(d) for d, n in STORAGE_TYPE.items()},
}

# Plain Python globals that protocol-2 pickles of containers and scalars need.
PYTHON_GLOBALS = {
    "collections.OrderedDict": OrderedDict,
    "collections.Counter": Counter,
    "_codecs.encode": codecs.encode,      # bytes
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
}

# torch dtypes ember has no counterpart for: named in a clear error rather than refused
# as unknown globals.
_MISSING_DTYPES = {"complex32", "qint8", "quint8", "qint32"}

_user_globals: list = []       # what add_safe_globals / safe_globals allowlisted


def user_globals() -> dict:
    """{full name: object} for the globals the user allowlisted. An ember class or
    function is listed under its torch name too (ember.nn.Linear also as
    torch.nn.modules.linear.Linear), since files written by torch name it so."""
    named = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(entry)}")
            obj, name = entry
            if type(name) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(name)}")
            named[name] = obj
        else:
            named[f"{entry.__module__}.{entry.__qualname__}"] = entry
            torch_module = compat.torch_module_name(entry.__module__)
            if torch_module is not None:
                named[f"{torch_module}.{entry.__qualname__}"] = entry
    return named


def _ember_counterpart(module: str, name: str):
    """ember's object for torch's `module.name` (torch.nn.modules.linear.Linear ->
    ember.nn.modules.linear.Linear, torchvision.models.resnet.ResNet ->
    ember.vision.models.resnet.ResNet), so whole torch models load as ember models."""
    try:
        return getattr(importlib.import_module(compat.ember_module_name(module)), name)
    except (ImportError, AttributeError):
        raise NotImplementedError(f"ember.load: the checkpoint uses {module}.{name}, which "
                                  "ember does not provide") from None


def python3_name(module: str, name: str) -> tuple[str, str]:
    """Protocol 2 pickles name Python 2 globals ('__builtin__.set'): translate them."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def stream_size(file) -> int:
    """The size of a seekable binary stream, its position left where it was."""
    position = file.tell()
    size = file.seek(0, io.SEEK_END)
    file.seek(position)
    return size


class WeightsUnpicklerError(pickle.UnpicklingError):
    """A refusal by the weights-only unpickler (as opposed to a damaged pickle)."""


class TorchUnpickler(pickle._Unpickler):
    """Unpickles torch checkpoints into ember objects.

    weights_only=True admits only TORCH_GLOBALS, PYTHON_GLOBALS and the user's safe
    globals, lets REDUCE / NEWOBJ call only those, and BUILD set state only on them (so a
    file cannot monkeypatch a class either). weights_only=False is ordinary unpickling
    with torch's tensor names mapped to ember.
    """

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, load_storage, weights_only: bool, **pickle_load_args):
        super().__init__(file, **pickle_load_args)
        self._load_storage = load_storage
        self._weights_only = weights_only
        users = user_globals()
        self._allowed = {**PYTHON_GLOBALS, **TORCH_GLOBALS, **users}
        self._allowed_ids = {id(obj) for obj in self._allowed.values()}
        self._user_types = {obj for obj in users.values() if isinstance(obj, type)}
        self._file_size = stream_size(file)      # no record can claim more

    def find_class(self, module: str, name: str):
        if self.proto < 3 and self.fix_imports:
            module, name = python3_name(module, name)
        full = f"{module}.{name}"
        if module == "torch" and name in _MISSING_DTYPES:
            raise NotImplementedError(f"ember.load: the checkpoint holds tensors of dtype "
                                      f"torch.{name}, which ember does not support")
        if full in self._allowed:
            return self._allowed[full]
        if not self._weights_only:
            if compat.ember_module_name(module) is not None:
                return _ember_counterpart(module, name)
            return super().find_class(module, name)
        shown = name if module == "builtins" else full   # builtins as Python spells them
        raise WeightsUnpicklerError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please "
            f"use `torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
            "global if you trust this class/function.")

    def persistent_load(self, pid):
        is_storage = type(pid) is tuple and pid[:1] in (("storage",), (b"storage",))
        if not is_storage and self._weights_only:
            raise WeightsUnpicklerError(f"Only persistent_load of storage is allowed, but got "
                                        f"{pid!r:.60}")
        if not is_storage or len(pid) < 5:
            raise pickle.UnpicklingError(f"malformed storage reference {pid!r:.60}: expected "
                                         "('storage', storage type, key, location, size)")
        return self._load_storage(pid)

    def _check_allowed(self, obj, what: str) -> None:
        if self._weights_only and id(obj) not in self._allowed_ids:
            raise WeightsUnpicklerError(f"{what}, but got {obj!r:.80}")

    def _load_reduce(self):
        self._check_allowed(self.stack[-2], "Can only call allowlisted functions and classes")
        pickle._Unpickler.load_reduce(self)

    def _load_newobj(self):
        self._check_allowed(self.stack[-2], "Can only create new object for nn.Parameter or "
                                            "classes allowlisted via `add_safe_globals`")
        pickle._Unpickler.load_newobj(self)

    def _load_newobj_ex(self):
        self._check_allowed(self.stack[-3], "Can only create new object for classes "
                                            "allowlisted via `add_safe_globals`")
        pickle._Unpickler.load_newobj_ex(self)

    def _load_obj(self):
        self._check_allowed(self.stack[0], "Can only create new object for classes "
                                           "allowlisted via `add_safe_globals`")
        pickle._Unpickler.load_obj(self)

    def _load_build(self):
        obj, state = self.stack[-2:]
        if type(obj) in (Tensor, Parameter):
            # A tensor's only state a pickle may set is requires_grad (in either mode:
            # anything else would corrupt the tensor rather than restore it).
            self._check_state_names(obj, state, ("requires_grad",), pickle.UnpicklingError)
            self.stack.pop()
            obj.requires_grad = state.get("requires_grad", obj.requires_grad)
            return
        if self._weights_only and type(obj) not in self._user_types:
            # An OrderedDict may carry attributes (a state_dict's `_metadata`).
            self._check_state_names(obj, state, None, WeightsUnpicklerError, OrderedDict)
        pickle._Unpickler.load_build(self)

    @staticmethod
    def _check_state_names(obj, state, allowed: tuple | None, error: type,
                           expected: type | None = None):
        """BUILD's state must be a dict of attribute names (all in `allowed`, unless None)
        for an object of type `expected` (default: whatever it is); else raise `error`."""
        kind = type(obj)
        if not isinstance(state, dict) or (expected is not None and kind is not expected):
            raise error(f"Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                        f"via `add_safe_globals`, but got {kind.__name__} with state "
                        f"{type(state).__name__}")
        for name in state:
            if not isinstance(name, str) or (allowed is not None and name not in allowed):
                raise error(f"the checkpoint sets attribute {name!r} of a {kind.__name__}, "
                            "which loading does not allow")

    def _check_target(self, target, kinds: tuple, opname: str) -> None:
        """weights_only SETITEM(S) / APPEND(S) / ADDITEMS fill only plain containers (or
        allowlisted types): on anything else they would call that object's methods."""
        if type(target) not in kinds and type(target) not in self._user_types:
            raise WeightsUnpicklerError(f"{opname} can only fill a "
                                        f"{' or '.join(kind.__name__ for kind in kinds)}, "
                                        f"but got {type(target).__name__}")

    def _claimed_size(self, opname: str) -> int:
        """An 8-byte record length, refused when it exceeds the whole file: reading such a
        record would first try to allocate that much memory."""
        size = int.from_bytes(self.read(8), "little")
        if size > self._file_size:
            raise pickle.UnpicklingError(f"a {opname} record claims {size} bytes, but the "
                                         f"whole pickle holds {self._file_size}: the file is "
                                         "corrupt or hostile")
        return size

    def _load_frame(self):
        self._unframer.load_frame(self._claimed_size("FRAME"))

    def _load_binbytes8(self):
        self.append(self.read(self._claimed_size("BINBYTES8")))

    def _load_binunicode8(self):
        self.append(str(self.read(self._claimed_size("BINUNICODE8")), "utf-8", "surrogatepass"))

    def _load_bytearray8(self):
        array = bytearray(self._claimed_size("BYTEARRAY8"))
        self.readinto(array)
        self.append(array)

    dispatch[pickle.OBJ[0]] = _load_obj
    dispatch[pickle.REDUCE[0]] = _load_reduce
    dispatch[pickle.NEWOBJ[0]] = _load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = _load_newobj_ex
    dispatch[pickle.BUILD[0]] = _load_build
    dispatch[pickle.FRAME[0]] = _load_frame
    dispatch[pickle.BINBYTES8[0]] = _load_binbytes8
    dispatch[pickle.BINUNICODE8[0]] = _load_binunicode8
    dispatch[pickle.BYTEARRAY8[0]] = _load_bytearray8


def _checking_fill(opcode: bytes, kinds: tuple, depth: int | None):
    """pickle's loader for a container-filling opcode, checking first (under weights_only)
    that the container it fills is one of `kinds`. The container sits `depth` places down
    the stack, or (depth None) just below the mark, where pickle keeps it in `metastack`."""
    load = pickle._Unpickler.dispatch[opcode[0]]
    opname = pickletools.code2op[opcode.decode("latin-1")].name

    def checked_load(self):
        if self._weights_only:
            target = self.metastack[-1][-1] if depth is None else self.stack[-depth]
            self._check_target(target, kinds, opname)
        load(self)
    return checked_load


for _opcode, _kinds, _depth in [(pickle.SETITEM, (dict, OrderedDict, Counter), 3),
                                (pickle.SETITEMS, (dict, OrderedDict, Counter), None),
                                (pickle.APPEND, (list,), 2), (pickle.APPENDS, (list,), None),
                                (pickle.ADDITEMS, (set,), None)]:
    TorchUnpickler.dispatch[_opcode[0]] = _checking_fill(_opcode, _kinds, _depth)
