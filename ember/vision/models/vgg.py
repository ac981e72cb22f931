"""VGG (Simonyan & Zisserman, 2014), configurations A, B, D, E with and without
batch norm, as torchvision builds them."""
from __future__ import annotations

from functools import partial

from ... import flatten, nn
from ..._tensor import Tensor
from ._api import WeightsEnum, register_model
from ._utils import (REFERENCES, SIMPLIFIED_RECIPE, build, handle_legacy_interface,
                     imagenet_weights)

__all__ = ["VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights",
           "VGG16_Weights", "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "vgg11",
           "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]

# output channels of each 3x3 convolution; "M" is a 2x2 max pool
cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
          "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
          512, 512, 512, "M"],
}


class VGG(nn.Module):
    def __init__(self, features: nn.Module, num_classes: int = 1000, init_weights: bool = True,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(flatten(x, 1))


def make_layers(cfg: list, batch_norm: bool = False) -> nn.Sequential:
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(v))
        layers.append(nn.ReLU(inplace=True))
        in_channels = v
    return nn.Sequential(*layers)


class VGG11_Weights(WeightsEnum):
    """Pretrained weights for vgg11."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg11-8a719046.pth", num_params=132_863_336, acc=(69.02, 88.628), ops=7.609,
        file_size=506.84, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    """Pretrained weights for vgg11_bn."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg11_bn-6002323d.pth", num_params=132_868_840, acc=(70.37, 89.81), ops=7.609,
        file_size=506.881, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    """Pretrained weights for vgg13."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg13-19584684.pth", num_params=133_047_848, acc=(69.928, 89.246), ops=11.308,
        file_size=507.545, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    """Pretrained weights for vgg13_bn."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg13_bn-abd245e5.pth", num_params=133_053_736, acc=(71.586, 90.374), ops=11.308,
        file_size=507.59, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    """Pretrained weights for vgg16."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg16-397923af.pth", num_params=138_357_544, acc=(71.592, 90.382), ops=15.47,
        file_size=527.796, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    IMAGENET1K_FEATURES = imagenet_weights(
        "vgg16_features-amdegroot-88682ab5.pth", num_params=138_357_544,
        acc=(float("nan"), float("nan")), ops=15.47, file_size=527.802,
        recipe="https://github.com/amdegroot/ssd.pytorch#training-ssd",
        docs=("These weights can't be used for classification because they are missing values "
              "in the `classifier` module. Only the `features` module has valid values and can "
              "be used for feature extraction. The weights were trained using the original "
              "input standardization method as described in the paper."),
        min_size=(32, 32), categories=None, mean=(0.48235, 0.45882, 0.40784),
        std=(0.00392156862745098, 0.00392156862745098, 0.00392156862745098))
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    """Pretrained weights for vgg16_bn."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg16_bn-6c64b313.pth", num_params=138_365_992, acc=(73.36, 91.516), ops=15.47,
        file_size=527.866, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    """Pretrained weights for vgg19."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg19-dcbb9e9d.pth", num_params=143_667_240, acc=(72.376, 90.876), ops=19.632,
        file_size=548.051, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    """Pretrained weights for vgg19_bn."""

    IMAGENET1K_V1 = imagenet_weights(
        "vgg19_bn-c79401a0.pth", num_params=143_678_248, acc=(74.218, 91.842), ops=19.632,
        file_size=548.143, recipe=f"{REFERENCES}#alexnet-and-vgg", docs=SIMPLIFIED_RECIPE,
        min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


def _vgg(cfg: str, batch_norm: bool, weights: WeightsEnum | None, progress: bool,
         kwargs: dict) -> VGG:
    if weights is not None:
        kwargs["init_weights"] = False  # the checkpoint overwrites every parameter
    features = make_layers(cfgs[cfg], batch_norm=batch_norm)
    return build(partial(VGG, features), weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_Weights.IMAGENET1K_V1))
def vgg11(*, weights: VGG11_Weights | None = None, progress: bool = True,
          **kwargs) -> VGG:
    """VGG-11 (configuration A); weights: VGG11_Weights."""
    weights = VGG11_Weights.verify(weights)
    return _vgg("A", False, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_BN_Weights.IMAGENET1K_V1))
def vgg11_bn(*, weights: VGG11_BN_Weights | None = None, progress: bool = True,
             **kwargs) -> VGG:
    """VGG-11 with batch norm; weights: VGG11_BN_Weights."""
    weights = VGG11_BN_Weights.verify(weights)
    return _vgg("A", True, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG13_Weights.IMAGENET1K_V1))
def vgg13(*, weights: VGG13_Weights | None = None, progress: bool = True,
          **kwargs) -> VGG:
    """VGG-13 (configuration B); weights: VGG13_Weights."""
    weights = VGG13_Weights.verify(weights)
    return _vgg("B", False, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG13_BN_Weights.IMAGENET1K_V1))
def vgg13_bn(*, weights: VGG13_BN_Weights | None = None, progress: bool = True,
             **kwargs) -> VGG:
    """VGG-13 with batch norm; weights: VGG13_BN_Weights."""
    weights = VGG13_BN_Weights.verify(weights)
    return _vgg("B", True, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_Weights.IMAGENET1K_V1))
def vgg16(*, weights: VGG16_Weights | None = None, progress: bool = True,
          **kwargs) -> VGG:
    """VGG-16 (configuration D); weights: VGG16_Weights."""
    weights = VGG16_Weights.verify(weights)
    return _vgg("D", False, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_BN_Weights.IMAGENET1K_V1))
def vgg16_bn(*, weights: VGG16_BN_Weights | None = None, progress: bool = True,
             **kwargs) -> VGG:
    """VGG-16 with batch norm; weights: VGG16_BN_Weights."""
    weights = VGG16_BN_Weights.verify(weights)
    return _vgg("D", True, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG19_Weights.IMAGENET1K_V1))
def vgg19(*, weights: VGG19_Weights | None = None, progress: bool = True,
          **kwargs) -> VGG:
    """VGG-19 (configuration E); weights: VGG19_Weights."""
    weights = VGG19_Weights.verify(weights)
    return _vgg("E", False, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG19_BN_Weights.IMAGENET1K_V1))
def vgg19_bn(*, weights: VGG19_BN_Weights | None = None, progress: bool = True,
             **kwargs) -> VGG:
    """VGG-19 with batch norm; weights: VGG19_BN_Weights."""
    weights = VGG19_BN_Weights.verify(weights)
    return _vgg("E", True, weights, progress, kwargs)
