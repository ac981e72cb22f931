"""Conv2dNormActivation, SqueezeExcitation and StochasticDepth (torchvision.ops), with the
same submodule names so state_dict keys match torchvision's."""
from __future__ import annotations

from typing import Callable

from ... import empty, nn
from ..._tensor import Tensor

__all__ = ["Conv2dNormActivation", "SqueezeExcitation", "StochasticDepth", "stochastic_depth"]


class Conv2dNormActivation(nn.Sequential):
    """Conv2d, then a norm layer, then an activation, as one Sequential (keys 0, 1, 2).

    padding defaults to "same" for odd kernels; the convolution has a bias only when
    there is no norm layer (unless `bias` says otherwise).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3,
                 stride: int = 1, padding: int | None = None, groups: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
                 dilation: int = 1, inplace: bool | None = True, bias: bool | None = None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(**({} if inplace is None else {"inplace": inplace})))
        super().__init__(*layers)
        self.out_channels = out_channels


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


def stochastic_depth(input: Tensor, p: float, mode: str, training: bool = True) -> Tensor:
    """Randomly zero whole residual branches ("row": per sample, "batch": all at once),
    scaling the survivors by 1 / (1 - p) (Huang et al., 2016)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ("batch", "row"):
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = empty(size, dtype=input.dtype).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise = noise / survival_rate
    return input * noise


class StochasticDepth(nn.Module):
    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input: Tensor) -> Tensor:
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
