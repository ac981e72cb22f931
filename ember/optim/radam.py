"""RAdam: Adam whose adaptive step is switched on once its variance is tractable."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_adam_args, _count_step, _grad, _lerp_,
                        _params_with_grad, _scalar, _weight_decay, _written)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam (torch.optim.RAdam); decoupled_weight_decay=True gives RAdamW."""

    def __init__(self, params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            for p in _params_with_grad(group, dense_only="RAdam"):
                state = self._lazy_state(p, "exp_avg", "exp_avg_sq")
                param, g = _written(p), _grad(p, group["maximize"])
                exp_avg, exp_avg_sq = _written(state["exp_avg"]), _written(state["exp_avg_sq"])
                step = _count_step(state)
                g = _weight_decay(param, g, lr, weight_decay, group["decoupled_weight_decay"])
                _lerp_(exp_avg, g, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * g * g
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                update = exp_avg / bias_correction1
                update *= lr
                # rho: length of the approximated simple moving average of the 2nd moment.
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = np.sqrt(exp_avg_sq)
                    adaptive += eps
                    np.reciprocal(adaptive, out=adaptive)
                    adaptive *= bias_correction2 ** 0.5
                    update *= adaptive
                    update *= rect
                param -= update
        return loss
