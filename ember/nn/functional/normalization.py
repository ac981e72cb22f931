"""Normalisation: batch_norm, instance_norm, layer_norm, group_norm.

Batch and instance norm reduce to one fused primitive, `Normalize`: subtract the mean
and divide by the standard deviation over some axes, then apply an optional elementwise
affine constant over those axes. Layer norm, whose affine varies along the normalised
axes, is its own primitive `LayerNorm` on the `normalization` kernel family
(ember/_cpu/normalization.py, or its numba twin), one pass over rows each way; group
norm is layer norm over the rows of each group, then the per-channel affine. When a
backward is itself being recorded (create_graph=True) both primitives recompute the
statistics with ember ops instead, so second derivatives flow through the mean and
variance too.
"""
from __future__ import annotations

import math

import numpy as np

from ... import _dtype
from ..._cpu import kernels
from ..._tensor import Tensor
from ...autograd.function import Function
from ..._modes import current as modes
from ...autograd.grad_mode import no_grad
from ...ops.pointwise import scalar_type_name
from ...ops.shape import _named

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY


def _stats(x: np.ndarray, axes: tuple, scratch: np.ndarray):
    """mean, biased variance and x - mean; `scratch` (like x) holds the squares."""
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    var = np.square(centered, out=scratch).mean(axis=axes, keepdims=True)
    return mean, var, centered


class Normalize(Function):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, statistics over `axes`.

    weight and bias (or None) broadcast against x. Also returns the batch mean and
    biased variance (non-differentiable), which batch norm uses for running stats.
    """
    backward_name = "NativeBatchNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, axes, eps):
        data = x._data
        compute = data.astype(np.float32) if data.dtype in _LOW_PRECISION else data
        y = np.empty_like(compute)
        mean, var, centered = _stats(compute, axes, scratch=y)
        invstd = 1.0 / np.sqrt(var + eps)
        xhat = centered
        xhat *= invstd
        if weight is not None:
            np.multiply(xhat, weight._data, out=y)
        else:
            np.copyto(y, xhat)
        if bias is not None:
            y += bias._data
        ctx.axes, ctx.eps = axes, eps
        ctx.xhat = Tensor._wrap(xhat)
        ctx.invstd = Tensor._wrap(invstd)
        ctx.save_for_backward(x, weight)
        mean_out, var_out = mean.reshape(-1), var.reshape(-1)
        ctx.mark_non_differentiable(mean_out, var_out)
        return y.astype(data.dtype, copy=False), mean_out, var_out

    @staticmethod
    def backward(ctx, grad, _grad_mean, _grad_var):
        x, weight = ctx.saved_tensors
        if modes().grad_enabled:
            return (_recorded_backward(grad, x, weight, ctx.axes, ctx.eps,
                                       ctx.needs_input_grad[:3]) + (None, None))
        return _plain_backward(ctx, grad._data, weight, x._data.dtype) + (None, None)


def _recorded_backward(grad: Tensor, x: Tensor, weight, axes: tuple, eps: float,
                       needs: tuple) -> tuple:
    """(grad_x, grad_weight, grad_bias) in ember ops, the statistics rebuilt from x so
    that a recorded backward (create_graph) differentiates through them too. The weight
    and bias gradients are full-size: the engine sums them down to the parameters'
    shapes."""
    mean = x.mean(axes, keepdim=True)
    centered = x - mean
    invstd = ((centered * centered).mean(axes, keepdim=True) + eps).rsqrt()
    xhat = centered * invstd
    need_x, need_w, need_b = needs
    g_xhat = grad * weight if weight is not None else grad
    grad_x = None
    if need_x:
        grad_x = invstd * (g_xhat - g_xhat.mean(axes, keepdim=True)
                           - xhat * (g_xhat * xhat).mean(axes, keepdim=True))
    return grad_x, grad * xhat if need_w else None, grad if need_b else None


def _plain_backward(ctx, g: np.ndarray, weight: Tensor | None, dtype) -> tuple:
    """A backward that is not recorded, in NumPy, for a weight constant over the axes
    (batch, instance and group norm):
    the two sums the input gradient needs are also the weight's and bias's gradients,
    so each full-size pass is done once (6 passes against 13 with ember ops).

    dx = invstd * w * (g - mean(g) - xhat * mean(g * xhat)), means over the axes."""
    xhat, invstd = ctx.xhat._data, ctx.invstd._data
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    g = g.astype(xhat.dtype, copy=False)
    count = xhat.size // invstd.size
    sum_g = g.sum(ctx.axes, keepdims=True)
    sum_g_xhat = np.multiply(g, xhat).sum(ctx.axes, keepdims=True)
    grad_x = None
    if need_x:
        grad_x = g - sum_g / count
        grad_x -= xhat * (sum_g_xhat / count)
        grad_x *= invstd if weight is None else invstd * weight._data
        grad_x = Tensor._wrap(grad_x.astype(dtype, copy=False))
    return (grad_x, Tensor._wrap(sum_g_xhat) if need_w else None,
            Tensor._wrap(sum_g) if need_b else None)


def _channel_shape(x: Tensor) -> tuple:
    """(1, C, 1, ...) to broadcast per-channel parameters over an (N, C, *) input."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel over the batch (training) or with the running stats (eval)."""
    if input.ndim < 2:
        raise ValueError(f"Expected 2D or 3D input (got {input.ndim}D input)")
    shape = _channel_shape(input)
    w = weight.reshape(shape) if weight is not None else None
    b = bias.reshape(shape) if bias is not None else None
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
        axes = (0,) + tuple(range(2, input.ndim))
        y, mean, var = Normalize.apply(input, w, b, axes, eps)
        if running_mean is not None:
            _update_running(running_mean, mean, momentum)
        if running_var is not None:
            _update_running(running_var, var * (count / (count - 1)), momentum)
        return y
    if running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    scale = (running_var.reshape(shape) + eps).rsqrt()
    if w is not None:
        scale = scale * w
    y = (input - running_mean.reshape(shape)) * scale
    return y + b if b is not None else y


