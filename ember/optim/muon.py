"""Muon: momentum SGD for 2-D weights whose step is the momentum orthogonalized by a
Newton-Schulz iteration (MomentUm Orthogonalized by Newton-schulz)."""
from __future__ import annotations

import math
from typing import Callable

import ml_dtypes
import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _check, _params_with_grad, _scalar

__all__ = ["Muon"]

# The quintic Newton-Schulz coefficients and step count from Keller Jordan's Muon post
# (https://kellerjordan.github.io/posts/muon/), torch's defaults.
NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
NS_STEPS = 5
EPS = 1e-7


class Muon(Optimizer):
    """Muon (torch.optim.Muon), for 2-D parameters only (give biases, embeddings and
    other parameters to e.g. AdamW).

    Each step: momentum_buffer = lerp(momentum_buffer, grad, 1 - momentum); the update
    (grad lerped toward the buffer by `momentum` with nesterov, else the buffer) is
    orthogonalized by ns_steps Newton-Schulz iterations run in bfloat16, as torch does;
    then param *= 1 - lr * weight_decay and param -= adjusted_lr * update, where
    adjust_lr_fn "original" (None) scales lr by sqrt(max(1, rows / cols)) and
    "match_rms_adamw" by 0.2 * sqrt(max(rows, cols)).
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = NS_COEFFICIENTS,
                 eps: float = EPS, ns_steps: int = NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        _check(not isinstance(lr, Tensor) or lr.numel() == 1, "Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 <= momentum, f"momentum should be >= 0 but is: {momentum}")
        _check(0.0 <= weight_decay, f"weight decay should be >= 0 but is: {weight_decay}")
        _check(adjust_lr_fn in (None, "original", "match_rms_adamw"),
               f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                _check(p.ndim == 2, "Muon only supports 2D parameters whereas we found a "
                       f"parameter with size: {p.size()}")

    def step(self, closure: Callable | None = None):
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = _params_with_grad(group, real_only="Muon", dense_only="Muon")
            for p in params:
                if "momentum_buffer" not in self.state[p]:
                    grad = p._grad.numpy(force=True)
                    self.state[p]["momentum_buffer"] = Tensor._wrap(np.zeros_like(grad))
            for p in params:
                _update(p, self.state[p]["momentum_buffer"]._data_to_write(), group)
        return loss


def _update(p: Tensor, buf: np.ndarray, group: dict) -> None:
    """One Muon step of the 2-D parameter p with momentum buffer buf."""
    g = p._grad.numpy(force=True)
    _check(g.ndim == 2, "Param gradient must be a 2D matrix")
    momentum = group["momentum"]
    buf[...] = _lerp(buf, g, 1 - momentum)
    update = _lerp(g, buf, momentum) if group["nesterov"] else buf
    update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
    lr = _scalar(group["lr"])
    param = p._data_to_write()
    param *= 1 - lr * group["weight_decay"]
    scale = param.dtype.type(-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))
    param[...] = _fused_multiply_add(scale, update.astype(param.dtype), param)


# torch's CPU kernels for lerp and add(alpha=) use fused multiply-adds (one rounding). In
# float32 that matters here: a value one float32 ulp off can round to a different bfloat16
# in the Newton-Schulz input, so these two helpers reproduce the single rounding.
def _fused_multiply_add(a: np.floating, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once (for float32, via float64, where a * b is exact)."""
    if c.dtype != np.float32:
        return a * b + c
    return (np.float64(a) * b.astype(np.float64) + c).astype(np.float32)


def _lerp(start: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """torch.lerp(start, end, weight) as torch's CPU kernel computes it: weight in the
    arrays' dtype; start + w (end - start) when |w| < 0.5, else end + (w - 1)(end - start)."""
    w = start.dtype.type(weight)
    diff = end - start
    if abs(w) < 0.5:
        return _fused_multiply_add(w, diff, start)
    return _fused_multiply_add(w - 1, diff, end)


def _adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """lr scaled so that the orthogonalized update has a comparable RMS for any shape."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    return lr * 0.2 * math.sqrt(max(rows, cols))    # "match_rms_adamw"


def _bfloat16(a: np.ndarray) -> np.ndarray:
    """a rounded to bfloat16 values (kept in a float32 array, so matmul runs on BLAS).
    torch casts float64 to bfloat16 through float32, so that is done here too."""
    return a.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def _orthogonalize(g: np.ndarray, coefficients: tuple[float, float, float], steps: int,
                   eps: float) -> np.ndarray:
    """Approximately U V^T of g = U S V^T, by `steps` quintic Newton-Schulz iterations
    X <- a X + (b X X^T + c (X X^T)^2) X on g scaled to norm 1. As in torch, every
    intermediate is rounded to bfloat16 (matmuls accumulate in float32)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(k) for k in coefficients)
    tall = g.shape[0] > g.shape[1]
    x = _bfloat16(g.T if tall else g)     # wide, so that the Gram matrix X X^T is the smaller
    norm = _bfloat16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    x = _bfloat16(x / max(norm, _bfloat16(np.float32(eps))))
    for _ in range(steps):
        gram = _bfloat16(x @ x.T)
        polynomial = _bfloat16(b * gram + c * (gram @ gram))
        x = _bfloat16(a * x + polynomial @ x)
    return x.T if tall else x
