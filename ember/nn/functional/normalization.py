"""Normalisation: batch_norm, instance_norm, layer_norm, group_norm.

Two fused primitives on the `normalization` kernel family (ember/_cpu/normalization.py,
or its numba twin) subtract a mean, divide by a standard deviation and apply an
optional affine: `BatchNorm` per channel, `LayerNorm` per row of the trailing
dimensions. Instance norm is batch norm of one sample whose channels are the (sample,
channel) pairs; group norm is layer norm over the rows of each group, then the
per-channel affine. Each primitive's backward is a FusedBackward: the kernel computes
the gradients, and their own derivatives (create_graph=True) come from the same formula
in ember ops, the statistics rebuilt from x so that they flow through the mean and
variance too.
"""
from __future__ import annotations

import math

import numpy as np

from ... import _dtype
from ..._cpu import kernels
from ..._memory_format import as_format, format_of
from ..._recorded_call import recorded_call, replayed_call
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from ...autograd.grad_mode import no_grad
from ...ops.pointwise import scalar_type_name
from ...ops.shape import _named

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY


class BatchNorm(Function):
    """y = (x - mean) * rstd * weight + bias for each channel (dim 1) of x, the statistics
    over every other dimension; weight and bias are (C,) or None. Also returns the batch
    mean and biased variance (non-differentiable), for the running statistics. Forward
    and backward run the `normalization` kernels on x seen as (N, C, L)."""
    backward_name = "NativeBatchNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        compute = np.float32 if x.dtype in _LOW_PRECISION else x.dtype
        y, mean, var, ctx.rstd = kernels.family("normalization").batch_norm(
            _channels(x, compute), _flat(weight, compute), _flat(bias, compute), eps)
        ctx.mean, ctx.eps = mean, eps
        ctx.parameter_dtypes = _dtypes(weight, bias)
        ctx.save_for_backward(x, weight)
        ctx.mark_non_differentiable(mean, var)
        y = as_format(y.reshape(x.shape).astype(x.dtype, copy=False), format_of(x))
        return y, mean, var

    @staticmethod
    def backward(ctx, grad, _grad_mean, _grad_var):
        x, weight = ctx._unpacked_saved
        return _BatchNormGrads.apply(grad, x, weight, ctx.mean, ctx.rstd, ctx.eps,
                                     ctx.parameter_dtypes, ctx.needs_input_grad[:3]) + (None,)


class _BatchNormGrads(FusedBackward):
    """BatchNorm's (grad_x, grad_weight, grad_bias), each None unless `needs` asks for it:
    the `normalization` kernel from the forward's statistics, and `_recorded_backward`
    (statistics rebuilt in ember ops) when they are differentiated again."""
    backward_name = "NativeBatchNormBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, weight, mean, rstd, eps, parameter_dtypes, needs):
        ctx.save_for_backward(grad, x, weight)
        ctx.eps, ctx.needs = eps, needs
        compute = mean.dtype
        grads = kernels.family("normalization").batch_norm_backward(
            _channels(grad, compute), _channels(x, compute), mean, rstd,
            _flat(weight, compute), needs)
        return _shaped_grads(grads, x, (x.shape[1],), parameter_dtypes)

    @staticmethod
    def derivative(ctx, grad, x, weight):
        axes = (0,) + tuple(range(2, x.ndim))
        return _recorded_backward(grad, x, weight, axes, (1,), ctx.eps, ctx.needs)


class LayerNorm(Function):
    """y = (x - mean) * rstd * weight + bias, with mean and rstd = 1 / sqrt(var + eps)
    over the last `ndim` dimensions; weight and bias (or None) have those dimensions'
    shape. Forward and backward run the `normalization` kernels on x seen as rows of
    the normalised values."""
    backward_name = "NativeLayerNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, ndim, eps):
        compute = np.float32 if x.dtype in _LOW_PRECISION else x.dtype
        y, ctx.mean, ctx.rstd = kernels.family("normalization").layer_norm(
            _rows(x, ndim, compute), _flat(weight, compute), _flat(bias, compute), eps)
        ctx.ndim, ctx.eps = ndim, eps
        ctx.parameter_dtypes = _dtypes(weight, bias)
        ctx.save_for_backward(x, weight)
        return y.reshape(x.shape).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx._unpacked_saved
        return _LayerNormGrads.apply(grad, x, weight, ctx.mean, ctx.rstd, ctx.ndim, ctx.eps,
                                     ctx.parameter_dtypes, ctx.needs_input_grad[:3]) + (None, None)


