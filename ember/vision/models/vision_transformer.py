"""Vision Transformer (Dosovitskiy et al., 2020) in torchvision's layout: the image cut
into patches by a strided convolution (`conv_proj`), a class token, learnt position
embeddings and a stack of pre-norm encoder blocks (`encoder.layers.encoder_layer_<i>`),
then a linear head on the class token."""
from __future__ import annotations

import math
from collections import OrderedDict
from functools import partial
from typing import Callable, NamedTuple

from ... import cat, empty, nn, zeros
from ..._tensor import Tensor
from ...nn import functional as F
from ..ops.misc import MLP, Conv2dNormActivation
from ..transforms.functional import InterpolationMode
from ._api import WeightsEnum, register_model
from ._utils import (BLOG, REFERENCES, build, handle_legacy_interface, imagenet_weights)

__all__ = ["VisionTransformer", "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights",
           "ViT_L_32_Weights", "ViT_H_14_Weights", "vit_b_16", "vit_b_32", "vit_l_16",
           "vit_l_32", "vit_h_14"]

_LAYER_NORM = partial(nn.LayerNorm, eps=1e-6)


class ConvStemConfig(NamedTuple):
    """One convolution of an optional convolutional stem replacing the patch projection."""

    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d
    activation_layer: Callable[..., nn.Module] = nn.ReLU


class MLPBlock(MLP):
    """The encoder block's feed-forward part: Linear, GELU, Dropout, Linear, Dropout."""

    _version = 2

    def __init__(self, in_dim: int, mlp_dim: int, dropout: float) -> None:
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None,
                         dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        # checkpoints saved before version 2 name the two linears linear_1 and linear_2
        if local_metadata.get("version", None) is None or local_metadata["version"] < 2:
            for i in range(2):
                for kind in ("weight", "bias"):
                    old_key = f"{prefix}linear_{i + 1}.{kind}"
                    if old_key in state_dict:
                        state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


def _check(condition: bool, message: str) -> None:
    """torch._assert's check: an AssertionError with torchvision's message."""
    if not condition:
        raise AssertionError(message)


