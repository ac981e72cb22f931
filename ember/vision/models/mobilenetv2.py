"""MobileNetV2 (Sandler et al., 2018): inverted residual blocks with linear bottlenecks,
with torchvision's Conv2dNormActivation naming (features.0.0.weight, ...)."""
from __future__ import annotations

from typing import Callable

from ... import flatten, nn
from ..._tensor import Tensor
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation
from ._api import WeightsEnum, register_model
from ._utils import (MODIFIED_NEW_RECIPE, REFERENCES, build, handle_legacy_interface,
                     imagenet_weights, init_mobilenet_, make_divisible)

__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "mobilenet_v2"]


class InvertedResidual(nn.Module):
    """Expand with a 1x1 convolution, filter depthwise (3x3), project back linearly; add
    the input when the shapes allow."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = norm_layer or nn.BatchNorm2d
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1,
                                               norm_layer=norm_layer,
                                               activation_layer=nn.ReLU6))
        layers += [Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride,
                                        groups=hidden_dim, norm_layer=norm_layer,
                                        activation_layer=nn.ReLU6),
                   nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x: Tensor) -> Tensor:
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


# expansion t, output channels c, repeats n, first stride s
_DEFAULT_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2],
                    [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1]]


class MobileNetV2(nn.Module):
    def __init__(self, num_classes: int = 1000, width_mult: float = 1.0,
                 inverted_residual_setting: list | None = None, round_nearest: int = 8,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 dropout: float = 0.2) -> None:
        super().__init__()
        block = block or InvertedResidual
        norm_layer = norm_layer or nn.BatchNorm2d
        setting = inverted_residual_setting or _DEFAULT_SETTING
        if len(setting) == 0 or len(setting[0]) != 4:
            raise ValueError("inverted_residual_setting should be non-empty or a 4-element "
                             f"list, got {inverted_residual_setting}")
        input_channel = make_divisible(32 * width_mult, round_nearest)
        self.last_channel = make_divisible(1280 * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                         activation_layer=nn.ReLU6)]
        for t, c, n, s in setting:
            output_channel = make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(block(input_channel, output_channel, s if i == 0 else 1,
                                      expand_ratio=t, norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1,
                                             norm_layer=norm_layer, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout),
                                        nn.Linear(self.last_channel, num_classes))
        for m in self.modules():
            init_mobilenet_(m)

    def forward(self, x: Tensor) -> Tensor:
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(flatten(x, 1))


class MobileNet_V2_Weights(WeightsEnum):
    """Pretrained weights for mobilenet_v2."""

    IMAGENET1K_V1 = imagenet_weights(
        "mobilenet_v2-b0353104.pth", num_params=3_504_872, acc=(71.878, 90.286), ops=0.301,
        file_size=13.555, recipe=f"{REFERENCES}#mobilenetv2")
    IMAGENET1K_V2 = imagenet_weights(
        "mobilenet_v2-7ebf99e0.pth", num_params=3_504_872, acc=(72.154, 90.822), ops=0.301,
        file_size=13.598,
        recipe="https://github.com/pytorch/vision/issues/3995#new-recipe-with-reg-tuning",
        docs=MODIFIED_NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


@register_model()
@handle_legacy_interface(weights=("pretrained", MobileNet_V2_Weights.IMAGENET1K_V1))
def mobilenet_v2(*, weights: MobileNet_V2_Weights | None = None, progress: bool = True,
                 **kwargs) -> MobileNetV2:
    """MobileNetV2; weights: MobileNet_V2_Weights."""
    weights = MobileNet_V2_Weights.verify(weights)
    return build(MobileNetV2, weights, progress, kwargs)
