"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016): Fire modules, no fully connected layer."""
from __future__ import annotations

from functools import partial

from ... import cat, flatten, nn
from ..._tensor import Tensor
from ._api import WeightsEnum, register_model
from ._utils import build, handle_legacy_interface, imagenet_weights

__all__ = ["SqueezeNet", "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights", "squeezenet1_0",
           "squeezenet1_1"]


class Fire(nn.Module):
    """Squeeze with 1x1 convolutions, then expand with 1x1 and 3x3 ones side by side."""

    def __init__(self, inplanes: int, squeeze_planes: int, expand1x1_planes: int,
                 expand3x3_planes: int) -> None:
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        x = self.squeeze_activation(self.squeeze(x))
        return cat([self.expand1x1_activation(self.expand1x1(x)),
                    self.expand3x3_activation(self.expand3x3(x))], 1)


def _pool() -> nn.MaxPool2d:
    return nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)


class SqueezeNet(nn.Module):
    def __init__(self, version: str = "1_0", num_classes: int = 1000,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.num_classes = num_classes
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True), _pool(),
                Fire(96, 16, 64, 64), Fire(128, 16, 64, 64), Fire(128, 32, 128, 128), _pool(),
                Fire(256, 32, 128, 128), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256), _pool(), Fire(512, 64, 256, 256))
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True), _pool(),
                Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), _pool(),
                Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), _pool(),
                Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256),
                Fire(512, 64, 256, 256))
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        return flatten(self.classifier(self.features(x)), 1)


class SqueezeNet1_0_Weights(WeightsEnum):
    """Pretrained weights for squeezenet1_0."""

    IMAGENET1K_V1 = imagenet_weights(
        "squeezenet1_0-b66bff10.pth", num_params=1_248_424, acc=(58.092, 80.42), ops=0.819,
        file_size=4.778, recipe="https://github.com/pytorch/vision/pull/49#issuecomment-277560717",
        min_size=(21, 21))
    DEFAULT = IMAGENET1K_V1


class SqueezeNet1_1_Weights(WeightsEnum):
    """Pretrained weights for squeezenet1_1."""

    IMAGENET1K_V1 = imagenet_weights(
        "squeezenet1_1-b8a52dc0.pth", num_params=1_235_496, acc=(58.178, 80.624), ops=0.349,
        file_size=4.729, recipe="https://github.com/pytorch/vision/pull/49#issuecomment-277560717",
        min_size=(17, 17))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", SqueezeNet1_0_Weights.IMAGENET1K_V1))
def squeezenet1_0(*, weights: SqueezeNet1_0_Weights | None = None, progress: bool = True,
                  **kwargs) -> SqueezeNet:
    """SqueezeNet 1.0; weights: SqueezeNet1_0_Weights."""
    weights = SqueezeNet1_0_Weights.verify(weights)
    return build(partial(SqueezeNet, "1_0"), weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", SqueezeNet1_1_Weights.IMAGENET1K_V1))
def squeezenet1_1(*, weights: SqueezeNet1_1_Weights | None = None, progress: bool = True,
                  **kwargs) -> SqueezeNet:
    """SqueezeNet 1.1: 2.4x less computation than 1.0 at the same accuracy;
    weights: SqueezeNet1_1_Weights."""
    weights = SqueezeNet1_1_Weights.verify(weights)
    return build(partial(SqueezeNet, "1_1"), weights, progress, kwargs)
