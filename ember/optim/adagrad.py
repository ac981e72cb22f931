"""Adagrad: per-coordinate steps scaled by the root of the summed squared gradients."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_nonnegative, _count_step, _grad,
                        _params_with_grad, _scalar, _state_zeros, _step_counter, _written)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (torch.optim.Adagrad)."""

    def __init__(self, params, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Adagrad creates its state up front (so it can be shared before the first step).
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _step_counter()
                state["sum"] = _state_zeros(p, group["initial_accumulator_value"])

    def share_memory(self) -> None:
        """Move the accumulated sums into shared memory (for Hogwild-style training)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            eps, weight_decay, lr_decay = group["eps"], group["weight_decay"], group["lr_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                param, g = _written(p), _grad(p, group["maximize"])
                state_sum = _written(state["sum"])
                step = _count_step(state)
                if weight_decay != 0:
                    g = g + weight_decay * param
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum += 1 * g * g
                std = np.sqrt(state_sum)
                std += eps
                update = -clr * g
                update /= std
                param += update
        return loss
