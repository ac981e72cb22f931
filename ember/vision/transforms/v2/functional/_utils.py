"""is_pure_tensor and register_kernel of transforms.v2.functional."""
from __future__ import annotations

from ....._tensor import Tensor

__all__ = ["is_pure_tensor", "register_kernel"]


def is_pure_tensor(inpt) -> bool:
    """Whether inpt is a plain tensor (ember has no tv_tensors subclasses, so any tensor)."""
    return isinstance(inpt, Tensor)


def register_kernel(functional, tv_tensor_cls):
    """Registering kernels for custom tv_tensor types is not supported in ember (it has
    no tv_tensors)."""
    raise NotImplementedError("torchvision.transforms.v2.functional.register_kernel is not "
                              "implemented in ember (ember has no tv_tensors types)")
