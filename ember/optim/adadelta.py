"""Adadelta: steps scaled by running averages of squared gradients and squared updates."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check, _check_nonnegative, _count_step, _grad,
                        _params_with_grad, _scalar, _written)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (torch.optim.Adadelta)."""

    def __init__(self, params, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr)
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check_nonnegative(eps=eps, weight_decay=weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            for p in _params_with_grad(group, dense_only="Adadelta"):
                state = self._lazy_state(p, "square_avg", "acc_delta")
                param, g = _written(p), _grad(p, group["maximize"])
                square_avg, acc_delta = _written(state["square_avg"]), _written(state["acc_delta"])
                _count_step(state)
                if weight_decay != 0:
                    g = g + weight_decay * param
                square_avg *= rho
                square_avg += (1 - rho) * g * g
                std = np.sqrt(square_avg + eps)
                delta = np.sqrt(acc_delta + eps)
                delta /= std
                delta *= g
                acc_delta *= rho
                acc_delta += (1 - rho) * delta * delta
                param += -lr * delta
        return loss
