"""NAdam: Adam with Nesterov momentum (and a momentum schedule, momentum_decay)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_adam_args, _check_nonnegative, _count_step, _grad,
                        _lerp_, _params_with_grad, _scalar, _state_zeros, _step_counter,
                        _weight_decay, _written)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (torch.optim.NAdam); decoupled_weight_decay=True gives NAdamW."""

    def __init__(self, params, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_nonnegative(momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            momentum_decay = group["momentum_decay"]
            for p in _params_with_grad(group, dense_only="NAdam"):
                state = self.state[p]
                if not state:
                    state["step"] = _step_counter()
                    state["mu_product"] = _step_counter(1.0)
                    state["exp_avg"] = _state_zeros(p)
                    state["exp_avg_sq"] = _state_zeros(p)
                param, g = _written(p), _grad(p, group["maximize"])
                exp_avg, exp_avg_sq = _written(state["exp_avg"]), _written(state["exp_avg_sq"])
                mu_product = state["mu_product"]._data_to_write()
                step = _count_step(state)
                bias_correction2 = 1 - beta2 ** step
                g = _weight_decay(param, g, lr, weight_decay, group["decoupled_weight_decay"])
                # The momentum coefficient of this step and of the next (Nesterov look-ahead).
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                mu_product *= mu
                _lerp_(exp_avg, g, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * g * g
                denom = np.sqrt(exp_avg_sq / bias_correction2)
                denom += eps
                product = float(mu_product)
                grad_coef = -lr * (1.0 - mu) / (1.0 - product)
                avg_coef = (-lr * mu_next) / (1.0 - product * mu_next)
                param += grad_coef * g / denom
                param += avg_coef * exp_avg / denom
        return loss
