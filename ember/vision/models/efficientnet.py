"""EfficientNet-B0 (Tan & Le, 2019): MBConv blocks (inverted residuals with
squeeze-and-excitation and SiLU) with stochastic depth, in torchvision's layout."""
from __future__ import annotations

import copy
import math
from functools import partial

from ... import flatten, nn
from ..._tensor import Tensor
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation, StochasticDepth
from ._utils import check_no_weights, init_conv_and_norm_, make_divisible

__all__ = ["EfficientNet", "MBConv", "MBConvConfig", "efficientnet_b0"]


class MBConvConfig:
    """One stage: expand_ratio, kernel, stride, channels in/out and block count, scaled by
    the width and depth multipliers."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int,
                 out_channels: int, num_layers: int, width_mult: float = 1.0,
                 depth_mult: float = 1.0) -> None:
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.num_layers = int(math.ceil(num_layers * depth_mult))
        self.block = MBConv

    @staticmethod
    def adjust_channels(channels: int, width_mult: float, min_value: int | None = None) -> int:
        return make_divisible(channels * width_mult, 8, min_value)


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


class EfficientNet(nn.Module):
    def __init__(self, inverted_residual_setting: list, dropout: float,
                 stochastic_depth_prob: float = 0.2, num_classes: int = 1000,
                 norm_layer=None, last_channel: int | None = None) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
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


def efficientnet_b0(*, weights=None, progress: bool = True, **kwargs) -> EfficientNet:
    check_no_weights("efficientnet_b0", weights, kwargs)
    setting = [MBConvConfig(1, 3, 1, 32, 16, 1), MBConvConfig(6, 3, 2, 16, 24, 2),
               MBConvConfig(6, 5, 2, 24, 40, 2), MBConvConfig(6, 3, 2, 40, 80, 3),
               MBConvConfig(6, 5, 1, 80, 112, 3), MBConvConfig(6, 5, 2, 112, 192, 4),
               MBConvConfig(6, 3, 1, 192, 320, 1)]
    return EfficientNet(setting, kwargs.pop("dropout", 0.2), **kwargs)
