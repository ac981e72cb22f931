"""RMSprop: steps divided by a running root-mean-square of the gradients."""
from __future__ import annotations

from typing import Callable

from .._cpu import kernels
from .._tensor import Tensor
from .optimizer import (Optimizer, _check_nonnegative, _count_step, _params_with_grad,
                        _scalar, _state_zeros, _step_counter, _view, _written, for_slices)

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
        updates = []
        for group in self.param_groups:
            momentum, centered = group["momentum"], group["centered"]
            options = dict(lr=_scalar(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                           weight_decay=group["weight_decay"], momentum=momentum,
                           maximize=group["maximize"])
            for p in _params_with_grad(group, dense_only="RMSprop"):
                state = self.state[p]
                if not state:
                    state["step"] = _step_counter()
                    state["square_avg"] = _state_zeros(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _state_zeros(p)
                    if centered:
                        state["grad_avg"] = _state_zeros(p)
                _count_step(state)
                arrays = (_written(p), _view(p._grad), _written(state["square_avg"]),
                          _written(state["grad_avg"]) if centered else None,
                          _written(state["momentum_buffer"]) if momentum > 0 else None)
                updates.append((arrays, options))
        for_slices(kernels.family("optim").rmsprop, updates)
        return loss
