"""torch.utils.dlpack: share a tensor's memory with other array libraries (NumPy, JAX,
CuPy ...) through the DLPack protocol, without copying.

ember's tensors are NumPy arrays, so NumPy does the protocol's work: `Tensor.__dlpack__`
exports the tensor's array, and from_dlpack wraps what NumPy imports.
"""
from __future__ import annotations

import numpy as np

from .._device import DLDeviceType, device as _device
from .._tensor import Tensor

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class _Capsule:
    """A bare DLPack capsule (to_dlpack's result) presented as an object NumPy imports."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return DLDeviceType.kDLCPU, 0


def to_dlpack(tensor: Tensor):
    """A DLPack capsule of `tensor`'s memory (consumed once, by from_dlpack)."""
    return tensor.__dlpack__()


def from_dlpack(ext_tensor, *, device=None, copy: bool | None = None) -> Tensor:
    """A tensor on the memory of `ext_tensor` (any object with __dlpack__, or a capsule from
    to_dlpack); copy=True copies it instead."""
    if device is not None and _device(device).type != "cpu":
        raise NotImplementedError(f"from_dlpack(device={device!r}): ember has only the CPU")
    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    try:
        array = np.from_dlpack(source, copy=copy)
    except (TypeError, AttributeError, ValueError) as error:
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor "
                           "capsules can be consumed only once, so you might have already "
                           f"constructed a tensor from it once. ({error})") from None
    return Tensor._wrap(array)
