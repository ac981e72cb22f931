"""SparseAdam: Adam for sparse gradients (nn.Embedding(sparse=True)'s), updating the
moments and the parameter only at the gradient's entries."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check, _check_betas, _scalar, _sparse_grad, _state_zeros)

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """SparseAdam (torch.optim.SparseAdam): a lazy Adam for sparse gradients. Only the rows
    (entries) a gradient holds get their moments and values updated; dense gradients are
    refused, as in torch."""

    def __init__(self, params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        _check(0.0 < lr, f"Invalid learning rate: {lr}")
        _check(0.0 < eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse_params, complex_params = [], []
        for group_index, group in enumerate(self.param_groups):
            for index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([group_index, index])
                if p.is_complex():
                    complex_params.append([group_index, index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires "
                             "dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does "
                             "not support complex parameters")

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p._grad is not None]
            if any(not p._grad.is_sparse for p in params):
                raise RuntimeError("SparseAdam does not support dense gradients, please "
                                   "consider Adam instead")
            for p in params:
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _state_zeros(p)
                    state["exp_avg_sq"] = _state_zeros(p)
                state["step"] += 1
                _sparse_adam(p, state, _scalar(group["lr"]), *group["betas"], group["eps"],
                             group["maximize"])
        return loss


def _sparse_adam(p: Tensor, state: dict, lr: float, beta1: float, beta2: float, eps: float,
                 maximize: bool) -> None:
    """One step at the coalesced gradient's entries, in torch's order of operations."""
    index, grad = _sparse_grad(p, maximize)
    exp_avg, exp_avg_sq = state["exp_avg"]._data_to_write(), state["exp_avg_sq"]._data_to_write()
    old_avg, old_sq = exp_avg[index], exp_avg_sq[index]
    avg_update = (grad - old_avg) * (1 - beta1)
    sq_update = (grad * grad - old_sq) * (1 - beta2)
    exp_avg[index] += avg_update
    exp_avg_sq[index] += sq_update
    numer = avg_update + old_avg
    denom = np.sqrt(sq_update + old_sq) + eps
    step = state["step"]
    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    p._data_to_write()[index] += -step_size * (numer / denom)
