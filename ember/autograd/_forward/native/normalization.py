"""Tangent rules of layer and batch normalization: with x̂ = (x - mean) * rstd over the
normalised dims, d x̂ = rstd * (dxc - x̂ * mean(x̂ * dxc)) where dxc = dx - mean(dx), and
y = x̂ * weight + bias."""
from __future__ import annotations

from ....nn.functional.normalization import BatchNorm, LayerNorm
from ..rules import register
from ._terms import plus


def _normalized_tangent(x, tx, weight, tw, tb, dims, eps, param_shape):
    mean = x.mean(dims, keepdim=True)
    centered = x - mean
    rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
    x_hat = centered * rstd
    x_hat_t = None
    if tx is not None:
        tx_centered = tx - tx.mean(dims, keepdim=True)
        x_hat_t = rstd * (tx_centered - x_hat * (x_hat * tx_centered).mean(dims, keepdim=True))
        if weight is not None:
            x_hat_t = x_hat_t * weight.reshape(param_shape)
    return plus(x_hat_t, None if tw is None else x_hat * tw.reshape(param_shape),
                None if tb is None else tb.reshape(param_shape))


@register(LayerNorm)
def _layer_norm(args, kwargs, out, tangents):
    x, weight, _, ndim, eps = args
    tx, tw, tb = tangents[:3]
    dims = tuple(range(-ndim, 0))
    return _normalized_tangent(x, tx, weight, tw, tb, dims, eps, x.shape[x.ndim - ndim:])


@register(BatchNorm)
def _batch_norm(args, kwargs, out, tangents):
    x, weight, _, eps = args
    tx, tw, tb = tangents[:3]
    dims = (0,) + tuple(range(2, x.ndim))
    channel_shape = (-1,) + (1,) * (x.ndim - 2)
    return _normalized_tangent(x, tx, weight, tw, tb, dims, eps, channel_shape), None, None
