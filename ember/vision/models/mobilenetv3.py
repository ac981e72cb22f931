"""MobileNetV3 Large and Small (Howard et al., 2019) in torchvision's layout: inverted
residual blocks with optional squeeze-and-excitation (hard-sigmoid gate) and ReLU or
hard-swish activations, found by architecture search."""
from __future__ import annotations

from functools import partial
from typing import Callable

from ... import flatten, nn
from ..._tensor import Tensor
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._api import WeightsEnum, register_model
from ._utils import (BLOG, REFERENCES, build, handle_legacy_interface, imagenet_weights,
                     init_mobilenet_, make_divisible)

__all__ = ["MobileNetV3", "MobileNet_V3_Large_Weights", "MobileNet_V3_Small_Weights",
           "mobilenet_v3_large", "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One block of the paper's tables 1 and 2: channels (scaled by width_mult), kernel,
    whether it has squeeze-excitation, its activation ("RE" ReLU or "HS" hard-swish),
    stride and dilation."""

    def __init__(self, input_channels: int, kernel: int, expanded_channels: int,
                 out_channels: int, use_se: bool, activation: str, stride: int, dilation: int,
                 width_mult: float) -> None:
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels: int, width_mult: float) -> int:
        return make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    """1x1 expand (when the width changes), kxk depthwise conv, optional
    squeeze-excitation, 1x1 linear projection; the input is added back when shapes
    allow."""

    def __init__(self, cnf: InvertedResidualConfig, norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = partial(
                     SqueezeExcitation, scale_activation=nn.Hardsigmoid)) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels,
                                               kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=activation))
        layers.append(Conv2dNormActivation(
            cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel,
            stride=1 if cnf.dilation > 1 else cnf.stride, dilation=cnf.dilation,
            groups=cnf.expanded_channels, norm_layer=norm_layer, activation_layer=activation))
        if cnf.use_se:
            squeeze_channels = make_divisible(cnf.expanded_channels // 4, 8)
            layers.append(se_layer(cnf.expanded_channels, squeeze_channels))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels,
                                           kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input: Tensor) -> Tensor:
        result = self.block(input)
        return result + input if self.use_res_connect else result


class MobileNetV3(nn.Module):
    """A hard-swish stem, the blocks of `inverted_residual_setting`, a 1x1 convolution to
    6x the last block's channels, pooling, and a classifier through `last_channel`.
    Extra keyword arguments (the builders' width_mult, reduced_tail, dilated) are
    ignored, as in torchvision."""

    def __init__(self, inverted_residual_setting: list, last_channel: int,
                 num_classes: int = 1000, block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None, dropout: float = 0.2,
                 **kwargs) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(cnf, InvertedResidualConfig) for cnf in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be "
                            "List[InvertedResidualConfig]")
        block = block or InvertedResidual
        norm_layer = norm_layer or partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels,
                                       kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        last_out = 6 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(last_out, last_channel), nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        for m in self.modules():
            init_mobilenet_(m)

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(flatten(x, 1))


def _mobilenet_v3_conf(arch: str, width_mult: float = 1.0, reduced_tail: bool = False,
                       dilated: bool = False, **kwargs) -> tuple[list, int]:
    """The block settings and last_channel of mobilenet_v3_large/small. reduced_tail
    halves the last blocks' channels and dilated dilates them (for detection and
    segmentation backbones)."""
    divider = 2 if reduced_tail else 1
    dilation = 2 if dilated else 1
    conf = partial(InvertedResidualConfig, width_mult=width_mult)
    # input, kernel, expanded, out, squeeze-excitation, activation, stride, dilation
    if arch == "mobilenet_v3_large":
        setting = [
            conf(16, 3, 16, 16, False, "RE", 1, 1),
            conf(16, 3, 64, 24, False, "RE", 2, 1),
            conf(24, 3, 72, 24, False, "RE", 1, 1),
            conf(24, 5, 72, 40, True, "RE", 2, 1),
            conf(40, 5, 120, 40, True, "RE", 1, 1),
            conf(40, 5, 120, 40, True, "RE", 1, 1),
            conf(40, 3, 240, 80, False, "HS", 2, 1),
            conf(80, 3, 200, 80, False, "HS", 1, 1),
            conf(80, 3, 184, 80, False, "HS", 1, 1),
            conf(80, 3, 184, 80, False, "HS", 1, 1),
            conf(80, 3, 480, 112, True, "HS", 1, 1),
            conf(112, 3, 672, 112, True, "HS", 1, 1),
            conf(112, 5, 672, 160 // divider, True, "HS", 2, dilation),
            conf(160 // divider, 5, 960 // divider, 160 // divider, True, "HS", 1, dilation),
            conf(160 // divider, 5, 960 // divider, 160 // divider, True, "HS", 1, dilation)]
        last_channel = 1280 // divider
    elif arch == "mobilenet_v3_small":
        setting = [
            conf(16, 3, 16, 16, True, "RE", 2, 1),
            conf(16, 3, 72, 24, False, "RE", 2, 1),
            conf(24, 3, 88, 24, False, "RE", 1, 1),
            conf(24, 5, 96, 40, True, "HS", 2, 1),
            conf(40, 5, 240, 40, True, "HS", 1, 1),
            conf(40, 5, 240, 40, True, "HS", 1, 1),
            conf(40, 5, 120, 48, True, "HS", 1, 1),
            conf(48, 5, 144, 48, True, "HS", 1, 1),
            conf(48, 5, 288, 96 // divider, True, "HS", 2, dilation),
            conf(96 // divider, 5, 576 // divider, 96 // divider, True, "HS", 1, dilation),
            conf(96 // divider, 5, 576 // divider, 96 // divider, True, "HS", 1, dilation)]
        last_channel = 1024 // divider
    else:
        raise ValueError(f"Unsupported model type {arch}")
    return setting, InvertedResidualConfig.adjust_channels(last_channel, width_mult)


class MobileNet_V3_Large_Weights(WeightsEnum):
    """Pretrained weights for mobilenet_v3_large."""

    IMAGENET1K_V1 = imagenet_weights(
        "mobilenet_v3_large-8738ca79.pth", num_params=5_483_032, acc=(74.042, 91.34), ops=0.217,
        file_size=21.114, recipe=f"{REFERENCES}#mobilenetv3-large--small",
        docs="These weights were trained from scratch by using a simple training recipe.")
    IMAGENET1K_V2 = imagenet_weights(
        "mobilenet_v3_large-5c1a4163.pth", num_params=5_483_032, acc=(75.274, 92.566), ops=0.217,
        file_size=21.107,
        recipe="https://github.com/pytorch/vision/issues/3995#new-recipe-with-reg-tuning",
        docs=("These weights improve marginally upon the results of the original paper by "
              "using a modified version of TorchVision's `new training recipe "
              f"<{BLOG}>`_."),
        resize_size=232)
    DEFAULT = IMAGENET1K_V2


class MobileNet_V3_Small_Weights(WeightsEnum):
    """Pretrained weights for mobilenet_v3_small."""

    IMAGENET1K_V1 = imagenet_weights(
        "mobilenet_v3_small-047dcff4.pth", num_params=2_542_856, acc=(67.668, 87.402), ops=0.057,
        file_size=9.829, recipe=f"{REFERENCES}#mobilenetv3-large--small",
        docs=("These weights improve upon the results of the original paper by using a simple "
              "training recipe."))

    DEFAULT = IMAGENET1K_V1


def _mobilenet_v3(arch: str, weights: WeightsEnum | None, progress: bool,
                  kwargs: dict) -> MobileNetV3:
    setting, last_channel = _mobilenet_v3_conf(arch, **kwargs)
    return build(partial(MobileNetV3, setting, last_channel), weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def mobilenet_v3_large(*, weights: MobileNet_V3_Large_Weights | None = None,
                       progress: bool = True, **kwargs) -> MobileNetV3:
    """MobileNetV3-Large; weights: MobileNet_V3_Large_Weights."""
    weights = MobileNet_V3_Large_Weights.verify(weights)
    return _mobilenet_v3("mobilenet_v3_large", weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MobileNet_V3_Small_Weights.IMAGENET1K_V1))
def mobilenet_v3_small(*, weights: MobileNet_V3_Small_Weights | None = None,
                       progress: bool = True, **kwargs) -> MobileNetV3:
    """MobileNetV3-Small; weights: MobileNet_V3_Small_Weights."""
    weights = MobileNet_V3_Small_Weights.verify(weights)
    return _mobilenet_v3("mobilenet_v3_small", weights, progress, kwargs)
