"""ASGD: SGD with a decaying step size plus a running (Polyak) average of the iterates."""
from __future__ import annotations

from typing import Callable

from .._tensor import Tensor
from .optimizer import (Optimizer, _check_nonnegative, _count_step, _grad,
                        _params_with_grad, _scalar, _state_zeros, _step_counter, _written)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD (torch.optim.ASGD); the average is state['ax']."""

    def __init__(self, params, lr: float | Tensor = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_nonnegative(lr=lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p in _params_with_grad(group, dense_only="ASGD"):
                state = self.state[p]
                if not state:
                    state["step"] = _step_counter()
                    state["eta"] = _step_counter(lr)
                    state["mu"] = _step_counter(1.0)
                    state["ax"] = _state_zeros(p)
                param, g = _written(p), _grad(p, group["maximize"])
                ax, eta, mu = _written(state["ax"]), state["eta"]._data_to_write(), state["mu"]._data_to_write()
                step = _count_step(state)
                if weight_decay != 0:
                    g = g + weight_decay * param
                eta_value = float(eta)
                param *= 1 - lambd * eta_value
                param += -eta_value * g
                if float(mu) != 1:
                    diff = param - ax
                    diff *= mu
                    ax += diff
                else:
                    ax[...] = param
                eta[...] = lr / ((1 + lambd * lr * step) ** alpha)
                mu[...] = 1 / max(1, step - t0)
        return loss
