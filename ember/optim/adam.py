"""Adam (with AMSGrad and optional decoupled weight decay, which makes it AdamW)."""
from __future__ import annotations

from typing import Callable

from .._cpu import kernels
from .._tensor import Tensor
from .optimizer import (Optimizer, _check_adam_args, _count_step, _params_with_grad, _scalar,
                        _view, _written, for_slices)

__all__ = ["Adam"]


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
            amsgrad = group["amsgrad"]
            options = dict(lr=_scalar(group["lr"]), beta1=_scalar(group["betas"][0]),
                           beta2=_scalar(group["betas"][1]), eps=group["eps"],
                           weight_decay=group["weight_decay"],
                           decoupled=group["decoupled_weight_decay"],
                           maximize=group["maximize"])
            for p in _params_with_grad(group, dense_only="Adam"):
                state = self._lazy_state(p, "exp_avg", "exp_avg_sq",
                                         *(["max_exp_avg_sq"] if amsgrad else []))
                step = _count_step(state)
                arrays = (_written(p), _view(p._grad), _written(state["exp_avg"]),
                          _written(state["exp_avg_sq"]),
                          _written(state["max_exp_avg_sq"]) if amsgrad else None)
                updates.append((arrays, dict(options, step=step)))
        for_slices(kernels.family("optim").adam, updates)
        return loss
