"""torchvision.transforms (the v1 API): callable classes around transforms.functional.

Random transforms draw from ember's default generator, so ember.manual_seed makes a
pipeline reproducible. Transforms that are nn.Modules in torchvision are ember Modules.
"""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Callable, Sequence

import numpy as np

from ... import _dtype, cat, empty, log, rand, randint, randperm, tensor
from ..._tensor import Tensor
from ...nn import Module
from . import functional as F
from .functional import InterpolationMode

__all__ = ["Compose", "ToTensor", "PILToTensor", "ToPILImage", "ConvertImageDtype",
           "Normalize", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation", "Pad",
           "ColorJitter", "Grayscale", "RandomGrayscale", "GaussianBlur", "RandomErasing",
           "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "InterpolationMode",
           "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness",
           "RandomAutocontrast", "RandomEqualize", "RandomAffine", "FiveCrop", "TenCrop",
           "RandomPerspective", "LinearTransformation", "ElasticTransform"]


def _uniform(low: float, high: float) -> float:
    return float(empty(1).uniform_(low, high).item())


def _randint(low: int, high: int) -> int:
    return int(randint(low, high, size=(1,)).item())


def _coin(p: float) -> bool:
    """True with probability p (torchvision's `torch.rand(1) < p`)."""
    return bool(rand(1).item() < p)


def _setup_size(size, error_msg: str):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


def _format_list(name: str, transforms: Sequence, header: str = "") -> str:
    lines = [name + "(" + header] + [f"    {t}" for t in transforms]
    return "\n".join(lines) + "\n)"


class Compose:
    """Apply transforms one after the other."""

    def __init__(self, transforms: Sequence[Callable]):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        return _format_list(self.__class__.__name__, self.transforms)


class ToTensor:
    """PIL image or HWC ndarray -> CHW float tensor in [0, 1] (uint8 input is divided by
    255; other types keep their values)."""

    def __call__(self, pic) -> Tensor:
        return F.to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image -> CHW tensor with the image's own pixel type."""

    def __call__(self, pic) -> Tensor:
        return F.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ToPILImage:
    def __init__(self, mode: str | None = None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        mode = "" if self.mode is None else f"mode={self.mode}"
        return f"{self.__class__.__name__}({mode})"


class ConvertImageDtype(Module):
    def __init__(self, dtype: _dtype.dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, image: Tensor) -> Tensor:
        return F.convert_image_dtype(image, self.dtype)


class Normalize(Module):
    """output[c] = (input[c] - mean[c]) / std[c] for a float tensor image."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False):
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor: Tensor) -> Tensor:
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(Module):
    """Resize to (h, w), or scale the smaller edge to an int size keeping the aspect ratio."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
                 antialias: bool | None = True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        self.interpolation = F._interpolation(interpolation)
        self.antialias = antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, "
                f"interpolation={self.interpolation.value}, max_size={self.max_size}, "
                f"antialias={self.antialias})")


class CenterCrop(Module):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(Module):
    def __init__(self, padding, fill=0, padding_mode: str = "constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or "
                             "symmetric")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                             f"{len(padding)} element tuple")
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, "
                f"padding_mode={self.padding_mode})")


