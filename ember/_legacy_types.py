"""torch's legacy tensor types and constructors: torch.Tensor(2, 3), torch.FloatTensor(...),
t.new(...), t.type(...), and `isinstance(x, torch.FloatTensor)`.

They build on the tensor layer only; this module binds Tensor's constructor and its
legacy methods.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype
from ._data_conversion import array_from_data, is_sequence_like
from ._size import size_from_args
from ._device import check_device
from ._size import Size
from ._tensor import Tensor, _init_fields, bind_methods

_new = object.__new__


def _legacy_init(t: Tensor, args: tuple, dt: _dtype.dtype, device, strict: bool) -> None:
    """torch's legacy constructors: sizes -> uninitialised memory, data -> a copy in `dt`,
    a Tensor -> an alias of it (`strict`: only when its dtype is `dt`)."""
    check_device(device)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if not args:
        data = np.empty((0,), dtype=dt.numpy)
    elif all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        data = np.empty(size_from_args(args, "new"), dtype=dt.numpy)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if strict and src.dtype is not dt:
            raise TypeError(f"expected {dt._legacy_name} (got {src.dtype._legacy_name}): "
                            "legacy tensor types alias a tensor of their own dtype only")
        _init_fields(t, src._data, src._vc)
        t._base = src._base
        return
    elif len(args) == 1 and (isinstance(args[0], (np.ndarray, str, bytes))
                             or is_sequence_like(args[0])):
        data = array_from_data(args[0], dt)
    elif len(args) == 1:
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    elif any(isinstance(a, (int, np.integer)) for a in args):
        data = np.empty(size_from_args(args, "new"), dtype=dt.numpy)
    else:
        kinds = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({kinds})")
    _init_fields(t, data)


class _LegacyTensorType(type):
    """torch.FloatTensor and friends: constructors of one dtype, and isinstance checks
    (isinstance(x, torch.FloatTensor) is true for float32 tensors)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None) -> Tensor:
        t = _new(Tensor)
        _legacy_init(t, args, cls.dtype, device, strict=True)
        return t


def _legacy_type(dt: _dtype.dtype) -> _LegacyTensorType:
    doc = (f"Legacy constructor of {dt} tensors ({dt._legacy_name}(2, 3) is uninitialised, "
           f"{dt._legacy_name}(data) copies); isinstance(t, it) tests t.dtype is {dt}.")
    attributes = {"dtype": dt, "is_cuda": False, "__module__": "torch", "__doc__": doc}
    return _LegacyTensorType(dt._legacy_name, (), attributes)


BoolTensor = _legacy_type(_dtype.bool)
ByteTensor = _legacy_type(_dtype.uint8)
CharTensor = _legacy_type(_dtype.int8)
ShortTensor = _legacy_type(_dtype.int16)
IntTensor = _legacy_type(_dtype.int32)
LongTensor = _legacy_type(_dtype.int64)
HalfTensor = _legacy_type(_dtype.float16)
BFloat16Tensor = _legacy_type(_dtype.bfloat16)
FloatTensor = _legacy_type(_dtype.float32)
DoubleTensor = _legacy_type(_dtype.float64)


def _tensor_init(self, *args, device=None) -> None:
    """Legacy constructor (torch.Tensor makes tensors of the default dtype):
    Tensor(2, 3) / Tensor(torch.Size) -> uninitialised, Tensor(data) -> a copy."""
    _legacy_init(self, args, _dtype.get_default_dtype(), device, strict=False)


def _type(self, dtype=None, non_blocking: bool = False, **kwargs):
    """With no argument the legacy type string ('torch.FloatTensor'); else a cast."""
    if dtype is None:
        return "torch." + self.dtype._legacy_name
    if isinstance(dtype, str):
        prefix, _, name = dtype.rpartition(".")
        if prefix != "torch" or name not in _dtype.BY_LEGACY_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _dtype.BY_LEGACY_NAME[name]
    elif isinstance(dtype, _LegacyTensorType):
        dtype = dtype.dtype
    return self.to(dtype)


def _type_as(self, other: Tensor) -> Tensor:
    """self cast to other's dtype (self itself when the dtypes already agree)."""
    return self.to(other.dtype)


def _new_tensor(self, *args, device=None) -> Tensor:
    """Legacy constructor in self's dtype: new(2, 3) -> uninitialised, new(data) -> a copy."""
    t = _new(Tensor)
    _legacy_init(t, args, self.dtype, device, strict=True)
    return t


_warned_default_tensor_type = False     # torch warns once per process


def set_default_tensor_type(t) -> None:
    """Deprecated spelling of set_default_dtype: t is a float legacy type (torch.DoubleTensor)
    or its name ('torch.DoubleTensor')."""
    global _warned_default_tensor_type
    if not _warned_default_tensor_type:
        _warned_default_tensor_type = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module == "torch.cuda":
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        if module != "torch" or name not in _dtype.BY_LEGACY_NAME:
            raise ModuleNotFoundError(f"No module named '{module or name}'")
        dt = _dtype.BY_LEGACY_NAME[name]
    elif isinstance(t, _LegacyTensorType):
        dt = t.dtype
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not dt.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(dt)


def _resize(self, *sizes) -> Tensor:
    """Deprecated: a reshaped copy, of the same number of elements."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    shape = size_from_args(sizes, "resize")
    total = math.prod(shape)
    if total != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, shape))} ({total} elements "
                           f"in total), but the given tensor has a size of "
                           f"{'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, "
                           "while preserving the number of elements. ")
    return self.reshape(shape).clone()


def _resize_as(self, other: Tensor) -> Tensor:
    """Deprecated: self reshaped to other's shape (the same number of elements)."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _resize(self, other.shape)


def _get_volatile(self) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _set_volatile(self, value) -> None:
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


bind_methods(__init__=_tensor_init, type=_type, type_as=_type_as, new=_new_tensor,
             resize=_resize, resize_as=_resize_as)
Tensor.volatile = property(_get_volatile, _set_volatile)
