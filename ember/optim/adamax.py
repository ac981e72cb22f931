"""Adamax: Adam with the infinity norm in place of the second moment."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_adam_args, _count_step, _grad, _lerp_,
                        _params_with_grad, _scalar, _written)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (torch.optim.Adamax)."""

    def __init__(self, params, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            for p in _params_with_grad(group, dense_only="Adamax"):
                state = self._lazy_state(p, "exp_avg", "exp_inf")
                param, g = _written(p), _grad(p, group["maximize"])
                exp_avg, exp_inf = _written(state["exp_avg"]), _written(state["exp_inf"])
                step = _count_step(state)
                if weight_decay != 0:
                    g = g + weight_decay * param
                _lerp_(exp_avg, g, 1 - beta1)
                exp_inf *= beta2
                np.maximum(exp_inf, np.abs(g) + eps, out=exp_inf)
                clr = lr / (1 - beta1 ** step)
                update = -clr * exp_avg
                update /= exp_inf
                param += update
        return loss
