"""Adafactor: Adam-like steps whose second moment of a matrix is stored as row and column
means (factored), with a step size relative to the parameter's own scale."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor
from .optimizer import (Optimizer, _check, _count_step, _grad, _lerp_, _params_with_grad,
                        _scalar, _step_counter, _written)

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor (torch.optim.Adafactor).

    Parameters of two or more dims keep `row_var` (mean of g * g over the last dim) and
    `col_var` (mean over the second-to-last dim); their outer product, divided by the mean
    of row_var, estimates the second moment. Vectors and scalars keep a full `variance`.
    The step is rho_t = min(lr, 1 / sqrt(t)) times the parameter's RMS (at least eps[1]);
    lr also scales the decoupled weight decay. eps[0] (machine epsilon of the parameter's
    dtype when None) keeps the estimate away from zero. foreach is accepted: ember computes
    the same update either way.
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        _check(not isinstance(lr, Tensor) or lr.numel() == 1, "Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    def _state(self, p: Tensor) -> dict:
        """p's state; created on its first step with zero second-moment buffers."""
        state = self.state[p]
        if not state:
            state["step"] = _step_counter()
            g = p._grad.numpy(force=True)
            if g.ndim > 1:
                state["row_var"] = Tensor._wrap(np.zeros(g.shape[:-1] + (1,), g.dtype))
                state["col_var"] = Tensor._wrap(np.zeros(g.shape[:-2] + (1, g.shape[-1]),
                                                         g.dtype))
            else:
                state["variance"] = Tensor._wrap(np.zeros_like(g))
        return state

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            for p in _params_with_grad(group, real_only="Adafactor",
                                       dense_only="Adafactor"):
                state = self._state(p)
                _update(p, state, group, lr, _count_step(state))
        return loss


def _rms(a: np.ndarray) -> float:
    """Root mean square of a non-empty array."""
    return float(np.linalg.norm(a.reshape(-1))) / a.size ** 0.5


def _second_moment(state: dict, g: np.ndarray, weight: float, eps1: float) -> np.ndarray:
    """Update the running mean of g * g kept in `state` and return a fresh array holding
    the second-moment estimate, shaped like g."""
    if "variance" in state:
        variance = _written(state["variance"])
        _lerp_(variance, g * g, weight)
        return variance.copy()
    row_var, col_var = state["row_var"]._data_to_write(), state["col_var"]._data_to_write()
    _lerp_(row_var, np.mean(g * g, axis=-1, keepdims=True), weight)
    _lerp_(col_var, np.mean(g * g, axis=-2, keepdims=True), weight)
    estimate = row_var * col_var      # outer product of the row and column factors
    estimate /= np.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
    return estimate


def _update(p: Tensor, state: dict, group: dict, lr: float, step: float) -> None:
    """One Adafactor step of parameter p, in torch's order of operations."""
    param, g = _written(p), _grad(p, group["maximize"])
    if param.size == 0:     # nothing to update (torch 2.13 divides by zero here)
        return
    eps1, eps2 = group["eps"]
    if eps1 is None:
        eps1 = float(np.finfo(param.dtype).eps)
    rho = min(lr, 1 / step ** 0.5)
    alpha = max(eps2, _rms(param)) * rho        # measured before weight decay
    if group["weight_decay"] != 0:
        param *= 1 - lr * group["weight_decay"]
    # With eps1 = 0, zero gradients give 0 / 0 = nan, silently as in torch.
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = _second_moment(state, g, step ** group["beta2_decay"], eps1)
        # Clamping with eps1 squared keeps eps1's scale after the square root.
        update = np.sqrt(np.maximum(estimate, eps1 * eps1, out=estimate), out=estimate)
        np.divide(1, update, out=update)
        update *= g
    clip = max(1.0, _rms(update) / group["d"])   # shrink updates whose RMS exceeds d
    update *= -alpha / clip
    param += update
