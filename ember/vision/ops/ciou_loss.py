"""The complete IoU loss (torchvision.ops.ciou_loss)."""
from __future__ import annotations

from ... import no_grad
from ..._tensor import Tensor
from ._utils import reduce_loss, upcast_non_float
from .boxes import aspect_ratio_term
from .diou_loss import diou_loss_and_iou

__all__ = ["complete_box_iou_loss"]


def complete_box_iou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none",
                          eps: float = 1e-7) -> Tensor:
    """The DIoU loss plus an aspect-ratio consistency term (Zheng et al., 2020) of
    matching pairs of xyxy boxes."""
    boxes1, boxes2 = upcast_non_float(boxes1), upcast_non_float(boxes2)
    diou_loss, iou = diou_loss_and_iou(boxes1, boxes2)  # torchvision keeps the default eps
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    v = aspect_ratio_term(x2g - x1g, y2g - y1g, x2 - x1, y2 - y1)
    with no_grad():
        alpha = v / (1 - iou + v + eps)
    return reduce_loss(diou_loss + alpha * v, reduction)