class RandomCrop(Module):
    """Crop a random (h, w) box, after optional padding (pad_if_needed pads images smaller
    than the crop)."""

    @staticmethod
    def get_params(img, output_size: tuple) -> tuple:
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size "
                             f"{(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        return _randint(0, h - th + 1), _randint(0, w - tw + 1), th, tw

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0,
                 padding_mode: str = "constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, "Please provide only two dimensions (h, w) for "
                                            "size."))
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomResizedCrop(Module):
    """Crop a random box of random area (scale) and aspect ratio (ratio), resized to size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias: bool | None = True):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.interpolation = F._interpolation(interpolation)
        self.antialias = antialias
        self.scale = scale
        self.ratio = ratio

    @staticmethod
    def get_params(img, scale: Sequence[float], ratio: Sequence[float]) -> tuple:
        """(top, left, height, width): up to 10 random tries, then the centre crop with the
        aspect ratio clamped into `ratio`."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = log(tensor(ratio)).tolist()
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(0, height - h + 1), _randint(0, width - w + 1), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w = width
            h = int(round(w / min(ratio)))
        elif in_ratio > max(ratio):
            h = height
            w = int(round(h * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation,
                              antialias=self.antialias)

    def __repr__(self) -> str:
        scale = tuple(round(s, 4) for s in self.scale)
        ratio = tuple(round(r, 4) for r in self.ratio)
        return (f"{self.__class__.__name__}(size={self.size}, scale={scale}, ratio={ratio}, "
                f"interpolation={self.interpolation.value}, antialias={self.antialias})")


class _RandomOp(Module):
    """Apply a functional operation with probability p (torchvision draws `torch.rand(1)`
    on every call). `_arg` names the attribute passed to the operation after the image."""
    _op = None
    _arg = None

    def __init__(self, p: float = 0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if not _coin(self.p):
            return img
        args = () if self._arg is None else (getattr(self, self._arg),)
        return type(self)._op(img, *args)

    def __repr__(self) -> str:
        arg = "" if self._arg is None else f"{self._arg}={getattr(self, self._arg)},"
        return f"{self.__class__.__name__}({arg}p={self.p})"


class RandomHorizontalFlip(_RandomOp):
    _op = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomOp):
    _op = staticmethod(F.vflip)


class RandomInvert(_RandomOp):
    """Invert the colours with probability p."""
    _op = staticmethod(F.invert)


class RandomPosterize(_RandomOp):
    """Keep the top `bits` bits of each channel with probability p."""
    _op, _arg = staticmethod(F.posterize), "bits"

    def __init__(self, bits: int, p: float = 0.5):
        super().__init__(p)
        self.bits = bits


class RandomSolarize(_RandomOp):
    """Invert the pixels at or above threshold with probability p."""
    _op, _arg = staticmethod(F.solarize), "threshold"

    def __init__(self, threshold: float, p: float = 0.5):
        super().__init__(p)
        self.threshold = threshold


class RandomAdjustSharpness(_RandomOp):
    """Adjust the sharpness by sharpness_factor with probability p."""
    _op, _arg = staticmethod(F.adjust_sharpness), "sharpness_factor"

    def __init__(self, sharpness_factor: float, p: float = 0.5):
        super().__init__(p)
        self.sharpness_factor = sharpness_factor


class RandomAutocontrast(_RandomOp):
    """Autocontrast with probability p."""
    _op = staticmethod(F.autocontrast)


class RandomEqualize(_RandomOp):
    """Equalize the histogram with probability p."""
    _op = staticmethod(F.equalize)


def _check_sequence_input(x, name: str, req_sizes: tuple) -> None:
    lengths = str(req_sizes[0]) if len(req_sizes) < 2 else " or ".join(map(str, req_sizes))
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {lengths}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {lengths}.")


def _setup_angle(x, name: str, req_sizes: tuple = (2,)) -> list:
    """A range of angles: (-x, x) for a number x, else the sequence as floats."""
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _fill_for(img, fill):
    """Tensor images take one float fill value per channel; PIL images (and a fill of
    None) are passed on as they are."""
    if not isinstance(img, Tensor) or fill is None:
        return fill
    if isinstance(fill, (int, float)):
        return [float(fill)] * F.get_dimensions(img)[0]
    return [float(f) for f in fill]


class RandomRotation(Module):
    """Rotate by an angle drawn uniformly from degrees ((-d, d) for a number d)."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand: bool = False,
                 center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees")
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        fill = _check_fill(fill)
        self.interpolation = F._interpolation(interpolation)
        self.expand = expand
        self.center = center
        self.fill = fill

    @staticmethod
    def get_params(degrees: list) -> float:
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self) -> str:
        text = (f"{self.__class__.__name__}(degrees={self.degrees}, "
                f"interpolation={self.interpolation.value}, expand={self.expand}")
        if self.center is not None:
            text += f", center={self.center}"
        if self.fill is not None:
            text += f", fill={self.fill}"
        return text + ")"


class RandomAffine(Module):
    """Affine transformation keeping the image centre: a rotation drawn from degrees, a
    translation of up to translate * (width, height) pixels, a scale drawn from scale and
    shears drawn from shear ((-s, s) along x for a number s; two or four bounds for x and
    y)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation=InterpolationMode.NEAREST, fill=0, center=None):
        super().__init__()
        if isinstance(interpolation, int):
            interpolation = F._interpolation(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            if any(not 0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            if any(s <= 0 for s in scale):
                raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _setup_angle(shear, name="shear",
                                                             req_sizes=(2, 4))
        self.interpolation = interpolation
        self.fill = _check_fill(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(degrees: list, translate, scale_ranges, shears, img_size: list) -> tuple:
        """(angle, (tx, ty), scale, (shear_x, shear_y)), drawn in this order."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        translations = (0, 0)
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            translations = (int(round(_uniform(-max_dx, max_dx))),
                            int(round(_uniform(-max_dy, max_dy))))
        scale = 1.0 if scale_ranges is None else _uniform(scale_ranges[0], scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        params = self.get_params(self.degrees, self.translate, self.scale, self.shear,
                                 [width, height])
        return F.affine(img, *params, interpolation=self.interpolation, fill=fill,
                        center=self.center)

    def __repr__(self) -> str:
        text = f"{self.__class__.__name__}(degrees={self.degrees}"
        text += f", translate={self.translate}" if self.translate is not None else ""
        text += f", scale={self.scale}" if self.scale is not None else ""
        text += f", shear={self.shear}" if self.shear is not None else ""
        if self.interpolation != InterpolationMode.NEAREST:
            text += f", interpolation={self.interpolation.value}"
        text += f", fill={self.fill}" if self.fill != 0 else ""
        text += f", center={self.center}" if self.center is not None else ""
        return text + ")"


class FiveCrop(Module):
    """The four corner crops and the centre crop of the given size, as a tuple."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img) -> tuple:
        return F.five_crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(Module):
    """FiveCrop of the image and of its horizontal (or vertical) mirror, as a tuple."""

    def __init__(self, size, vertical_flip: bool = False):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.vertical_flip = vertical_flip

    def forward(self, img) -> tuple:
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class RandomPerspective(Module):
    """With probability p, move each corner inwards by up to distortion_scale times half
    the image size and warp the image accordingly."""

    def __init__(self, distortion_scale: float = 0.5, p: float = 0.5,
                 interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.p = p
        if isinstance(interpolation, int):
            interpolation = F._interpolation(interpolation)
        self.interpolation = interpolation
        self.distortion_scale = distortion_scale
        self.fill = _check_fill(fill)

    @staticmethod
    def get_params(width: int, height: int, distortion_scale: float) -> tuple:
        """(startpoints, endpoints): the corners, and where each moves (drawn top-left,
        top-right, bottom-right, bottom-left; x before y)."""
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))
        near_x, near_y = (0, dx + 1), (0, dy + 1)                  # draw ranges from 0
        far_x, far_y = (width - dx - 1, width), (height - dy - 1, height)
        endpoints = [[_randint(*x_range), _randint(*y_range)] for x_range, y_range in
                     [(near_x, near_y), (far_x, near_y), (far_x, far_y), (near_x, far_y)]]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, endpoints

    def forward(self, img):
        fill = _fill_for(img, self.fill)
        _, height, width = F.get_dimensions(img)
        if _coin(self.p):
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class LinearTransformation(Module):
    """Flatten each (C, H, W) image, subtract mean_vector and multiply by
    transformation_matrix (D x D, D = C * H * W), e.g. for ZCA whitening."""

    def __init__(self, transformation_matrix: Tensor, mean_vector: Tensor):
        super().__init__()
        size = tuple(transformation_matrix.size())
        if size[0] != size[1]:
            raise ValueError(f"transformation_matrix should be square. Got {size} rectangular "
                             "matrix.")
        if mean_vector.size(0) != size[0]:
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} "
                             f"as any one of the dimensions of the transformation_matrix "
                             f"[{size}]")
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError(f"Input tensors should have the same dtype. Got "
                             f"{transformation_matrix.dtype} and {mean_vector.dtype}")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def forward(self, tensor: Tensor) -> Tensor:
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != "
                             f"{self.transformation_matrix.shape[0]}")
        flat = tensor.reshape(-1, n) - self.mean_vector
        return flat.mm(self.transformation_matrix.to(flat.dtype)).reshape(shape)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(transformation_matrix="
                f"{self.transformation_matrix.tolist()}, "
                f"mean_vector={self.mean_vector.tolist()})")


