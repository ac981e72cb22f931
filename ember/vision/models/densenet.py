"""DenseNet (Huang et al., 2016): every layer of a block sees the concatenated outputs of
all the layers before it. torchvision's names (features.denseblock1.denselayer1...)."""
from __future__ import annotations

import re
from collections import OrderedDict
from functools import partial

from ... import cat, flatten, nn
from ..._tensor import Tensor
from ...nn import functional as F
from ._api import WeightsEnum, register_model
from ._utils import build, handle_legacy_interface, imagenet_weights

__all__ = ["DenseNet", "DenseNet121_Weights", "DenseNet161_Weights", "DenseNet169_Weights",
           "DenseNet201_Weights", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv (to bn_size * growth_rate) then BN-ReLU-3x3 conv (to growth_rate)."""

    def __init__(self, num_input_features: int, growth_rate: int, bn_size: int,
                 drop_rate: float, memory_efficient: bool = False) -> None:
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1,
                               stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1,
                               padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        # torchvision's checkpointing option saves memory only; results are the same
        self.memory_efficient = memory_efficient

    def forward(self, input: Tensor | list) -> Tensor:
        features = cat(input, 1) if isinstance(input, list) else input
        out = self.conv1(self.relu1(self.norm1(features)))
        out = self.conv2(self.relu2(self.norm2(out)))
        if self.drop_rate > 0:
            out = F.dropout(out, p=self.drop_rate, training=self.training)
        return out


class _DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers: int, num_input_features: int, bn_size: int,
                 growth_rate: int, drop_rate: float, memory_efficient: bool = False) -> None:
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate=growth_rate,
                                bn_size=bn_size, drop_rate=drop_rate,
                                memory_efficient=memory_efficient)
            self.add_module(f"denselayer{i + 1}", layer)

    def forward(self, init_features: Tensor) -> Tensor:
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return cat(features, 1)


class _Transition(nn.Sequential):
    """Between blocks: BN-ReLU-1x1 conv halving the channels, then 2x2 average pooling."""

    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1,
                              bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    def __init__(self, growth_rate: int = 32, block_config: tuple = (6, 12, 24, 16),
                 num_init_features: int = 64, bn_size: int = 4, drop_rate: float = 0,
                 num_classes: int = 1000, memory_efficient: bool = False) -> None:
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3,
                                bias=False)),
            ("norm0", nn.BatchNorm2d(num_init_features)),
            ("relu0", nn.ReLU(inplace=True)),
            ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1))]))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = _DenseBlock(num_layers=num_layers, num_input_features=num_features,
                                bn_size=bn_size, growth_rate=growth_rate, drop_rate=drop_rate,
                                memory_efficient=memory_efficient)
            self.features.add_module(f"denseblock{i + 1}", block)
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = _Transition(num_input_features=num_features,
                                    num_output_features=num_features // 2)
                self.features.add_module(f"transition{i + 1}", trans)
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        out = F.relu(self.features(x), inplace=True)
        out = F.adaptive_avg_pool2d(out, (1, 1))
        return self.classifier(flatten(out, 1))


class DenseNet121_Weights(WeightsEnum):
    """Pretrained weights for densenet121."""

    IMAGENET1K_V1 = imagenet_weights(
        "densenet121-a639ec97.pth", num_params=7_978_856, acc=(74.434, 91.972), ops=2.834,
        file_size=30.845, recipe="https://github.com/pytorch/vision/pull/116",
        docs="These weights are ported from LuaTorch.", min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


class DenseNet161_Weights(WeightsEnum):
    """Pretrained weights for densenet161."""

    IMAGENET1K_V1 = imagenet_weights(
        "densenet161-8d451a50.pth", num_params=28_681_000, acc=(77.138, 93.56), ops=7.728,
        file_size=110.369, recipe="https://github.com/pytorch/vision/pull/116",
        docs="These weights are ported from LuaTorch.", min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


class DenseNet169_Weights(WeightsEnum):
    """Pretrained weights for densenet169."""

    IMAGENET1K_V1 = imagenet_weights(
        "densenet169-b2777c0a.pth", num_params=14_149_480, acc=(75.6, 92.806), ops=3.36,
        file_size=54.708, recipe="https://github.com/pytorch/vision/pull/116",
        docs="These weights are ported from LuaTorch.", min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


class DenseNet201_Weights(WeightsEnum):
    """Pretrained weights for densenet201."""

    IMAGENET1K_V1 = imagenet_weights(
        "densenet201-c1103571.pth", num_params=20_013_928, acc=(76.896, 93.37), ops=4.291,
        file_size=77.373, recipe="https://github.com/pytorch/vision/pull/116",
        docs="These weights are ported from LuaTorch.", min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


# The published checkpoints predate the ban on "." in module names: they name a dense
# layer's parameters "norm.1.weight" where the module now calls them "norm1.weight".
_OLD_LAYER_KEY = re.compile(r"^(.*denselayer\d+\.(?:norm|relu|conv))\."
                            r"((?:[12])\.(?:weight|bias|running_mean|running_var))$")


def _rename_old_keys(state_dict: dict) -> dict:
    """The checkpoint with "norm.1" style keys renamed to the module's "norm1"."""
    renamed = {}
    for key, value in state_dict.items():
        match = _OLD_LAYER_KEY.match(key)
        renamed[match.group(1) + match.group(2) if match else key] = value
    return renamed


def _densenet(growth_rate: int, block_config: tuple, num_init_features: int,
              weights: WeightsEnum | None, progress: bool, kwargs: dict) -> DenseNet:
    return build(partial(DenseNet, growth_rate, block_config, num_init_features), weights,
                 progress, kwargs, adapt_state=_rename_old_keys)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet121_Weights.IMAGENET1K_V1))
def densenet121(*, weights: DenseNet121_Weights | None = None, progress: bool = True,
                **kwargs) -> DenseNet:
    """DenseNet-121 (growth rate 32, blocks (6, 12, 24, 16)); weights: DenseNet121_Weights."""
    weights = DenseNet121_Weights.verify(weights)
    return _densenet(32, (6, 12, 24, 16), 64, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet161_Weights.IMAGENET1K_V1))
def densenet161(*, weights: DenseNet161_Weights | None = None, progress: bool = True,
                **kwargs) -> DenseNet:
    """DenseNet-161 (growth rate 48, blocks (6, 12, 36, 24)); weights: DenseNet161_Weights."""
    weights = DenseNet161_Weights.verify(weights)
    return _densenet(48, (6, 12, 36, 24), 96, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet169_Weights.IMAGENET1K_V1))
def densenet169(*, weights: DenseNet169_Weights | None = None, progress: bool = True,
                **kwargs) -> DenseNet:
    """DenseNet-169 (growth rate 32, blocks (6, 12, 32, 32)); weights: DenseNet169_Weights."""
    weights = DenseNet169_Weights.verify(weights)
    return _densenet(32, (6, 12, 32, 32), 64, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet201_Weights.IMAGENET1K_V1))
def densenet201(*, weights: DenseNet201_Weights | None = None, progress: bool = True,
                **kwargs) -> DenseNet:
    """DenseNet-201 (growth rate 32, blocks (6, 12, 48, 32)); weights: DenseNet201_Weights."""
    weights = DenseNet201_Weights.verify(weights)
    return _densenet(32, (6, 12, 48, 32), 64, weights, progress, kwargs)
