"""RMSprop: steps divided by a running root-mean-square of the gradients."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_nonnegative, _count_step, _grad, _lerp_,
                        _params_with_grad, _scalar, _state_zeros, _step_counter, _written)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (torch.optim.RMSprop), optionally centered and with momentum."""

    def __init__(self, params, lr: float | Tensor = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                           alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            alpha, eps, weight_decay = group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered = group["momentum"], group["centered"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if not state:
                    state["step"] = _step_counter()
                    state["square_avg"] = _state_zeros(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _state_zeros(p)
                    if centered:
                        state["grad_avg"] = _state_zeros(p)
                param, g = _written(p), _grad(p, group["maximize"])
                square_avg = _written(state["square_avg"])
                _count_step(state)
                if weight_decay != 0:
                    g = g + weight_decay * param
                square_avg *= alpha
                square_avg += (1 - alpha) * g * g
                if centered:
                    grad_avg = _written(state["grad_avg"])
                    _lerp_(grad_avg, g, 1 - alpha)
                    avg = np.sqrt(square_avg + -1 * grad_avg * grad_avg)
                else:
                    avg = np.sqrt(square_avg)
                avg += eps
                if momentum > 0:
                    buf = _written(state["momentum_buffer"])
                    buf *= momentum
                    buf += g / avg
                    param += -lr * buf
                else:
                    param += -lr * g / avg
        return loss
