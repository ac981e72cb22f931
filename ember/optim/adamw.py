"""AdamW: Adam whose weight decay shrinks the weights directly (decoupled)."""
from __future__ import annotations

from .._tensor import Tensor
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW (torch.optim.AdamW): Adam with decoupled_weight_decay=True and a default
    weight_decay of 1e-2. The update is Adam's: param *= 1 - lr * weight_decay first."""

    def __init__(self, params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
