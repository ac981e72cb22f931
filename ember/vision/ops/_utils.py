"""Helpers the box and RoI operators share (torchvision.ops._utils)."""
from __future__ import annotations

from ... import cat, full_like, int32, int64, float32, float64
from ..._tensor import Tensor
from .. import _unavailable

__all__ = ["convert_boxes_to_roi_format", "check_roi_boxes_shape", "upcast",
           "upcast_non_float", "reduce_loss"]


def convert_boxes_to_roi_format(boxes: list) -> Tensor:
    """A list of per-image (L_i, 4) boxes -> one (sum L_i, 5) tensor whose first column is
    the image's index."""
    ids = [full_like(b[:, :1], i) for i, b in enumerate(boxes)]
    return cat([cat(ids, dim=0), cat(list(boxes), dim=0)], dim=1)


def check_roi_boxes_shape(boxes) -> None:
    """Boxes are a (K, 5) tensor or a list of (L, 4) tensors (AssertionError otherwise,
    as torch._assert)."""
    if isinstance(boxes, (list, tuple)):
        for tensor in boxes:
            if tensor.size(1) != 4:
                raise AssertionError("The shape of the tensor in the boxes list is not correct "
                                     "as List[Tensor[L, 4]]")
    elif isinstance(boxes, Tensor):
        if boxes.size(1) != 5:
            raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def upcast(t: Tensor) -> Tensor:
    """float16/bfloat16 -> float32 and small integers -> int32, so products of box
    coordinates do not overflow."""
    if t.is_floating_point():
        return t if t.dtype in (float32, float64) else t.float()
    return t if t.dtype in (int32, int64) else t.int()


def upcast_non_float(t: Tensor) -> Tensor:
    """Integer boxes -> float32 (the losses divide)."""
    if t.dtype not in (float32, float64):
        return t.float()
    return t


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """Apply a loss reduction ("none", "mean", "sum"); the mean of no element is 0."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction "
                     "modes: 'none', 'mean', 'sum'")


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["split_normalization_params"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
