"""EfficientNet B0-B7 (Tan & Le, 2019) and EfficientNetV2 S/M/L (Tan & Le, 2021), in
torchvision's layout: MBConv blocks (inverted residuals with squeeze-and-excitation and
SiLU) and, in V2's early stages, FusedMBConv blocks (one full convolution in place of
expand + depthwise), with stochastic depth growing linearly along the network."""
from __future__ import annotations

import copy
import math
from functools import partial
from typing import Callable

from ... import flatten, nn
from ..._tensor import Tensor
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ..transforms.functional import InterpolationMode
from ._api import WeightsEnum, register_model
from ._utils import (MODIFIED_NEW_RECIPE, REFERENCES, build, handle_legacy_interface,
                     imagenet_weights, init_conv_and_norm_, make_divisible)

__all__ = ["EfficientNet", "EfficientNet_B0_Weights", "EfficientNet_B1_Weights",
           "EfficientNet_B2_Weights", "EfficientNet_B3_Weights", "EfficientNet_B4_Weights",
           "EfficientNet_B5_Weights", "EfficientNet_B6_Weights", "EfficientNet_B7_Weights",
           "EfficientNet_V2_S_Weights", "EfficientNet_V2_M_Weights", "EfficientNet_V2_L_Weights",
           "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
           "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
           "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]


class _MBConvConfig:
    """One stage: expand_ratio, kernel, stride, channels in/out, block count and the
    block class building it."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int,
                 out_channels: int, num_layers: int, block: Callable[..., nn.Module]) -> None:
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers
        self.block = block

    @staticmethod
    def adjust_channels(channels: int, width_mult: float, min_value: int | None = None) -> int:
        return make_divisible(channels * width_mult, 8, min_value)


class MBConvConfig(_MBConvConfig):
    """An MBConv stage, its channels scaled by width_mult and its depth by depth_mult."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int,
                 out_channels: int, num_layers: int, width_mult: float = 1.0,
                 depth_mult: float = 1.0, block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__(expand_ratio, kernel, stride,
                         self.adjust_channels(input_channels, width_mult),
                         self.adjust_channels(out_channels, width_mult),
                         int(math.ceil(num_layers * depth_mult)), block or MBConv)


class FusedMBConvConfig(_MBConvConfig):
    """A FusedMBConv stage (EfficientNetV2), unscaled."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int,
                 out_channels: int, num_layers: int,
                 block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels,
                         num_layers, block or FusedMBConv)


class MBConv(nn.Module):
    """1x1 expand (when expand_ratio > 1), depthwise conv, squeeze-excitation, 1x1
    project; the input is added back (after stochastic depth) when shapes allow."""

    def __init__(self, cnf: MBConvConfig, stochastic_depth_prob: float,
                 norm_layer=nn.BatchNorm2d, se_layer=SqueezeExcitation) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=1,
                                               norm_layer=norm_layer,
                                               activation_layer=nn.SiLU))
        layers += [
            Conv2dNormActivation(expanded, expanded, kernel_size=cnf.kernel, stride=cnf.stride,
                                 groups=expanded, norm_layer=norm_layer,
                                 activation_layer=nn.SiLU),
            se_layer(expanded, max(1, cnf.input_channels // 4),
                     activation=partial(nn.SiLU, inplace=True)),
            Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1,
                                 norm_layer=norm_layer, activation_layer=None)]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input: Tensor) -> Tensor:
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class FusedMBConv(nn.Module):
    """A full kxk convolution expanding the channels (replacing MBConv's 1x1 expand and
    depthwise pair), then a 1x1 projection; one kxk convolution when expand_ratio is 1.
    The input is added back (after stochastic depth) when shapes allow."""

    def __init__(self, cnf: FusedMBConvConfig, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module]) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded != cnf.input_channels:
            layers = [Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=cnf.kernel,
                                           stride=cnf.stride, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU),
                      Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None)]
        else:
            layers = [Conv2dNormActivation(cnf.input_channels, cnf.out_channels,
                                           kernel_size=cnf.kernel, stride=cnf.stride,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU)]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input: Tensor) -> Tensor:
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class EfficientNet(nn.Module):
    """A stem convolution, the stages of `inverted_residual_setting` (MBConvConfig /
    FusedMBConvConfig), a 1x1 head convolution to `last_channel` (default 4x the last
    stage's channels), global average pooling, dropout and a linear classifier."""

    def __init__(self, inverted_residual_setting: list, dropout: float,
                 stochastic_depth_prob: float = 0.2, num_classes: int = 1000,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 last_channel: int | None = None) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(cnf, _MBConvConfig) for cnf in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        norm_layer = norm_layer or nn.BatchNorm2d
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels,
                                       kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.SiLU)]
        total_blocks = sum(cnf.num_layers for cnf in inverted_residual_setting)
        block_id = 0
        for cnf in inverted_residual_setting:
            stage = []
            for i in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if i > 0:  # later blocks of a stage keep the shape
                    block_cnf.input_channels, block_cnf.stride = block_cnf.out_channels, 1
                # the drop probability grows linearly with depth
                sd_prob = stochastic_depth_prob * float(block_id) / total_blocks
                stage.append(block_cnf.block(block_cnf, sd_prob, norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(last_out, num_classes))
        for m in self.modules():
            init_conv_and_norm_(m)
            if isinstance(m, nn.Linear):
                init_range = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -init_range, init_range)
                nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(flatten(x, 1))


