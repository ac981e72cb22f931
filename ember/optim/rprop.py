"""Rprop: per-coordinate step sizes grown or shrunk by the sign agreement of gradients."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check, _check_nonnegative, _count_step, _grad,
                        _params_with_grad, _scalar, _state_zeros, _step_counter, _written)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop (torch.optim.Rprop)."""

    def __init__(self, params, lr: float | Tensor = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr)
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in _params_with_grad(group, dense_only="Rprop"):
                state = self.state[p]
                if not state:
                    state["step"] = _step_counter()
                    state["prev"] = _state_zeros(p)
                    state["step_size"] = _state_zeros(p, _scalar(group["lr"]))
                param, g = _written(p), _grad(p, group["maximize"])
                prev, step_size = _written(state["prev"]), _written(state["step_size"])
                _count_step(state)
                agreement = np.sign(g * prev)
                factor = np.where(agreement > 0, etaplus, np.where(agreement < 0, etaminus, 1))
                step_size *= factor.astype(step_size.dtype, copy=False)
                np.clip(step_size, step_size_min, step_size_max, out=step_size)
                # After a sign change the step is skipped and the gradient forgotten.
                g = np.where(agreement < 0, 0, g).astype(param.dtype, copy=False)
                param += -1 * np.sign(g) * step_size
                prev[...] = g
        return loss
