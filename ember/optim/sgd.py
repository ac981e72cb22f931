"""SGD with optional momentum, dampening, Nesterov momentum and weight decay."""
from __future__ import annotations

from typing import Callable

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_nonnegative, _grad, _params_with_grad, _scalar,
                        _view, _written)

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
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            weight_decay = _scalar(group["weight_decay"])
            momentum, dampening = group["momentum"], group["dampening"]
            for p in _params_with_grad(group):
                param, g = _written(p), _grad(p, group["maximize"])
                if weight_decay != 0:
                    g = g + weight_decay * param
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = Tensor._wrap(g.reshape(p._data.shape).copy())
                        state["momentum_buffer"] = buf
                    else:
                        b = _written(buf)
                        b *= momentum
                        b += (1 - dampening) * g
                    g = g + momentum * _view(buf) if group["nesterov"] else _view(buf)
                param += -lr * g
        return loss
