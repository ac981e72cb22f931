"""The focal loss of RetinaNet (Lin et al., 2017), torchvision.ops.focal_loss."""
from __future__ import annotations

from ..._tensor import Tensor
from ...nn import functional as F
from ._utils import reduce_loss

__all__ = ["sigmoid_focal_loss"]


def sigmoid_focal_loss(inputs: Tensor, targets: Tensor, alpha: float = 0.25,
                       gamma: float = 2, reduction: str = "none") -> Tensor:
    """Binary cross-entropy on logits, scaled by (1 - p_t) ** gamma so that confident
    correct predictions count little, and by alpha for positives / 1 - alpha for
    negatives (alpha = -1 turns the weighting off)."""
    if not (0 <= alpha <= 1) and alpha != -1:
        raise ValueError(f"Invalid alpha value: {alpha}. alpha must be in the range [0,1] or "
                         "-1 for ignore.")
    p = inputs.sigmoid()
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return reduce_loss(loss, reduction)
