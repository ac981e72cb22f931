"""torchvision.transforms.autoaugment: augmentation policies that chain the colour and
geometry operations of transforms.functional with random strengths.

AutoAugment applies one of a learned list of operation pairs, RandAugment num_ops
operations of one fixed strength, TrivialAugmentWide one operation of a random strength.
AugMix mixes several random chains of them. Their random draws are torchvision's, in the
same order, from ember's default generator.
"""
from __future__ import annotations

import math
from enum import Enum

from ... import arange, finfo, linspace, rand, randint, tensor
from ..._tensor import Tensor
from ...distributions import Gamma
from ...nn import Module
from . import functional as F
from .functional import InterpolationMode
from .transforms import _fill_for

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _shear(img, magnitude, interpolation, fill, axis: int):
    shear = [0.0, 0.0]
    shear[axis] = math.degrees(math.atan(magnitude))
    return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0, shear=shear,
                    interpolation=interpolation, fill=fill, center=[0, 0])


def _translate(img, magnitude, interpolation, fill, axis: int):
    translate = [0, 0]
    translate[axis] = int(magnitude)
    return F.affine(img, angle=0.0, translate=translate, scale=1.0, shear=[0.0, 0.0],
                    interpolation=interpolation, fill=fill)


# name -> operation(img, magnitude, interpolation, fill); the enhancements take 1 + magnitude
_OPS = {
    "Identity": lambda img, m, i, f: img,
    "ShearX": lambda img, m, i, f: _shear(img, m, i, f, axis=0),
    "ShearY": lambda img, m, i, f: _shear(img, m, i, f, axis=1),
    "TranslateX": lambda img, m, i, f: _translate(img, m, i, f, axis=0),
    "TranslateY": lambda img, m, i, f: _translate(img, m, i, f, axis=1),
    "Rotate": lambda img, m, i, f: F.rotate(img, m, interpolation=i, fill=f),
    "Brightness": lambda img, m, i, f: F.adjust_brightness(img, 1.0 + m),
    "Color": lambda img, m, i, f: F.adjust_saturation(img, 1.0 + m),
    "Contrast": lambda img, m, i, f: F.adjust_contrast(img, 1.0 + m),
    "Sharpness": lambda img, m, i, f: F.adjust_sharpness(img, 1.0 + m),
    "Posterize": lambda img, m, i, f: F.posterize(img, int(m)),
    "Solarize": lambda img, m, i, f: F.solarize(img, m),
    "AutoContrast": lambda img, m, i, f: F.autocontrast(img),
    "Equalize": lambda img, m, i, f: F.equalize(img),
    "Invert": lambda img, m, i, f: F.invert(img),
}


def _apply_op(img, op_name: str, magnitude: float, interpolation: InterpolationMode, fill):
    if op_name not in _OPS:
        raise ValueError(f"The provided operator {op_name} is not recognized.")
    return _OPS[op_name](img, magnitude, interpolation, fill)


# Augmentation spaces: {operation: (magnitudes, signed)}. The magnitudes rise linearly
# over num_bins from 0 to the given strength (posterize keeps `top` bits down to
# top - span, solarize's threshold falls from 255 to 0); signed magnitudes are negated on
# a coin flip. Each policy joins these parts in torchvision's order, since RandAugment,
# TrivialAugmentWide and AugMix pick an operation by its position.
def _unsigned(*names: str) -> dict:
    return {name: (tensor(0.0), False) for name in names}


def _geometry_space(num_bins: int, shear: float, translate: tuple, rotate: float) -> dict:
    return {"ShearX": (linspace(0.0, shear, num_bins), True),
            "ShearY": (linspace(0.0, shear, num_bins), True),
            "TranslateX": (linspace(0.0, translate[0], num_bins), True),
            "TranslateY": (linspace(0.0, translate[1], num_bins), True),
            "Rotate": (linspace(0.0, rotate, num_bins), True)}


def _enhance_space(num_bins: int, strength: float) -> dict:
    return {name: (linspace(0.0, strength, num_bins), True)
            for name in ("Brightness", "Color", "Contrast", "Sharpness")}


def _level_space(num_bins: int, top: int, span: int) -> dict:
    bits = top - (arange(num_bins) / ((num_bins - 1) / span)).round().int()
    return {"Posterize": (bits, False), "Solarize": (linspace(255.0, 0.0, num_bins), False),
            **_unsigned("AutoContrast", "Equalize")}


def _standard_space(num_bins: int, height: int, width: int) -> dict:
    """AutoAugment's and RandAugment's: translations up to 150/331 of the size."""
    translate = (150.0 / 331.0 * width, 150.0 / 331.0 * height)
    return {**_geometry_space(num_bins, 0.3, translate, 30.0),
            **_enhance_space(num_bins, 0.9), **_level_space(num_bins, 8, 4)}


class AutoAugmentPolicy(Enum):
    """The datasets AutoAugment learned its policies on."""
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# (operation, probability, magnitude bin) pairs, from the AutoAugment paper's appendix
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}


def _coin_flip() -> bool:
    """torchvision's `torch.randint(2, (1,))` read as a bool."""
    return bool(randint(2, (1,)).item())