class _LayerNormGrads(FusedBackward):
    """LayerNorm's (grad_x, grad_weight, grad_bias), each None unless `needs` asks for it:
    the `normalization` kernel from the forward's statistics, and `_recorded_backward`
    (statistics rebuilt in ember ops) when they are differentiated again."""
    backward_name = "NativeLayerNormBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, weight, mean, rstd, ndim, eps, parameter_dtypes, needs):
        ctx.save_for_backward(grad, x, weight)
        ctx.ndim, ctx.eps, ctx.needs = ndim, eps, needs
        compute = mean.dtype
        grads = kernels.family("normalization").layer_norm_backward(
            _rows(grad, ndim, compute), _rows(x, ndim, compute), mean, rstd,
            _flat(weight, compute), needs)
        return _shaped_grads(grads, x, x.shape[x.ndim - ndim:], parameter_dtypes)

    @staticmethod
    def derivative(ctx, grad, x, weight):
        axes = tuple(range(x.ndim - ctx.ndim, x.ndim))
        return _recorded_backward(grad, x, weight, axes, axes, ctx.eps, ctx.needs)


def _rows(data: np.ndarray, ndim: int, dtype) -> np.ndarray:
    """data as (rows, n) in `dtype`, n the product of its last `ndim` dimensions."""
    split = data.ndim - ndim
    return data.astype(dtype, copy=False).reshape(math.prod(data.shape[:split]),
                                                  math.prod(data.shape[split:]))


def _channels(data: np.ndarray, dtype) -> np.ndarray:
    """data (N, C, *) as (N, C, L) in `dtype`."""
    return data.astype(dtype, copy=False).reshape(data.shape[0], data.shape[1],
                                                  math.prod(data.shape[2:]))


def _flat(parameter: np.ndarray | None, dtype):
    """A weight or bias as a flat array in the kernels' dtype (or None)."""
    return None if parameter is None else parameter.astype(dtype, copy=False).reshape(-1)


def _dtypes(*parameters) -> list:
    return [p.dtype if p is not None else None for p in parameters]


def _shaped_grads(grads: tuple, x: np.ndarray, parameter_shape: tuple,
                  parameter_dtypes) -> tuple:
    """The kernels' (dx, dweight, dbias) in x's and the parameters' shapes and dtypes
    (None stays None)."""
    dx, *parameter_grads = grads
    if dx is not None:
        dx = dx.reshape(x.shape).astype(x.dtype, copy=False)
    return (dx,) + tuple(
        None if g is None else g.reshape(parameter_shape).astype(dtype, copy=False)
        for g, dtype in zip(parameter_grads, parameter_dtypes))


def _recorded_backward(grad: Tensor, x: Tensor, weight, axes: tuple, parameter_axes: tuple,
                       eps: float, needs: tuple) -> tuple:
    """(grad_x, grad_weight, grad_bias) in ember ops for statistics over `axes` and
    parameters spanning `parameter_axes`, the statistics rebuilt from x so that a
    recorded backward (create_graph) differentiates through them too."""
    mean = x.mean(axes, keepdim=True)
    centered = x - mean
    invstd = ((centered * centered).mean(axes, keepdim=True) + eps).rsqrt()
    xhat = centered * invstd
    need_x, need_w, need_b = needs
    broadcast = tuple(x.shape[d] if d in parameter_axes else 1 for d in range(x.ndim))
    summed = tuple(d for d in range(x.ndim) if d not in parameter_axes)
    g_xhat = grad * weight.reshape(broadcast) if weight is not None else grad
    grad_x = None
    if need_x:
        grad_x = invstd * (g_xhat - g_xhat.mean(axes, keepdim=True)
                           - xhat * (g_xhat * xhat).mean(axes, keepdim=True))

    def reduced(full: Tensor) -> Tensor:
        return (full.sum(summed) if summed else full).reshape(
            tuple(x.shape[d] for d in parameter_axes))
    return (grad_x, reduced(grad * xhat) if need_w else None,
            reduced(grad) if need_b else None)