PORTED = "These weights are ported from the original paper."  # meta["_docs"] of B0-B7 V1


class EfficientNet_B0_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b0."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b0_rwightman-7f5810bc.pth", num_params=5_288_548, acc=(77.692, 93.532),
        ops=0.386, file_size=20.451, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B1_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b1."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b1_rwightman-bac287d4.pth", num_params=7_794_184, acc=(78.642, 94.186),
        ops=0.687, file_size=30.134, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=240,
        interpolation=InterpolationMode.BICUBIC)
    IMAGENET1K_V2 = imagenet_weights(
        "efficientnet_b1-c27df63c.pth", num_params=7_794_184, acc=(79.838, 94.934), ops=0.687,
        file_size=30.136,
        recipe="https://github.com/pytorch/vision/issues/3995#new-recipe-with-lr-wd-crop-tuning",
        docs=MODIFIED_NEW_RECIPE, crop_size=240, resize_size=255)
    DEFAULT = IMAGENET1K_V2


class EfficientNet_B2_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b2."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b2_rwightman-c35c1473.pth", num_params=9_109_994, acc=(80.608, 95.31),
        ops=1.088, file_size=35.174, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=288, resize_size=288,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B3_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b3."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b3_rwightman-b3899882.pth", num_params=12_233_232, acc=(82.008, 96.054),
        ops=1.827, file_size=47.184, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=300, resize_size=320,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B4_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b4."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b4_rwightman-23ab8bcd.pth", num_params=19_341_616, acc=(83.384, 96.594),
        ops=4.394, file_size=74.489, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=380, resize_size=384,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B5_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b5."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b5_lukemelas-1a07897c.pth", num_params=30_389_784, acc=(83.444, 96.628),
        ops=10.266, file_size=116.864, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=456, resize_size=456,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B6_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b6."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b6_lukemelas-24a108a5.pth", num_params=43_040_704, acc=(84.008, 96.916),
        ops=19.068, file_size=165.362, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=528, resize_size=528,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B7_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_b7."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_b7_lukemelas-c5b4e57e.pth", num_params=66_347_960, acc=(84.122, 96.908),
        ops=37.746, file_size=254.675, recipe=f"{REFERENCES}#efficientnet-v1",
        docs=PORTED, crop_size=600, resize_size=600,
        interpolation=InterpolationMode.BICUBIC)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_S_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_v2_s."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_v2_s-dd5fe13b.pth", num_params=21_458_488, acc=(84.228, 96.878), ops=8.366,
        file_size=82.704, recipe=f"{REFERENCES}#efficientnet-v2", docs=MODIFIED_NEW_RECIPE,
        min_size=(33, 33), crop_size=384, resize_size=384)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_M_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_v2_m."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_v2_m-dc08266a.pth", num_params=54_139_356, acc=(85.112, 97.156), ops=24.582,
        file_size=208.01, recipe=f"{REFERENCES}#efficientnet-v2", docs=MODIFIED_NEW_RECIPE,
        min_size=(33, 33), crop_size=480, resize_size=480)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_L_Weights(WeightsEnum):
    """Pretrained weights for efficientnet_v2_l."""

    IMAGENET1K_V1 = imagenet_weights(
        "efficientnet_v2_l-59c71312.pth", num_params=118_515_272, acc=(85.808, 97.788), ops=56.08,
        file_size=454.573, recipe=f"{REFERENCES}#efficientnet-v2",
        docs=PORTED, min_size=(33, 33), crop_size=480,
        resize_size=480, interpolation=InterpolationMode.BICUBIC, mean=(0.5, 0.5, 0.5),
        std=(0.5, 0.5, 0.5))
    DEFAULT = IMAGENET1K_V1