def _float_pair(value, name: str) -> list:
    """ElasticTransform's alpha and sigma: a float, or a sequence of one or two floats."""
    if not isinstance(value, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
    if isinstance(value, Sequence) and len(value) != 2:
        raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
    if isinstance(value, Sequence):
        for element in value:
            if not isinstance(element, float):
                raise TypeError(f"{name} should be a sequence of floats. Got {type(element)}")
    return [float(value), float(value)] if isinstance(value, float) else value


class ElasticTransform(Module):
    """Move each pixel by a random displacement field: uniform noise in [-1, 1] smoothed
    by a Gaussian of std sigma and scaled by alpha (in pixels), per axis."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR,
                 fill=0):
        super().__init__()
        self.alpha = _float_pair(alpha, "alpha")
        self.sigma = _float_pair(sigma, "sigma")
        if isinstance(interpolation, int):
            interpolation = F._interpolation(interpolation)
        self.interpolation = interpolation
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got "
                            f"{type(fill)}")
        self.fill = fill

    @staticmethod
    def get_params(alpha: list, sigma: list, size: list) -> Tensor:
        """The displacement (1, H, W, 2) in grid units: x's noise is drawn, then y's."""
        fields = []
        for axis in range(2):
            field = rand([1, 1] + list(size)) * 2 - 1
            if sigma[axis] > 0.0:
                k = int(8 * sigma[axis] + 1)
                k += 1 - k % 2  # the kernel size must be odd
                field = F.gaussian_blur(field, [k, k], sigma)
            # normalized by the width for x, the height for y
            fields.append(field * alpha[axis] / size[1 - axis])
        return cat(fields, 1).permute([0, 2, 3, 1])

    def forward(self, tensor):
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(alpha={self.alpha}, sigma={self.sigma}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class ColorJitter(Module):
    """Random brightness, contrast, saturation and hue changes, applied in random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0) -> None:
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5),
                                     clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name: str, center: float = 1, bound=(0, float("inf")),
                     clip_first_on_zero: bool = True):
        """A factor range (min, max), or None when it can only be the identity."""
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        if value[0] == value[1] == center:
            return None
        return tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue) -> tuple:
        """The order of the four adjustments and each factor (None: not applied)."""
        order = randperm(4)
        factors = [None if r is None else _uniform(r[0], r[1])
                   for r in (brightness, contrast, saturation, hue)]
        return (order, *factors)

    def forward(self, img):
        order, *factors = self.get_params(self.brightness, self.contrast, self.saturation,
                                          self.hue)
        adjust = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for index in order.tolist():
            if factors[index] is not None:
                img = adjust[index](img, factors[index])
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(brightness={self.brightness}, "
                f"contrast={self.contrast}, saturation={self.saturation}, hue={self.hue})")