def _update_running(stat: Tensor, batch_value: Tensor, momentum: float) -> None:
    with no_grad():
        data = stat._data_to_write()
        data *= 1 - momentum
        data += momentum * batch_value._data.astype(data.dtype, copy=False)


class _AllReduceSum(Function):
    """The sum of a tensor over the processes of a group (every process gets it). Its
    adjoint is the same sum: each process's input reaches every process's output."""
    backward_name = "AllReduceSumBackward0"

    @staticmethod
    def forward(ctx, x, group):
        from ... import distributed
        ctx.group = group
        total = Tensor._wrap(x._data.copy())
        distributed.all_reduce(total, group=group)
        return total._data

    @staticmethod
    def backward(ctx, grad):
        return _AllReduceSum.apply(grad, ctx.group), None


def _sync_batch_norm(input: Tensor, running_mean, running_var, weight, bias, momentum: float,
                     eps: float, group) -> Tensor:
    """Training-mode batch_norm whose statistics cover the batches of every process in
    `group` (SyncBatchNorm). Built from ember ops and _AllReduceSum, so the backward pass
    sums the statistics' gradients over the processes too."""
    shape = _channel_shape(input)
    axes = (0,) + tuple(range(2, input.ndim))
    count = _AllReduceSum.apply(Tensor._wrap(np.array(input.numel() // input.shape[1])), group)
    count = int(count.item())
    if count <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {input.shape}")
    mean = _AllReduceSum.apply(input.sum(axes), group) / count
    centered = input - mean.reshape(shape)
    var = _AllReduceSum.apply((centered * centered).sum(axes), group) / count
    if running_mean is not None:
        _update_running(running_mean, mean, momentum)
    if running_var is not None:
        _update_running(running_var, var * (count / (count - 1)), momentum)
    y = centered * (var + eps).rsqrt().reshape(shape)
    if weight is not None:
        y = y * weight.reshape(shape)
    return y + bias.reshape(shape) if bias is not None else y


def instance_norm(input: Tensor, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1,
                  eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) over its spatial positions."""
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = input.shape[:2]
    axes = tuple(range(2, input.ndim))
    if input.numel() // (n * c) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    shape = _channel_shape(input)
    w = weight.reshape(shape) if weight is not None else None
    b = bias.reshape(shape) if bias is not None else None
    y, mean, var = Normalize.apply(input, w, b, axes, eps)
    if running_mean is not None:
        _update_running(running_mean, mean.reshape(n, c).mean(0), momentum)
    if running_var is not None:
        count = input.numel() // (n * c)
        unbiased = var.reshape(n, c).mean(0) * (count / (count - 1))
        _update_running(running_var, unbiased, momentum)
    return y


class LayerNorm(Function):
    """y = (x - mean) * rstd * weight + bias, with mean and rstd = 1 / sqrt(var + eps)
    over the last `ndim` dimensions; weight and bias (or None) have those dimensions'
    shape. Forward and a backward that is not recorded run the `normalization` kernels
    on x seen as rows of the normalised values."""
    backward_name = "NativeLayerNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, ndim, eps):
        data = x._data
        compute = np.float32 if data.dtype in _LOW_PRECISION else data.dtype
        rows = _rows(data, ndim, compute)
        y, ctx.mean, ctx.rstd = kernels.family("normalization").layer_norm(
            rows, _flat(weight, compute), _flat(bias, compute), eps)
        ctx.ndim, ctx.eps = ndim, eps
        ctx.parameter_dtypes = [p._data.dtype if p is not None else None for p in (weight, bias)]
        ctx.save_for_backward(x, weight)
        return y.reshape(data.shape).astype(data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad[:3]
        if modes().grad_enabled:
            axes = tuple(range(x.ndim - ctx.ndim, x.ndim))
            return _recorded_backward(grad, x, weight, axes, ctx.eps, needs) + (None, None)
        compute = ctx.mean.dtype
        dx, dweight, dbias = kernels.family("normalization").layer_norm_backward(
            _rows(grad._data, ctx.ndim, compute), _rows(x._data, ctx.ndim, compute),
            ctx.mean, ctx.rstd, _flat(weight, compute), needs)
        if dx is not None:
            dx = Tensor._wrap(dx.reshape(x.shape).astype(x.dtype.numpy, copy=False))
        shape = x.shape[x.ndim - ctx.ndim:]
        grads = [None if g is None else Tensor._wrap(g.reshape(shape).astype(dtype, copy=False))
                 for g, dtype in zip((dweight, dbias), ctx.parameter_dtypes)]
        return (dx, *grads, None, None)


def _rows(data: np.ndarray, ndim: int, dtype) -> np.ndarray:
    """data as (rows, n) in `dtype`, n the product of its last `ndim` dimensions."""
    split = data.ndim - ndim
    return data.astype(dtype, copy=False).reshape(math.prod(data.shape[:split]),
                                                  math.prod(data.shape[split:]))


def _flat(parameter: Tensor | None, dtype):
    """A weight or bias as a flat array in the kernels' dtype (or None)."""
    return None if parameter is None else parameter._data.astype(dtype, copy=False).reshape(-1)


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing `normalized_shape` dimensions of each sample."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    parameters = [(name, p) for name, p in (("weight", weight), ("bias", bias)) if p is not None]
    for name, parameter in parameters:
        if tuple(parameter.shape) != normalized_shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(parameter.shape)} and normalized_shape = {list(normalized_shape)}")
    if tuple(input.shape[input.ndim - k:]) != normalized_shape or k > input.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
            f"{list(input.shape)}")
    if input._data.dtype not in _LOW_PRECISION and any(p.dtype != input.dtype
                                                      for _, p in parameters):
        raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                           f"{scalar_type_name(input.dtype)}")
    return LayerNorm.apply(input, weight, bias, k, eps)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each sample over groups of channels, then apply a per-channel affine."""
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)           # each group a row of layer norm
    y = _named(LayerNorm.apply(grouped, None, None, 1, eps), "NativeGroupNormBackward0")
    y = y.reshape(input.shape)
    shape = _channel_shape(input)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y