def _efficientnet(setting: list, dropout: float, last_channel: int | None,
                  weights: WeightsEnum | None, progress: bool, kwargs: dict) -> EfficientNet:
    model = partial(EfficientNet, setting, kwargs.pop("dropout", dropout),
                    last_channel=last_channel)
    return build(model, weights, progress, kwargs)


def _v1_setting(width_mult: float, depth_mult: float) -> list:
    """EfficientNet-B0's stages, scaled in width and depth for B1-B7."""
    stage = partial(MBConvConfig, width_mult=width_mult, depth_mult=depth_mult)
    return [stage(1, 3, 1, 32, 16, 1), stage(6, 3, 2, 16, 24, 2), stage(6, 5, 2, 24, 40, 2),
            stage(6, 3, 2, 40, 80, 3), stage(6, 5, 1, 80, 112, 3), stage(6, 5, 2, 112, 192, 4),
            stage(6, 3, 1, 192, 320, 1)]


# B5-B7 and V2 were trained with other batch-norm constants (the ported TF checkpoints')
_TF_BATCH_NORM = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
_V2_BATCH_NORM = partial(nn.BatchNorm2d, eps=1e-03)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B0_Weights.IMAGENET1K_V1))
def efficientnet_b0(*, weights: EfficientNet_B0_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B0 (width x1.0, depth x1.0); weights: EfficientNet_B0_Weights."""
    weights = EfficientNet_B0_Weights.verify(weights)
    return _efficientnet(_v1_setting(1.0, 1.0), 0.2, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B1_Weights.IMAGENET1K_V1))
def efficientnet_b1(*, weights: EfficientNet_B1_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B1 (width x1.0, depth x1.1); weights: EfficientNet_B1_Weights."""
    weights = EfficientNet_B1_Weights.verify(weights)
    return _efficientnet(_v1_setting(1.0, 1.1), 0.2, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B2_Weights.IMAGENET1K_V1))
def efficientnet_b2(*, weights: EfficientNet_B2_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B2 (width x1.1, depth x1.2); weights: EfficientNet_B2_Weights."""
    weights = EfficientNet_B2_Weights.verify(weights)
    return _efficientnet(_v1_setting(1.1, 1.2), 0.3, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B3_Weights.IMAGENET1K_V1))
def efficientnet_b3(*, weights: EfficientNet_B3_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B3 (width x1.2, depth x1.4); weights: EfficientNet_B3_Weights."""
    weights = EfficientNet_B3_Weights.verify(weights)
    return _efficientnet(_v1_setting(1.2, 1.4), 0.3, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B4_Weights.IMAGENET1K_V1))
def efficientnet_b4(*, weights: EfficientNet_B4_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B4 (width x1.4, depth x1.8); weights: EfficientNet_B4_Weights."""
    weights = EfficientNet_B4_Weights.verify(weights)
    return _efficientnet(_v1_setting(1.4, 1.8), 0.4, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B5_Weights.IMAGENET1K_V1))
def efficientnet_b5(*, weights: EfficientNet_B5_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B5 (width x1.6, depth x2.2); weights: EfficientNet_B5_Weights."""
    weights = EfficientNet_B5_Weights.verify(weights)
    kwargs.setdefault("norm_layer", _TF_BATCH_NORM)
    return _efficientnet(_v1_setting(1.6, 2.2), 0.4, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B6_Weights.IMAGENET1K_V1))
