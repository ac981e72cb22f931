"""SparseAdam: Adam that updates only the rows a gradient touches.

ember never makes sparse gradients. SparseAdam here takes ordinary dense gradients and
treats every row (index along dim 0; element of a 1-D parameter) holding a
non-zero value as present, which is what torch does with `grad.to_sparse(1)`.
A row whose gradient is exactly zero keeps its moments and value, unlike Adam.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _check, _check_betas, _params_with_grad, _scalar, _state_zeros

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """SparseAdam (torch.optim.SparseAdam) on dense gradients: see the module docstring."""

    def __init__(self, params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        _check(0.0 < lr, f"Invalid learning rate: {lr}")
        _check(0.0 < eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [i for i, p in enumerate(self.param_groups[0]["params"])
                          if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does "
                             "not support complex parameters")

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _state_zeros(p)
                    state["exp_avg_sq"] = _state_zeros(p)
                state["step"] += 1
                g = p._grad.numpy(force=True)
                rows = g != 0 if g.ndim <= 1 else g.any(axis=tuple(range(1, g.ndim)))
                if not rows.any():
                    continue
                values = g[rows]
                if group["maximize"]:
                    values = -values
                exp_avg, exp_avg_sq = (state["exp_avg"]._data_to_write(),
                                       state["exp_avg_sq"]._data_to_write())
                old_avg, old_sq = exp_avg[rows], exp_avg_sq[rows]
                avg_update = (values - old_avg) * (1 - beta1)
                sq_update = (values ** 2 - old_sq) * (1 - beta2)
                exp_avg[rows] = old_avg + avg_update
                exp_avg_sq[rows] = old_sq + sq_update
                numer = avg_update + old_avg
                denom = np.sqrt(sq_update + old_sq)
                denom += eps
                step = state["step"]
                step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                p._data_to_write()[rows] += numer / denom * -step_size
        return loss
