"""Kernel family "optim": the elementwise updates of SGD, Adam/AdamW, RMSprop and Adagrad,
in NumPy (the reference; ember/_cpu/numba/optim.py is the compiled twin).

Each kernel updates one parameter, or one slice of it, in place, together with its
state arrays: every array argument has the same shape and dtype (a state the options do
not use is None), and nothing else is read or written. ember/optim/optimizer.py's
for_slices cuts parameters into flat slices and runs the slices on both threads; any
slicing gives the same result, since every element is updated on its own.

The arithmetic follows torch's single-tensor CPU updates operation by operation, each
rounded to the parameter's dtype. torch's compiled kernels fuse three of those
operations into one multiply-add, rounded once: `lerp_` (start + weight * (end - start)),
`add(other, alpha=a)` (self + a * other) and `addcmul_` (self + (value * t1) * t2).
NumPy cannot fuse; it rounds the product and the sum apart, so after many steps its
parameters drift from torch's by a few ulps where the numba kernels stay closer.
"""
from __future__ import annotations

import numpy as np

from .scratch import ThreadScratch

__all__ = ["sgd", "adam", "rmsprop", "adagrad", "lerp_", "weight_decayed"]

# Temporaries of the Adam update, one pair per thread.
_SCRATCH = ThreadScratch()


def lerp_(start: np.ndarray, end: np.ndarray, weight: float,
          scratch: np.ndarray | None = None) -> None:
    """start += weight * (end - start) in place, in torch's two-sided form (from `end`
    when weight >= 0.5). `scratch` (an array like start) saves allocating the
    difference."""
    diff = np.subtract(end, start, out=scratch)
    if abs(weight) < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= 1.0 - weight
        np.subtract(end, diff, out=start)


def weight_decayed(param: np.ndarray, grad: np.ndarray, lr: float, weight_decay: float,
                   decoupled: bool) -> np.ndarray:
    """The gradient after weight decay: decoupled decay (AdamW) shrinks param in place by
    1 - lr * weight_decay and returns grad as it is; L2 decay returns
    grad + weight_decay * param (a new array)."""
    if weight_decay == 0:
        return grad
    if decoupled:
        param *= 1 - lr * weight_decay
        return grad
    return grad + weight_decay * param


def sgd(param: np.ndarray, grad: np.ndarray, momentum_buffer: np.ndarray | None, *,
        lr: float, weight_decay: float, momentum: float, dampening: float, nesterov: bool,
        maximize: bool, first_step: bool) -> None:
    """One SGD step. With momentum, momentum_buffer is set to the (decayed) gradient on
    the parameter's first step and to momentum * buffer + (1 - dampening) * gradient
    after; param moves by -lr times the buffer (Nesterov: times gradient + momentum *
    buffer). momentum_buffer is None when momentum is 0."""
    g = -grad if maximize else grad
    if weight_decay != 0:
        g = g + weight_decay * param
    if momentum != 0:
        if first_step:
            np.copyto(momentum_buffer, g)
        else:
            momentum_buffer *= momentum
            momentum_buffer += (1 - dampening) * g
        g = g + momentum * momentum_buffer if nesterov else momentum_buffer
    param += -lr * g


def adam(param: np.ndarray, grad: np.ndarray, exp_avg: np.ndarray, exp_avg_sq: np.ndarray,
         max_exp_avg_sq: np.ndarray | None, *, lr: float, beta1: float, beta2: float,
         eps: float, weight_decay: float, decoupled: bool, maximize: bool,
         step: float) -> None:
    """One Adam step (AdamW's when `decoupled`), `step` counting this one from 1. The
    running averages move towards the gradient and its square; with AMSGrad
    (max_exp_avg_sq given) the denominator uses the largest second moment so far."""
    g = weight_decayed(param, -grad if maximize else grad, lr, weight_decay, decoupled)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    with _SCRATCH.lend(param.shape, param.dtype, 0) as tmp, \
            _SCRATCH.lend(param.shape, param.dtype, 1) as update:
        lerp_(exp_avg, g, 1 - beta1, tmp)
        exp_avg_sq *= beta2
        np.multiply(g, 1 - beta2, out=tmp)      # torch's addcmul order: (v * g) * g
        tmp *= g
        exp_avg_sq += tmp
        second = exp_avg_sq
        if max_exp_avg_sq is not None:
            second = max_exp_avg_sq
            np.maximum(second, exp_avg_sq, out=second)
        denom = np.sqrt(second, out=tmp)
        denom /= bias_correction2_sqrt
        denom += eps
        np.multiply(exp_avg, -lr / bias_correction1, out=update)
        update /= denom
        param += update


def rmsprop(param: np.ndarray, grad: np.ndarray, square_avg: np.ndarray,
            grad_avg: np.ndarray | None, momentum_buffer: np.ndarray | None, *, lr: float,
            alpha: float, eps: float, weight_decay: float, momentum: float,
            maximize: bool) -> None:
    """One RMSprop step: square_avg moves towards the squared gradient by 1 - alpha;
    centered (grad_avg given) subtracts the square of the running mean gradient before
    the root; with momentum (momentum_buffer given) the scaled gradient is accumulated
    in the buffer and the buffer is the step."""
    g = -grad if maximize else grad
    if weight_decay != 0:
        g = g + weight_decay * param
    square_avg *= alpha
    square_avg += (1 - alpha) * g * g
    if grad_avg is not None:
        lerp_(grad_avg, g, 1 - alpha)
        avg = np.sqrt(square_avg + -1 * grad_avg * grad_avg)
    else:
        avg = np.sqrt(square_avg)
    avg += eps
    if momentum_buffer is not None:
        momentum_buffer *= momentum
        momentum_buffer += g / avg
        param += -lr * momentum_buffer
    else:
        param += -lr * g / avg


def adagrad(param: np.ndarray, grad: np.ndarray, state_sum: np.ndarray, *, lr: float,
            eps: float, weight_decay: float, maximize: bool) -> None:
    """One Adagrad step with learning rate `lr` (already decayed for this step):
    state_sum accumulates the squared gradient, and param moves by -lr * gradient over
    the root of the sum plus eps."""
    g = -grad if maximize else grad
    if weight_decay != 0:
        g = g + weight_decay * param
    state_sum += 1 * g * g
    std = np.sqrt(state_sum)
    std += eps
    update = -lr * g
    update /= std
    param += update