def efficientnet_b6(*, weights: EfficientNet_B6_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B6 (width x1.8, depth x2.6); weights: EfficientNet_B6_Weights."""
    weights = EfficientNet_B6_Weights.verify(weights)
    kwargs.setdefault("norm_layer", _TF_BATCH_NORM)
    return _efficientnet(_v1_setting(1.8, 2.6), 0.5, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B7_Weights.IMAGENET1K_V1))
def efficientnet_b7(*, weights: EfficientNet_B7_Weights | None = None, progress: bool = True,
                    **kwargs) -> EfficientNet:
    """EfficientNet-B7 (width x2.0, depth x3.1); weights: EfficientNet_B7_Weights."""
    weights = EfficientNet_B7_Weights.verify(weights)
    kwargs.setdefault("norm_layer", _TF_BATCH_NORM)
    return _efficientnet(_v1_setting(2.0, 3.1), 0.5, None, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_V2_S_Weights.IMAGENET1K_V1))
def efficientnet_v2_s(*, weights: EfficientNet_V2_S_Weights | None = None,
                      progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNetV2-S; weights: EfficientNet_V2_S_Weights."""
    weights = EfficientNet_V2_S_Weights.verify(weights)
    setting = [FusedMBConvConfig(1, 3, 1, 24, 24, 2), FusedMBConvConfig(4, 3, 2, 24, 48, 4),
               FusedMBConvConfig(4, 3, 2, 48, 64, 4), MBConvConfig(4, 3, 2, 64, 128, 6),
               MBConvConfig(6, 3, 1, 128, 160, 9), MBConvConfig(6, 3, 2, 160, 256, 15)]
    kwargs.setdefault("norm_layer", _V2_BATCH_NORM)
    return _efficientnet(setting, 0.2, 1280, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_V2_M_Weights.IMAGENET1K_V1))
def efficientnet_v2_m(*, weights: EfficientNet_V2_M_Weights | None = None,
                      progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNetV2-M; weights: EfficientNet_V2_M_Weights."""
    weights = EfficientNet_V2_M_Weights.verify(weights)
    setting = [FusedMBConvConfig(1, 3, 1, 24, 24, 3), FusedMBConvConfig(4, 3, 2, 24, 48, 5),
               FusedMBConvConfig(4, 3, 2, 48, 80, 5), MBConvConfig(4, 3, 2, 80, 160, 7),
               MBConvConfig(6, 3, 1, 160, 176, 14), MBConvConfig(6, 3, 2, 176, 304, 18),
               MBConvConfig(6, 3, 1, 304, 512, 5)]
    kwargs.setdefault("norm_layer", _V2_BATCH_NORM)
    return _efficientnet(setting, 0.3, 1280, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_V2_L_Weights.IMAGENET1K_V1))
def efficientnet_v2_l(*, weights: EfficientNet_V2_L_Weights | None = None,
                      progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNetV2-L; weights: EfficientNet_V2_L_Weights."""
    weights = EfficientNet_V2_L_Weights.verify(weights)
    setting = [FusedMBConvConfig(1, 3, 1, 32, 32, 4), FusedMBConvConfig(4, 3, 2, 32, 64, 7),
               FusedMBConvConfig(4, 3, 2, 64, 96, 7), MBConvConfig(4, 3, 2, 96, 192, 10),
               MBConvConfig(6, 3, 1, 192, 224, 19), MBConvConfig(6, 3, 2, 224, 384, 25),
               MBConvConfig(6, 3, 1, 384, 640, 7)]
    kwargs.setdefault("norm_layer", _V2_BATCH_NORM)
    return _efficientnet(setting, 0.4, 1280, weights, progress, kwargs)