class Grayscale(Module):
    def __init__(self, num_output_channels: int = 1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(Module):
    """With probability p, grey the image keeping its number of channels."""

    def __init__(self, p: float = 0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        channels = F.get_dimensions(img)[0]
        if _coin(self.p):
            return F.rgb_to_grayscale(img, num_output_channels=channels)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class GaussianBlur(Module):
    """Blur with a kernel_size Gaussian whose sigma is drawn uniformly from sigma."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "Kernel size should be a tuple/list of "
                                                    "two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class RandomErasing(Module):
    """With probability p, overwrite a random box of a tensor image (value: a number, one
    per channel, or "random" for standard normal noise)."""

    def __init__(self, p: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0,
                 inplace: bool = False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p = p
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    @staticmethod
    def get_params(img: Tensor, scale, ratio, value=None) -> tuple:
        """(i, j, h, w, v): the box and what to write; the whole image itself when 10 tries
        find no box that fits."""
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = log(tensor(ratio)).tolist()
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = empty([img_c, h, w], dtype=_dtype.float32).normal_()
            else:
                v = tensor(value)[:, None, None]
            return _randint(0, img_h - h + 1), _randint(0, img_w - w + 1), h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img: Tensor) -> Tensor:
        if not _coin(self.p):
            return img
        if isinstance(self.value, (int, float)):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = list(self.value)
        if value is not None and len(value) not in (1, img.shape[-3]):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{img.shape[-3]} (number of input channels)")
        x, y, h, w, v = self.get_params(img, scale=self.scale, ratio=self.ratio, value=value)
        return F.erase(img, x, y, h, w, v, self.inplace)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, "
                f"ratio={self.ratio}, value={self.value}, inplace={self.inplace})")


class Lambda:
    """Wrap a user function as a transform."""

    def __init__(self, lambd: Callable):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got "
                            f"{repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class RandomApply(Module):
    """Apply the list of transforms, all together, with probability p."""

    def __init__(self, transforms, p: float = 0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, img):
        if self.p < rand(1).item():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        return _format_list(self.__class__.__name__, self.transforms, f"\n    p={self.p}")


class RandomTransforms:
    def __init__(self, transforms: Sequence):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__ "
                                  "(RandomTransforms is an abstract base)")

    def __repr__(self) -> str:
        return _format_list(self.__class__.__name__, self.transforms)


class RandomOrder(RandomTransforms):
    """Apply all the transforms in a random order."""

    def __call__(self, img):
        for i in randperm(len(self.transforms)).tolist():
            img = self.transforms[i](img)
        return img


class RandomChoice(RandomTransforms):
    """Apply one transform picked at random (with weights p, uniform by default)."""

    def __init__(self, transforms: Sequence, p: list | None = None) -> None:
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        if p and len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: "
                             f"{len(p)} != {len(transforms)}")
        self.p = p

    def __call__(self, *args):
        weights = np.cumsum(self.p if self.p else [1.0] * len(self.transforms))
        pick = int(np.searchsorted(weights, rand(1).item() * weights[-1], side="right"))
        return self.transforms[min(pick, len(self.transforms) - 1)](*args)

    def __repr__(self) -> str:
        return f"{super().__repr__()}(p={self.p})"
