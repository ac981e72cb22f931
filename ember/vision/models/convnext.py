"""ConvNeXt (Liu et al., 2022) in torchvision's layout: a 4x4 patchify stem, four stages
of CNBlocks (7x7 depthwise conv, LayerNorm, an inverted-bottleneck MLP, layer scale,
stochastic depth) with LayerNorm + 2x2 strided convolutions between them."""
from __future__ import annotations

from functools import partial
from typing import Callable

from ... import nn, ones
from ..._tensor import Tensor
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, register_model
from ._utils import (MODIFIED_NEW_RECIPE, REFERENCES, build, handle_legacy_interface,
                     imagenet_weights)

__all__ = ["ConvNeXt", "ConvNeXt_Tiny_Weights", "ConvNeXt_Small_Weights",
           "ConvNeXt_Base_Weights", "ConvNeXt_Large_Weights", "convnext_tiny",
           "convnext_small", "convnext_base", "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of a (N, C, H, W) tensor."""

    def forward(self, x: Tensor) -> Tensor:
        x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias,
                         self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    """input + stochastic_depth(layer_scale * block(input)), the block being a 7x7
    depthwise conv, channels-last LayerNorm, Linear to 4x, GELU, Linear back."""

    def __init__(self, dim: int, layer_scale: float, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]),
            norm_layer(dim),
            nn.Linear(in_features=dim, out_features=4 * dim, bias=True),
            nn.GELU(),
            nn.Linear(in_features=4 * dim, out_features=dim, bias=True),
            Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input: Tensor) -> Tensor:
        return self.stochastic_depth(self.layer_scale * self.block(input)) + input


