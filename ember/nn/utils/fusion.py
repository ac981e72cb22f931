"""Folding an eval-mode BatchNorm into the layer before it.

In eval mode BatchNorm is an affine map per channel, y = (x - mean) / sqrt(var + eps) * w + b,
so it can be absorbed into the weight and bias of the convolution or linear layer that feeds
it: scale each output channel's weights by w / sqrt(var + eps) and shift the bias. The fused
layer computes the same outputs with one op less (a common step before deployment).
"""
from __future__ import annotations

import copy

from ..._tensor import Tensor
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def _fused_bias(bias, bn_rm, bn_scale, bn_b, dtype) -> Tensor:
    """(b - running_mean) * scale + bn_bias, in the layer's bias dtype."""
    return ((bias - bn_rm) * bn_scale + bn_b).to(dtype=dtype)


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A new convolution (a deep copy of `conv`) computing bn(conv(x)) for eval-mode modules.
    transpose: `conv` is a ConvTranspose, whose output channels are the weight's dim 1."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The (weight, bias) Parameters of the fused convolution; a missing conv bias or BatchNorm
    affine parameter counts as zero (bias) or one (weight)."""
    bias_dtype = conv_w.dtype if conv_b is None else conv_b.dtype
    bias = bn_rm.new_zeros(bn_rm.shape) if conv_b is None else conv_b
    bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
    bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
    inv_std = (bn_rv + bn_eps).rsqrt()
    channel_axis = 1 if transpose else 0
    shape = [1] * conv_w.dim()
    shape[channel_axis] = -1
    weight = (conv_w * (bn_w * inv_std).reshape(shape)).to(dtype=conv_w.dtype)
    return (Parameter(weight, conv_w.requires_grad),
            Parameter(_fused_bias(bias, bn_rm, inv_std * bn_w, bn_b, bias_dtype),
                      bias.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A new Linear (a deep copy of `linear`) computing bn(linear(x)) for eval-mode modules;
    the BatchNorm has one feature per output feature, or a single one."""
    _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor,
                           bn_b: Tensor) -> tuple[Parameter, Parameter]:
    """The (weight, bias) Parameters of the fused Linear (a missing bias counts as zero)."""
    bias_dtype = linear_w.dtype if linear_b is None else linear_b.dtype
    bias = bn_rm.new_zeros(bn_rm.shape) if linear_b is None else linear_b
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_w.dtype)
    return (Parameter(weight, linear_w.requires_grad),
            Parameter(_fused_bias(bias, bn_rm, bn_scale, bn_b, bias_dtype), bias.requires_grad))
