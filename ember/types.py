"""torch.types: the type aliases torch's signatures use, for scripts that annotate with
them (`from torch.types import Device, Number`). ember has no symbolic sizes, so the
Sym* parts of torch's aliases are the plain Python types here."""
from __future__ import annotations

import os
from typing import IO, Any, Sequence, Union

from ._device import device as _device
from ._dtype import dtype as _dtype
from ._layout import layout as _layout
from ._size import Size
from ._storage import TypedStorage, UntypedStorage
from ._tensor import Tensor

_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, None, Sequence[Union[Tensor, None]]]
_int, _float, _bool, _complex, _str, _bytes = int, float, bool, complex, str, bytes
_size = Union[Size, list[int], tuple[int, ...]]
_symsize = _size
IntLikeType, FloatLikeType, BoolLikeType = int, float, bool
PySymType = Union[int, float, bool]
Number = Union[int, float, bool]
_Number = (int, float, bool)
Device = Union[_device, str, int, None]
Storage = Union[TypedStorage, UntypedStorage]
FileLike = Union[str, os.PathLike, IO[bytes]]

__all__ = ["Any", "Device", "FileLike", "IntLikeType", "FloatLikeType", "BoolLikeType",
           "Number", "PySymType", "Size", "Storage", "Tensor", "_TensorOrTensors",
           "_TensorOrOptionalTensors", "_bool", "_bytes", "_complex", "_device", "_dtype",
           "_float", "_int", "_layout", "_size", "_str", "_symsize"]
