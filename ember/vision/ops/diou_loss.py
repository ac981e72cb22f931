"""The distance IoU loss (torchvision.ops.diou_loss)."""
from __future__ import annotations

from ..._tensor import Tensor
from ._utils import reduce_loss, upcast_non_float
from .giou_loss import enclosing_corners, paired_inter_union

__all__ = ["distance_box_iou_loss"]


def diou_loss_and_iou(boxes1: Tensor, boxes2: Tensor, eps: float = 1e-7) -> tuple:
    """1 - IoU + (centre distance / enclosing diagonal)^2 of matching pairs, and the IoU."""
    inter, union = paired_inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    xc1, yc1, xc2, yc2 = enclosing_corners(boxes1, boxes2)
    diagonal_squared = (xc2 - xc1) ** 2 + (yc2 - yc1) ** 2 + eps
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    centers_squared = ((x2 + x1) / 2 - (x1g + x2g) / 2) ** 2 + \
        ((y2 + y1) / 2 - (y1g + y2g) / 2) ** 2
    return 1 - iou + centers_squared / diagonal_squared, iou


def distance_box_iou_loss(boxes1: Tensor, boxes2: Tensor, reduction: str = "none",
                          eps: float = 1e-7) -> Tensor:
    """1 - DIoU of matching pairs of xyxy boxes (Zheng et al., 2019)."""
    boxes1, boxes2 = upcast_non_float(boxes1), upcast_non_float(boxes2)
    return reduce_loss(diou_loss_and_iou(boxes1, boxes2, eps)[0], reduction)
