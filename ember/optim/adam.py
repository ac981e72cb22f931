"""Adam (with AMSGrad and optional decoupled weight decay, which makes it AdamW)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._cpu.scratch import ThreadScratch
from .._tensor import Tensor
from .optimizer import (Optimizer, _check_adam_args, _count_step, _grad, _lerp_,
                        _params_with_grad, _scalar, _weight_decay, _written, for_slices)

__all__ = ["Adam"]

# Temporaries of the update, one pair per thread (see _cpu/scratch.py).
_SCRATCH = ThreadScratch()


class Adam(Optimizer):
    """Adam (torch.optim.Adam). foreach, capturable, differentiable and fused are
    accepted: on ember's CPU path they all compute the same update."""

    def __init__(self, params, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        if isinstance(betas[0], Tensor) != isinstance(betas[1], Tensor):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        updates = []
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            amsgrad = group["amsgrad"]
            for p in _params_with_grad(group):
                state = self._lazy_state(p, "exp_avg", "exp_avg_sq",
                                         *(["max_exp_avg_sq"] if amsgrad else []))
                step = _count_step(state)
                arrays = (_written(p), _grad(p, group["maximize"]), _written(state["exp_avg"]),
                          _written(state["exp_avg_sq"]),
                          _written(state["max_exp_avg_sq"]) if amsgrad else None)
                updates.append((arrays, _Coefficients(group, lr, beta1, beta2, step)))
        for_slices(updates, _update)
        return loss


class _Coefficients:
    """The scalars of one parameter's Adam update at this step."""

    def __init__(self, group: dict, lr: float, beta1: float, beta2: float, step: float):
        self.lr, self.beta1, self.beta2 = lr, beta1, beta2
        self.weight_decay, self.eps = group["weight_decay"], group["eps"]
        self.decoupled = group["decoupled_weight_decay"]
        self.bias_correction1 = 1 - beta1 ** step
        self.bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5


def _update(arrays, c: _Coefficients) -> None:
    """Adam's update of (a slice of) one parameter, in torch's order of operations."""
    param, g, exp_avg, exp_avg_sq, max_exp_avg_sq = arrays
    g = _weight_decay(param, g, c.lr, c.weight_decay, c.decoupled)
    with _SCRATCH.lend(param.shape, param.dtype, 0) as tmp, \
            _SCRATCH.lend(param.shape, param.dtype, 1) as update:
        _lerp_(exp_avg, g, 1 - c.beta1, tmp)
        exp_avg_sq *= c.beta2
        np.multiply(g, 1 - c.beta2, out=tmp)      # torch's addcmul order: (v * g) * g
        tmp *= g
        exp_avg_sq += tmp
        second = exp_avg_sq
        if max_exp_avg_sq is not None:
            second = max_exp_avg_sq
            np.maximum(second, exp_avg_sq, out=second)
        denom = np.sqrt(second, out=tmp)
        denom /= c.bias_correction2_sqrt
        denom += c.eps
        np.multiply(exp_avg, -c.lr / c.bias_correction1, out=update)
        update /= denom
        param += update