def _channel_shape(x: Tensor) -> tuple:
    """(1, C, 1, ...) to broadcast per-channel parameters over an (N, C, *) input."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


@recorded_call
def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel over the batch (training) or with the running stats (eval)."""
    if input.numel() == 0:
        # an empty batch: torch returns it empty and leaves the running stats alone
        return input.clone()
    if input.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[-{max(input.ndim, 1)}, {max(input.ndim, 1) - 1}], but got 1)")
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
        y, mean, var = BatchNorm.apply(input, weight, bias, eps)
        if running_mean is not None:
            _update_running(running_mean, mean, momentum)
        if running_var is not None:
            _update_running(running_var, var, momentum, count)
        return y
    if running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    shape = _channel_shape(input)
    scale = (running_var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        scale = scale * weight.reshape(shape)
    y = (input - running_mean.reshape(shape)) * scale
    return y + bias.reshape(shape) if bias is not None else y


@replayed_call
def _update_running(stat: Tensor, batch_value: Tensor, momentum: float,
                    count: int | None = None) -> None:
    """Move a running statistic towards the batch's value; with `count` (the values per
    channel), the value is a variance, made unbiased first. The count is an argument, not
    folded into the value by the caller, so that a compiled call replays it as an integer
    of the batch's size (see _dynamo/_dynamic.py)."""
    value = batch_value.numpy(force=True)
    if count is not None:
        value = value * (count / (count - 1))
    with no_grad():
        data = stat._data_to_write()
        data *= 1 - momentum
        data += momentum * value.astype(data.dtype, copy=False)


class _AllReduceSum(Function):
    """The sum of a tensor over the processes of a group (every process gets it). Its
    adjoint is the same sum: each process's input reaches every process's output."""
    backward_name = "AllReduceSumBackward0"

    @staticmethod
    def forward(ctx, x, group):
        from ... import distributed
        ctx.group = group
        total = x.copy()
        distributed.all_reduce(Tensor._wrap(total), group=group)    # sums into total
        return total

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
        _update_running(running_var, var, momentum, count)
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
    if input.numel() // (n * c) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    # Batch norm of one sample whose channels are all (sample, channel) pairs, as in torch.
    y, mean, var = BatchNorm.apply(input.reshape((1, n * c) + tuple(input.shape[2:])),
                                   None if weight is None else weight.repeat(n),
                                   None if bias is None else bias.repeat(n), eps)
    y = y.reshape(input.shape)
    if running_mean is not None:
        _update_running(running_mean, mean.reshape(n, c).mean(0), momentum)
    if running_var is not None:
        _update_running(running_var, var.reshape(n, c).mean(0), momentum,
                        input.numel() // (n * c))
    return y


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
    if not input.dtype.is_low_precision and any(p.dtype != input.dtype for _, p in parameters):
        raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                           f"{scalar_type_name(input.dtype)}")
    return LayerNorm.apply(input, weight, bias, k, eps)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each sample over groups of channels, then apply a per-channel affine."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    group_size = c // num_groups * math.prod(input.shape[2:])
    grouped = input.reshape(n, num_groups, group_size)   # each group a row of layer norm
    y = _named(LayerNorm.apply(grouped, None, None, 1, eps), "NativeGroupNormBackward0")
    # The groups are rows of the row-major input; the result keeps the input's layout.
    y = y.reshape(input.shape).contiguous(memory_format=format_of(input.numpy(force=True)))
    shape = _channel_shape(input)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y
