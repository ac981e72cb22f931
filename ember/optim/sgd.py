"""SGD with optional momentum, dampening, Nesterov momentum and weight decay."""
from __future__ import annotations

from typing import Callable

from .._cpu import kernels
from .._tensor import Tensor
from .optimizer import (Optimizer, _add_sparse_, _check_nonnegative, _params_with_grad,
                        _scalar, _state_zeros, _view, _written, for_slices)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (torch.optim.SGD)."""

    def __init__(self, params, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float | Tensor = 0,
                 nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        updates = []
        for group in self.param_groups:
            momentum = group["momentum"]
            options = dict(lr=_scalar(group["lr"]), weight_decay=_scalar(group["weight_decay"]),
                           momentum=momentum, dampening=group["dampening"],
                           nesterov=group["nesterov"], maximize=group["maximize"])
            for p in _params_with_grad(group):
                if p._grad.is_sparse:
                    self._sparse_step(p, options)
                    continue
                buffer, first_step = None, False
                if momentum != 0:
                    state = self.state[p]
                    first_step = state.get("momentum_buffer") is None
                    if first_step:     # the kernel fills it with the gradient
                        state["momentum_buffer"] = _state_zeros(p)
                        buffer = _view(state["momentum_buffer"])
                    else:
                        buffer = _written(state["momentum_buffer"])
                updates.append(((_written(p), _view(p._grad), buffer),
                                dict(options, first_step=first_step)))
        for_slices(kernels.family("optim").sgd, updates)
        return loss

    def _sparse_step(self, p: Tensor, options: dict) -> None:
        """torch's SGD on a sparse gradient: only its entries move, and a momentum buffer
        is sparse too (weight decay cannot be added to a sparse gradient, as in torch)."""
        grad = -p._grad if options["maximize"] else p._grad
        if options["weight_decay"] != 0:
            grad.add(p)     # raises torch's "add(sparse, dense) is not supported" error
        momentum = options["momentum"]
        if momentum != 0:
            state = self.state[p]
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = grad.clone().detach()
            else:
                buffer = (buffer * momentum).add(grad, alpha=1 - options["dampening"])
            state["momentum_buffer"] = buffer
            grad = grad.add(buffer, alpha=momentum) if options["nesterov"] else buffer
        _add_sparse_(p, grad, -options["lr"])
