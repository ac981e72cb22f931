"""Adagrad: per-coordinate steps scaled by the root of the summed squared gradients."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._cpu import kernels
from .._tensor import Tensor
from .optimizer import (Optimizer, _check_nonnegative, _count_step, _params_with_grad,
                        _scalar, _sparse_grad, _state_zeros, _step_counter, _view, _written,
                        for_slices)

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
        updates = []
        for group in self.param_groups:
            lr, lr_decay = _scalar(group["lr"]), group["lr_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                step = _count_step(state)
                options = dict(lr=lr / (1 + (step - 1) * lr_decay), eps=group["eps"],
                               weight_decay=group["weight_decay"], maximize=group["maximize"])
                if p._grad.is_sparse:
                    _sparse_adagrad(p, state["sum"], **options)
                    continue
                updates.append(((_written(p), _view(p._grad), _written(state["sum"])), options))
        for_slices(kernels.family("optim").adagrad, updates)
        return loss


def _sparse_adagrad(p: Tensor, state_sum: Tensor, lr: float, eps: float, weight_decay: float,
                    maximize: bool) -> None:
    """torch's Adagrad on a sparse gradient: the sums and parameters change only at its
    (coalesced) entries."""
    if weight_decay != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    index, values = _sparse_grad(p, maximize)
    sums = state_sum._data_to_write()
    sums[index] += values * values
    p._data_to_write()[index] += -lr * (values / (np.sqrt(sums[index]) + eps))