class AutoAugment(Module):
    """AutoAugment (Cubuk et al., 2019): each call picks one of the policy's 25 operation
    pairs and applies each operation with its probability, at its magnitude bin (of 10)."""

    def __init__(self, policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
                 interpolation: InterpolationMode = InterpolationMode.NEAREST,
                 fill: list | None = None) -> None:
        super().__init__()
        self.policy = policy
        self.interpolation = interpolation
        self.fill = fill
        if policy not in _POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        self.policies = _POLICIES[policy]

    @staticmethod
    def get_params(transform_num: int) -> tuple:
        """(policy index, two probabilities, two signs), drawn in this order."""
        policy_id = int(randint(transform_num, (1,)).item())
        return policy_id, rand((2,)), randint(2, (2,))

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        transform_id, probs, signs = self.get_params(len(self.policies))
        space = {**_standard_space(10, height, width), **_unsigned("Invert")}
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[transform_id]):
            if not bool(probs[i] <= p):
                continue
            magnitudes, signed = space[op_name]
            magnitude = 0.0 if magnitude_id is None else float(magnitudes[magnitude_id].item())
            if signed and int(signs[i].item()) == 0:
                magnitude *= -1.0
            img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


class RandAugment(Module):
    """RandAugment (Cubuk et al., 2020): num_ops operations drawn uniformly (with
    replacement), each at bin `magnitude` of num_magnitude_bins, its sign a coin flip."""

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: InterpolationMode = InterpolationMode.NEAREST,
                 fill: list | None = None) -> None:
        super().__init__()
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        space = {**_unsigned("Identity"),
                 **_standard_space(self.num_magnitude_bins, height, width)}
        for _ in range(self.num_ops):
            op_name = list(space)[int(randint(len(space), (1,)).item())]
            magnitudes, signed = space[op_name]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.ndim > 0 else 0.0
            if signed and _coin_flip():
                magnitude *= -1.0
            img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, "
                f"magnitude={self.magnitude}, num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class TrivialAugmentWide(Module):
    """TrivialAugment (Müller and Hutter, 2021), wide ranges: one operation drawn
    uniformly, at a magnitude bin drawn uniformly, its sign a coin flip."""

    def __init__(self, num_magnitude_bins: int = 31,
                 interpolation: InterpolationMode = InterpolationMode.NEAREST,
                 fill: list | None = None) -> None:
        super().__init__()
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        bins = self.num_magnitude_bins
        space = {**_unsigned("Identity"), **_geometry_space(bins, 0.99, (32.0, 32.0), 135.0),
                 **_enhance_space(bins, 0.99), **_level_space(bins, 8, 6)}
        op_name = list(space)[int(randint(len(space), (1,)).item())]
        magnitudes, signed = space[op_name]
        magnitude = 0.0
        if magnitudes.ndim > 0:
            magnitude = float(magnitudes[int(randint(len(magnitudes), (1,)).item())].item())
        if signed and _coin_flip():
            magnitude *= -1.0
        return _apply_op(img, op_name, magnitude, self.interpolation, fill)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class AugMix(Module):
    """AugMix (Hendrycks et al., 2020): mixture_width chains of 1-3 (or chain_depth)
    random operations of strength up to severity (of 10), mixed with Dirichlet(alpha)
    weights, then blended with the original image with Beta(alpha, alpha) weights."""

    _PARAMETER_MAX = 10

    def __init__(self, severity: int = 3, mixture_width: int = 3, chain_depth: int = -1,
                 alpha: float = 1.0, all_ops: bool = True,
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                 fill: list | None = None) -> None:
        super().__init__()
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got "
                             f"{severity} instead.")
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins: int, image_size: tuple) -> dict:
        height, width = image_size
        space = {**_geometry_space(num_bins, 0.3, (width / 3.0, height / 3.0), 30.0),
                 **_level_space(num_bins, 4, 4)}
        if self.all_ops:
            space.update(_enhance_space(num_bins, 0.9))
        return space

    @staticmethod
    def _sample_dirichlet(params: Tensor) -> Tensor:
        """Dirichlet draws as torch._sample_dirichlet makes them: gamma draws in float64,
        normalized, then rounded into (0, 1) in params' type."""
        gammas = Gamma(params.double(), 1.0).sample()
        weights = (gammas / gammas.sum(-1, keepdim=True)).to(params.dtype)
        info = finfo(params.dtype)
        return weights.clamp(info.tiny, 1.0 - info.eps / 2)  # the float just below 1

    def forward(self, orig_img):
        fill = _fill_for(orig_img, self.fill)
        _, height, width = F.get_dimensions(orig_img)
        img = orig_img if isinstance(orig_img, Tensor) else F.pil_to_tensor(orig_img)
        space = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        orig_dims = list(img.shape)
        batch = img.view([1] * max(4 - img.ndim, 0) + orig_dims)   # (B, C, H, W)
        batch_dims = [batch.size(0)] + [1] * (batch.ndim - 1)
        n = batch_dims[0]
        # column 0 weighs the original image, column 1 the mixture of the chains
        blend = self._sample_dirichlet(tensor([self.alpha, self.alpha]).expand(n, -1))
        chain_weights = self._sample_dirichlet(
            tensor([self.alpha] * self.mixture_width).expand(n, -1)) * blend[:, 1].view([n, -1])
        mix = blend[:, 0].view(batch_dims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else \
                int(randint(low=1, high=4, size=(1,)).item())
            for _ in range(depth):
                op_name = list(space)[int(randint(len(space), (1,)).item())]
                magnitudes, signed = space[op_name]
                magnitude = 0.0
                if magnitudes.ndim > 0:
                    magnitude = float(magnitudes[int(randint(self.severity, (1,)).item())].item())
                if signed and _coin_flip():
                    magnitude *= -1.0
                aug = _apply_op(aug, op_name, magnitude, self.interpolation, fill)
            mix.add_(chain_weights[:, i].view(batch_dims) * aug)
        mix = mix.view(orig_dims).to(dtype=img.dtype)
        return mix if isinstance(orig_img, Tensor) else F.to_pil_image(mix)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(severity={self.severity}, "
                f"mixture_width={self.mixture_width}, chain_depth={self.chain_depth}, "
                f"alpha={self.alpha}, all_ops={self.all_ops}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