class CNBlockConfig:
    """One stage: its channels, the channels the downsampling after it goes to (None for
    the last stage) and its number of blocks."""

    def __init__(self, input_channels: int, out_channels: int | None, num_layers: int) -> None:
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(input_channels={self.input_channels}, "
                f"out_channels={self.out_channels}, num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    """The stages of `block_setting`; the stochastic depth probability grows linearly from
    0 to `stochastic_depth_prob` over the blocks; a LayerNorm + Linear classifier."""

    def __init__(self, block_setting: list, stochastic_depth_prob: float = 0.0,
                 layer_scale: float = 1e-6, num_classes: int = 1000,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None, **kwargs) -> None:
        super().__init__()
        if not block_setting:
            raise ValueError("The block_setting should not be empty")
        if not all(isinstance(cnf, CNBlockConfig) for cnf in block_setting):
            raise TypeError("The block_setting should be List[CNBlockConfig]")
        block = block or CNBlock
        norm_layer = norm_layer or partial(LayerNorm2d, eps=1e-6)
        layers = [Conv2dNormActivation(3, block_setting[0].input_channels, kernel_size=4,
                                       stride=4, padding=0, norm_layer=norm_layer,
                                       activation_layer=None, bias=True)]
        total_blocks = sum(cnf.num_layers for cnf in block_setting)
        block_id = 0
        for cnf in block_setting:
            stage = []
            for _ in range(cnf.num_layers):
                sd_prob = stochastic_depth_prob * block_id / (total_blocks - 1.0)
                # as torchvision, the blocks keep their own default norm layer
                stage.append(block(cnf.input_channels, layer_scale, sd_prob))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(nn.Sequential(norm_layer(cnf.input_channels),
                                            nn.Conv2d(cnf.input_channels, cnf.out_channels,
                                                      kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        last_channels = last.out_channels if last.out_channels is not None else \
            last.input_channels
        self.classifier = nn.Sequential(norm_layer(last_channels), nn.Flatten(1),
                                        nn.Linear(last_channels, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.avgpool(self.features(x)))


class ConvNeXt_Tiny_Weights(WeightsEnum):
    """Pretrained weights for convnext_tiny."""

    IMAGENET1K_V1 = imagenet_weights(
        "convnext_tiny-983f1562.pth", num_params=28_589_128, acc=(82.52, 96.146), ops=4.456,
        file_size=109.119, recipe=f"{REFERENCES}#convnext", docs=MODIFIED_NEW_RECIPE,
        min_size=(32, 32), resize_size=236)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Small_Weights(WeightsEnum):
    """Pretrained weights for convnext_small."""

    IMAGENET1K_V1 = imagenet_weights(
        "convnext_small-0c510722.pth", num_params=50_223_688, acc=(83.616, 96.65), ops=8.684,
        file_size=191.703, recipe=f"{REFERENCES}#convnext", docs=MODIFIED_NEW_RECIPE,
        min_size=(32, 32), resize_size=230)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Base_Weights(WeightsEnum):
    """Pretrained weights for convnext_base."""

    IMAGENET1K_V1 = imagenet_weights(
        "convnext_base-6075fbad.pth", num_params=88_591_464, acc=(84.062, 96.87), ops=15.355,
        file_size=338.064, recipe=f"{REFERENCES}#convnext", docs=MODIFIED_NEW_RECIPE,
        min_size=(32, 32), resize_size=232)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Large_Weights(WeightsEnum):
    """Pretrained weights for convnext_large."""

    IMAGENET1K_V1 = imagenet_weights(
        "convnext_large-ea097f82.pth", num_params=197_767_336, acc=(84.414, 96.976), ops=34.361,
        file_size=754.537, recipe=f"{REFERENCES}#convnext", docs=MODIFIED_NEW_RECIPE,
        min_size=(32, 32), resize_size=232)
    DEFAULT = IMAGENET1K_V1


def _convnext(block_setting: list, stochastic_depth_prob: float, weights: WeightsEnum | None,
              progress: bool, kwargs: dict) -> ConvNeXt:
    model = partial(ConvNeXt, block_setting,
                    stochastic_depth_prob=kwargs.pop("stochastic_depth_prob",
                                                     stochastic_depth_prob))
    return build(model, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Tiny_Weights.IMAGENET1K_V1))
def convnext_tiny(*, weights: ConvNeXt_Tiny_Weights | None = None, progress: bool = True,
                  **kwargs) -> ConvNeXt:
    """ConvNeXt Tiny; weights: ConvNeXt_Tiny_Weights."""
    weights = ConvNeXt_Tiny_Weights.verify(weights)
    stages = [CNBlockConfig(96, 192, 3), CNBlockConfig(192, 384, 3),
              CNBlockConfig(384, 768, 9), CNBlockConfig(768, None, 3)]
    return _convnext(stages, 0.1, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Small_Weights.IMAGENET1K_V1))
def convnext_small(*, weights: ConvNeXt_Small_Weights | None = None, progress: bool = True,
                   **kwargs) -> ConvNeXt:
    """ConvNeXt Small; weights: ConvNeXt_Small_Weights."""
    weights = ConvNeXt_Small_Weights.verify(weights)
    stages = [CNBlockConfig(96, 192, 3), CNBlockConfig(192, 384, 3),
              CNBlockConfig(384, 768, 27), CNBlockConfig(768, None, 3)]
    return _convnext(stages, 0.4, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Base_Weights.IMAGENET1K_V1))
def convnext_base(*, weights: ConvNeXt_Base_Weights | None = None, progress: bool = True,
                  **kwargs) -> ConvNeXt:
    """ConvNeXt Base; weights: ConvNeXt_Base_Weights."""
    weights = ConvNeXt_Base_Weights.verify(weights)
    stages = [CNBlockConfig(128, 256, 3), CNBlockConfig(256, 512, 3),
              CNBlockConfig(512, 1024, 27), CNBlockConfig(1024, None, 3)]
    return _convnext(stages, 0.5, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Large_Weights.IMAGENET1K_V1))
def convnext_large(*, weights: ConvNeXt_Large_Weights | None = None, progress: bool = True,
                   **kwargs) -> ConvNeXt:
    """ConvNeXt Large; weights: ConvNeXt_Large_Weights."""
    weights = ConvNeXt_Large_Weights.verify(weights)
    stages = [CNBlockConfig(192, 384, 3), CNBlockConfig(384, 768, 3),
              CNBlockConfig(768, 1536, 27), CNBlockConfig(1536, None, 3)]
    return _convnext(stages, 0.5, weights, progress, kwargs)
