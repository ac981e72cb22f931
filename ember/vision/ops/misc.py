"""The layers torchvision's models are assembled from (torchvision.ops.misc):
convolution-norm-activation stacks, squeeze-and-excitation, an MLP, a frozen batch norm
and Permute, with torchvision's submodule names so state_dict keys match."""
from __future__ import annotations

import warnings
from typing import Callable

from ... import nn, ones, permute, zeros
from ..._tensor import Tensor

__all__ = ["FrozenBatchNorm2d", "ConvNormActivation", "Conv2dNormActivation",
           "Conv3dNormActivation", "SqueezeExcitation", "MLP", "Permute"]


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm2d with fixed statistics and affine parameters, all held as buffers (used
    by detection backbones fine-tuned with small batches)."""

    def __init__(self, num_features: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", ones(num_features))
        self.register_buffer("bias", zeros(num_features))
        self.register_buffer("running_mean", zeros(num_features))
        self.register_buffer("running_var", ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # a BatchNorm2d checkpoint loads too: its step counter has no place here
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def forward(self, x: Tensor) -> Tensor:
        scale = self.weight.reshape(1, -1, 1, 1) * \
            (self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
        shift = self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale
        return x * scale + shift

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


def _same_padding(kernel_size, dilation):
    """The padding keeping an odd kernel's output the size of its input."""
    if isinstance(kernel_size, int) and isinstance(dilation, int):
        return (kernel_size - 1) // 2 * dilation
    dims = len(kernel_size) if isinstance(kernel_size, (list, tuple)) else len(dilation)
    kernel_size = kernel_size if isinstance(kernel_size, (list, tuple)) else [kernel_size] * dims
    dilation = dilation if isinstance(dilation, (list, tuple)) else [dilation] * dims
    return tuple((k - 1) // 2 * d for k, d in zip(kernel_size, dilation))


class ConvNormActivation(nn.Sequential):
    """A convolution (`conv_layer`), then a norm layer, then an activation, as one
    Sequential (keys 0, 1, 2). padding defaults to "same" for odd kernels; the convolution
    has a bias only when there is no norm layer (unless `bias` says otherwise). Use
    Conv2dNormActivation or Conv3dNormActivation."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1,
                 padding=None, groups: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU, dilation=1,
                 inplace: bool | None = True, bias: bool | None = None,
                 conv_layer: Callable[..., nn.Module] = nn.Conv2d) -> None:
        if padding is None:
            padding = _same_padding(kernel_size, dilation)
        if bias is None:
            bias = norm_layer is None
        layers = [conv_layer(in_channels, out_channels, kernel_size, stride, padding,
                             dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels
        if self.__class__ == ConvNormActivation:
            warnings.warn("Don't use ConvNormActivation directly, please use "
                          "Conv2dNormActivation and Conv3dNormActivation instead.")


class Conv2dNormActivation(ConvNormActivation):
    """Conv2d, norm (default BatchNorm2d), activation (default ReLU)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1,
                 padding=None, groups: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU, dilation=1,
                 inplace: bool | None = True, bias: bool | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups,
                         norm_layer, activation_layer, dilation, inplace, bias, nn.Conv2d)


class Conv3dNormActivation(ConvNormActivation):
    """Conv3d, norm (default BatchNorm3d), activation (default ReLU)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1,
                 padding=None, groups: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm3d,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU, dilation=1,
                 inplace: bool | None = True, bias: bool | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups,
                         norm_layer, activation_layer, dilation, inplace, bias, nn.Conv3d)


class SqueezeExcitation(nn.Module):
    """Channel attention (Hu et al.): scale each channel by a gate computed from the
    globally pooled features through two 1x1 convolutions (fc1, fc2)."""

    def __init__(self, input_channels: int, squeeze_channels: int,
                 activation: Callable[..., nn.Module] = nn.ReLU,
                 scale_activation: Callable[..., nn.Module] = nn.Sigmoid) -> None:
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input: Tensor) -> Tensor:
        scale = self.fc2(self.activation(self.fc1(self.avgpool(input))))
        return self.scale_activation(scale) * input


class MLP(nn.Sequential):
    """Linear layers of widths `hidden_channels`; between them (not after the last) an
    optional norm layer, the activation and dropout; dropout after the last too. `inplace`
    None keeps the activation's and Dropout's own defaults."""

    def __init__(self, in_channels: int, hidden_channels: list,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
                 inplace: bool | None = None, bias: bool = True, dropout: float = 0.0) -> None:
        params = {} if inplace is None else {"inplace": inplace}
        layers = []
        in_dim = in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            in_dim = hidden_dim
        layers.append(nn.Linear(in_dim, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **params))
        super().__init__(*layers)


class Permute(nn.Module):
    """Reorder the input's dimensions to `dims` (a view, as Tensor.permute)."""

    def __init__(self, dims: list) -> None:
        super().__init__()
        self.dims = dims

    def forward(self, x: Tensor) -> Tensor:
        return permute(x, self.dims)