class EncoderBlock(nn.Module):
    """Pre-norm transformer block: x + attention(ln_1(x)), then + mlp(ln_2(.))."""

    def __init__(self, num_heads: int, hidden_dim: int, mlp_dim: int, dropout: float,
                 attention_dropout: float,
                 norm_layer: Callable[..., nn.Module] = _LAYER_NORM) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads,
                                                    dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input: Tensor) -> Tensor:
        _check(input.dim() == 3,
               f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Position embeddings (initialised as BERT's), dropout, `num_layers` EncoderBlocks
    and a final norm."""

    def __init__(self, seq_length: int, num_layers: int, num_heads: int, hidden_dim: int,
                 mlp_dim: int, dropout: float, attention_dropout: float,
                 norm_layer: Callable[..., nn.Module] = _LAYER_NORM) -> None:
        super().__init__()
        self.pos_embedding = nn.Parameter(empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.Sequential(OrderedDict(
            (f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                attention_dropout, norm_layer))
            for i in range(num_layers)))
        self.ln = norm_layer(hidden_dim)

    def forward(self, input: Tensor) -> Tensor:
        _check(input.dim() == 3,
               f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    """ViT for square images of side `image_size` cut into patch_size x patch_size
    patches; `representation_size` adds a tanh pre-logits layer; `conv_stem_configs`
    replaces the patch projection by a convolutional stem."""

    def __init__(self, image_size: int, patch_size: int, num_layers: int, num_heads: int,
                 hidden_dim: int, mlp_dim: int, dropout: float = 0.0,
                 attention_dropout: float = 0.0, num_classes: int = 1000,
                 representation_size: int | None = None,
                 norm_layer: Callable[..., nn.Module] = _LAYER_NORM,
                 conv_stem_configs: list | None = None) -> None:
        super().__init__()
        _check(image_size % patch_size == 0, "Input shape indivisible by patch size!")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer
        if conv_stem_configs is not None:
            self.conv_proj = self._conv_stem(conv_stem_configs, hidden_dim)
        else:
            self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2 + 1  # the patches and the class token
        self.class_token = nn.Parameter(zeros(1, 1, hidden_dim))
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, norm_layer)
        self.seq_length = seq_length
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)
        self._init_weights()

    @staticmethod
    def _conv_stem(configs: list, hidden_dim: int) -> nn.Sequential:
        stem = nn.Sequential()
        channels = 3
        for i, config in enumerate(configs):
            stem.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                channels, config.out_channels, kernel_size=config.kernel_size,
                stride=config.stride, norm_layer=config.norm_layer,
                activation_layer=config.activation_layer))
            channels = config.out_channels
        stem.add_module("conv_last", nn.Conv2d(channels, hidden_dim, kernel_size=1))
        return stem

    def _init_weights(self) -> None:
        if isinstance(self.conv_proj, nn.Conv2d):
            fan_in = self.conv_proj.in_channels * self.patch_size * self.patch_size
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
            nn.init.zeros_(self.conv_proj.bias)
        else:
            last = self.conv_proj.conv_last
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
            nn.init.zeros_(last.bias)
        if "pre_logits" in self.heads._modules:
            pre_logits = self.heads.pre_logits
            nn.init.trunc_normal_(pre_logits.weight, std=math.sqrt(1 / pre_logits.in_features))
            nn.init.zeros_(pre_logits.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x: Tensor) -> Tensor:
        """(n, 3, H, W) images -> (n, patches, hidden_dim) patch embeddings."""
        n, _, h, w = x.shape
        _check(h == self.image_size,
               f"Wrong image height! Expected {self.image_size} but got {h}!")
        _check(w == self.image_size,
               f"Wrong image width! Expected {self.image_size} but got {w}!")
        patches = (h // self.patch_size) * (w // self.patch_size)
        x = self.conv_proj(x).reshape(n, self.hidden_dim, patches)
        return x.permute(0, 2, 1)

    def forward(self, x: Tensor) -> Tensor:
        x = self._process_input(x)
        class_token = self.class_token.expand(x.shape[0], -1, -1)
        x = self.encoder(cat([class_token, x], dim=1))
        return self.heads(x[:, 0])


# meta["_docs"] of the ViT checkpoints
DEIT_RECIPE = ("These weights were trained from scratch by using a modified version of `DeIT "
               "<https://arxiv.org/abs/2012.12877>`_'s training recipe.")
SWAG_E2E = ("These weights are learnt via transfer learning by end-to-end fine-tuning the "
            "original `SWAG <https://arxiv.org/abs/2201.08371>`_ weights on ImageNet-1K data.")
SWAG_LINEAR = ("These weights are composed of the original frozen `SWAG "
               "<https://arxiv.org/abs/2201.08371>`_ trunk weights and a linear classifier "
               "learnt on top of them trained on ImageNet-1K data.")


class ViT_B_16_Weights(WeightsEnum):
    """Pretrained weights for vit_b_16."""

    IMAGENET1K_V1 = imagenet_weights(
        "vit_b_16-c867db91.pth", num_params=86_567_656, acc=(81.072, 95.318), ops=17.564,
        file_size=330.285, recipe=f"{REFERENCES}#vit_b_16", docs=DEIT_RECIPE, min_size=(224, 224))
    IMAGENET1K_SWAG_E2E_V1 = imagenet_weights(
        "vit_b_16_swag-9ac1b537.pth", num_params=86_859_496, acc=(85.304, 97.65), ops=55.484,
        file_size=331.398, recipe="https://github.com/facebookresearch/SWAG", docs=SWAG_E2E,
        min_size=(384, 384), crop_size=384, resize_size=384,
        interpolation=InterpolationMode.BICUBIC,
        license="https://github.com/facebookresearch/SWAG/blob/main/LICENSE")
    IMAGENET1K_SWAG_LINEAR_V1 = imagenet_weights(
        "vit_b_16_lc_swag-4e70ced5.pth", num_params=86_567_656, acc=(81.886, 96.18), ops=17.564,
        file_size=330.285, recipe="https://github.com/pytorch/vision/pull/5793", docs=SWAG_LINEAR,
        min_size=(224, 224), resize_size=224, interpolation=InterpolationMode.BICUBIC,
        license="https://github.com/facebookresearch/SWAG/blob/main/LICENSE")
    DEFAULT = IMAGENET1K_V1


class ViT_B_32_Weights(WeightsEnum):
    """Pretrained weights for vit_b_32."""

    IMAGENET1K_V1 = imagenet_weights(
        "vit_b_32-d86f8d99.pth", num_params=88_224_232, acc=(75.912, 92.466), ops=4.409,
        file_size=336.604, recipe=f"{REFERENCES}#vit_b_32", docs=DEIT_RECIPE, min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


class ViT_L_16_Weights(WeightsEnum):
    """Pretrained weights for vit_l_16."""

    IMAGENET1K_V1 = imagenet_weights(
        "vit_l_16-852ce7e3.pth", num_params=304_326_632, acc=(79.662, 94.638), ops=61.555,
        file_size=1161.023, recipe=f"{REFERENCES}#vit_l_16",
        docs=("These weights were trained from scratch by using a modified version of "
              "TorchVision's `new training recipe "
              f"<{BLOG}>`_."),
        min_size=(224, 224), resize_size=242)
    IMAGENET1K_SWAG_E2E_V1 = imagenet_weights(
        "vit_l_16_swag-4f3808c9.pth", num_params=305_174_504, acc=(88.064, 98.512), ops=361.986,
        file_size=1164.258, recipe="https://github.com/facebookresearch/SWAG", docs=SWAG_E2E,
        min_size=(512, 512), crop_size=512, resize_size=512,
        interpolation=InterpolationMode.BICUBIC,
        license="https://github.com/facebookresearch/SWAG/blob/main/LICENSE")
    IMAGENET1K_SWAG_LINEAR_V1 = imagenet_weights(
        "vit_l_16_lc_swag-4d563306.pth", num_params=304_326_632, acc=(85.146, 97.422), ops=61.555,
        file_size=1161.023, recipe="https://github.com/pytorch/vision/pull/5793", docs=SWAG_LINEAR,
        min_size=(224, 224), resize_size=224, interpolation=InterpolationMode.BICUBIC,
        license="https://github.com/facebookresearch/SWAG/blob/main/LICENSE")
    DEFAULT = IMAGENET1K_V1


class ViT_L_32_Weights(WeightsEnum):
    """Pretrained weights for vit_l_32."""

    IMAGENET1K_V1 = imagenet_weights(
        "vit_l_32-c7638314.pth", num_params=306_535_400, acc=(76.972, 93.07), ops=15.378,
        file_size=1169.449, recipe=f"{REFERENCES}#vit_l_32", docs=DEIT_RECIPE, min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


class ViT_H_14_Weights(WeightsEnum):
    """Pretrained weights for vit_h_14."""

    IMAGENET1K_SWAG_E2E_V1 = imagenet_weights(
        "vit_h_14_swag-80465313.pth", num_params=633_470_440, acc=(88.552, 98.694), ops=1016.717,
        file_size=2416.643, recipe="https://github.com/facebookresearch/SWAG", docs=SWAG_E2E,
        min_size=(518, 518), crop_size=518, resize_size=518,
        interpolation=InterpolationMode.BICUBIC,
        license="https://github.com/facebookresearch/SWAG/blob/main/LICENSE")
    IMAGENET1K_SWAG_LINEAR_V1 = imagenet_weights(
        "vit_h_14_lc_swag-c1eb923e.pth", num_params=632_045_800, acc=(85.708, 97.73), ops=167.295,
        file_size=2411.209, recipe="https://github.com/pytorch/vision/pull/5793", docs=SWAG_LINEAR,
        min_size=(224, 224), resize_size=224, interpolation=InterpolationMode.BICUBIC,
        license="https://github.com/facebookresearch/SWAG/blob/main/LICENSE")
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


def _vision_transformer(patch_size: int, num_layers: int, num_heads: int, hidden_dim: int,
                        mlp_dim: int, weights: WeightsEnum | None, progress: bool,
                        kwargs: dict) -> VisionTransformer:
    needed = {}
    if weights is not None:  # SWAG weights were fine-tuned at a larger resolution
        needed["image_size"] = weights.meta["min_size"][0]
    kwargs.setdefault("image_size", needed.get("image_size", 224))
    model = partial(VisionTransformer, patch_size=patch_size, num_layers=num_layers,
                    num_heads=num_heads, hidden_dim=hidden_dim, mlp_dim=mlp_dim)
    return build(model, weights, progress, kwargs, **needed)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_B_16_Weights.IMAGENET1K_V1))
def vit_b_16(*, weights: ViT_B_16_Weights | None = None, progress: bool = True,
             **kwargs) -> VisionTransformer:
    """ViT-Base, 16x16 patches (12 layers, 12 heads, width 768); weights: ViT_B_16_Weights."""
    weights = ViT_B_16_Weights.verify(weights)
    return _vision_transformer(16, 12, 12, 768, 3072, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_B_32_Weights.IMAGENET1K_V1))
def vit_b_32(*, weights: ViT_B_32_Weights | None = None, progress: bool = True,
             **kwargs) -> VisionTransformer:
    """ViT-Base, 32x32 patches (12 layers, 12 heads, width 768); weights: ViT_B_32_Weights."""
    weights = ViT_B_32_Weights.verify(weights)
    return _vision_transformer(32, 12, 12, 768, 3072, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_L_16_Weights.IMAGENET1K_V1))
def vit_l_16(*, weights: ViT_L_16_Weights | None = None, progress: bool = True,
             **kwargs) -> VisionTransformer:
    """ViT-Large, 16x16 patches (24 layers, 16 heads, width 1024); weights: ViT_L_16_Weights."""
    weights = ViT_L_16_Weights.verify(weights)
    return _vision_transformer(16, 24, 16, 1024, 4096, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_L_32_Weights.IMAGENET1K_V1))
def vit_l_32(*, weights: ViT_L_32_Weights | None = None, progress: bool = True,
             **kwargs) -> VisionTransformer:
    """ViT-Large, 32x32 patches (24 layers, 16 heads, width 1024); weights: ViT_L_32_Weights."""
    weights = ViT_L_32_Weights.verify(weights)
    return _vision_transformer(32, 24, 16, 1024, 4096, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", None))
def vit_h_14(*, weights: ViT_H_14_Weights | None = None, progress: bool = True,
             **kwargs) -> VisionTransformer:
    """ViT-Huge, 14x14 patches (32 layers, 16 heads, width 1280); weights: ViT_H_14_Weights."""
    weights = ViT_H_14_Weights.verify(weights)
    return _vision_transformer(14, 32, 16, 1280, 5120, weights, progress, kwargs)


def interpolate_embeddings(image_size: int, patch_size: int, model_state: dict,
                           interpolation_mode: str = "bicubic",
                           reset_heads: bool = False) -> dict:
    """A ViT state_dict adapted to another image size: the patch position embeddings are
    resized as a square grid (the class token's is kept); reset_heads drops the heads.*
    entries (for fine-tuning on new classes)."""
    pos_embedding = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos_embedding.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos_embedding.shape}")
    side = image_size // patch_size
    if side * side + 1 == seq_length:
        return model_state
    old_side = int(math.sqrt(seq_length - 1))
    if old_side * old_side != seq_length - 1:
        raise ValueError(f"seq_length is not a perfect square! Instead got seq_length_1d * "
                         f"seq_length_1d = {old_side * old_side} and seq_length = "
                         f"{seq_length - 1}")
    grid = pos_embedding[:, 1:, :].permute(0, 2, 1).reshape(1, hidden_dim, old_side, old_side)
    grid = F.interpolate(grid, size=side, mode=interpolation_mode, align_corners=True)
    grid = grid.reshape(1, hidden_dim, side * side).permute(0, 2, 1)
    model_state["encoder.pos_embedding"] = cat([pos_embedding[:, :1, :], grid], dim=1)
    if reset_heads:
        model_state = OrderedDict((k, v) for k, v in model_state.items()
                                  if not k.startswith("heads"))
    return model_state
