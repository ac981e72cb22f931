"""torchvision.transforms.functional: each function takes a PIL image or a tensor image
of shape (..., C, H, W) and dispatches to the PIL or the tensor implementation."""
from __future__ import annotations

import math
import numbers
import warnings
from enum import Enum
from typing import Sequence

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from .._pil import is_pil_image, pil_image
from . import _functional_pil as F_pil
from . import _functional_tensor as F_t

__all__ = ["InterpolationMode", "get_dimensions", "get_image_size", "get_image_num_channels",
           "to_tensor", "pil_to_tensor", "to_pil_image", "convert_image_dtype", "normalize",
           "resize", "crop", "center_crop", "resized_crop", "hflip", "vflip", "pad", "rotate",
           "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
           "rgb_to_grayscale", "to_grayscale", "gaussian_blur", "erase", "invert",
           "posterize", "solarize", "adjust_sharpness", "autocontrast", "equalize",
           "adjust_gamma", "affine", "perspective", "five_crop", "ten_crop",
           "elastic_transform"]


class InterpolationMode(Enum):
    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's resampling constants for each mode
_PIL_RESAMPLE = {InterpolationMode.NEAREST: 0, InterpolationMode.NEAREST_EXACT: 0,
                 InterpolationMode.LANCZOS: 1, InterpolationMode.BILINEAR: 2,
                 InterpolationMode.BICUBIC: 3, InterpolationMode.BOX: 4,
                 InterpolationMode.HAMMING: 5}
_FROM_PIL_INT = {0: InterpolationMode.NEAREST, 1: InterpolationMode.LANCZOS,
                 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
                 4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING}


def _interpolation(mode) -> InterpolationMode:
    if isinstance(mode, int) and mode in _FROM_PIL_INT:
        return _FROM_PIL_INT[mode]
    if not isinstance(mode, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a "
                        "corresponding Pillow integer constant")
    return mode


def get_dimensions(img) -> list:
    """[channels, height, width]."""
    if isinstance(img, Tensor):
        return F_t.get_dimensions(img)
    return F_pil.get_dimensions(img)


def get_image_size(img) -> list:
    """[width, height]."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img) -> int:
    return get_dimensions(img)[0]


# --- conversions ----------------------------------------------------------------------

def to_tensor(pic) -> Tensor:
    """PIL image or HWC ndarray -> CHW tensor; uint8 data is scaled to float in [0, 1]."""
    if not (is_pil_image(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        array = _pil_array(pic)
    chw = np.ascontiguousarray(array.transpose(2, 0, 1))
    if chw.dtype == np.uint8:
        return Tensor._wrap(chw.astype(_dtype.get_default_dtype().numpy) / 255)
    return Tensor._wrap(chw)


def _pil_array(pic) -> np.ndarray:
    """The pixels of a PIL image as an (H, W, C) array ('1' becomes 0/255 uint8)."""
    wide = {"I": np.int32, "I;16": np.int16, "F": np.float32}
    array = np.array(pic, dtype=wide.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        array = array * np.uint8(255)
    return array.reshape(pic.size[1], pic.size[0], len(pic.getbands()))


def pil_to_tensor(pic) -> Tensor:
    """PIL image -> CHW tensor keeping the pixel type (no scaling)."""
    if not is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    array = np.array(pic, copy=True)
    array = array.reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    return Tensor._wrap(np.ascontiguousarray(array.transpose(2, 0, 1)))


_MODES_BY_CHANNELS = {2: ["LA"], 4: ["RGBA", "CMYK", "RGBX"], 3: ["RGB", "YCbCr", "HSV"]}
_SINGLE_CHANNEL_MODES = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16",
                         np.dtype(np.uint16): "I;16", np.dtype(np.int32): "I",
                         np.dtype(np.float32): "F"}


def to_pil_image(pic, mode: str | None = None):
    """CHW tensor or HWC ndarray -> PIL image; float tensors are scaled by 255."""
    if isinstance(pic, Tensor):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        data = pic.numpy(force=True)
        data = data[None] if pic.ndim == 2 else data
        if data.shape[-3] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {data.shape[-3]} "
                             "channels.")
        if data.dtype.kind == "f" and mode != "F":
            data = (data * 255).astype(np.uint8)
        array = np.transpose(data, (1, 2, 0))
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic[:, :, None] if pic.ndim == 2 else pic
        if array.shape[-1] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {array.shape[-1]} "
                             "channels.")
    else:
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    Image = pil_image()
    channels = array.shape[2]
    if channels == 1:
        array = array[:, :, 0]
        expected = _SINGLE_CHANNEL_MODES.get(array.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type "
                             f"{array.dtype}. Should be {expected}")
        mode = expected
    else:
        permitted = _MODES_BY_CHANNELS[channels]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {channels}D inputs")
        if mode is None and array.dtype == np.uint8:
            mode = permitted[0]
    if mode is None:
        raise TypeError(f"Input type {array.dtype} is not supported")
    if mode == "I;16":
        array = array.astype("<u2")
    array = np.ascontiguousarray(array)
    return Image.frombytes(mode, (array.shape[1], array.shape[0]), array.tobytes())


def convert_image_dtype(image: Tensor, dtype: _dtype.dtype = _dtype.float32) -> Tensor:
    """Change the pixel type, rescaling values to the new type's intensity range."""
    if not isinstance(image, Tensor):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, dtype)


def normalize(tensor: Tensor, mean: Sequence[float], std: Sequence[float],
              inplace: bool = False) -> Tensor:
    """(tensor - mean) / std per channel; recorded by autograd like any ember op."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). "
                         f"Got tensor.size() = {tensor.size()}")
    from ... import as_tensor
    mean = as_tensor(mean, dtype=tensor.dtype)
    std = as_tensor(std, dtype=tensor.dtype)
    if bool((std == 0).any()):
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, "
                         "leading to division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    if not inplace:
        return (tensor - mean) / std
    return tensor.sub_(mean).div_(std)


# --- geometry -------------------------------------------------------------------------

def _resized_size(height: int, width: int, size: list, max_size: int | None) -> list:
    """[h, w] after resize: one number resizes the smaller edge, keeping the aspect ratio."""
    if len(size) != 1:
        if max_size is not None:
            raise ValueError("max_size should only be passed if size specifies the length of "
                             "the smaller edge, i.e. size should be an int or a sequence of "
                             "length 1 in torchscript mode.")
        return [size[0], size[1]]
    short, long = (width, height) if width <= height else (height, width)
    new_short, new_long = size[0], int(size[0] * long / short)
    if max_size is not None:
        if max_size <= new_short:
            raise ValueError(f"max_size = {max_size} must be strictly greater than the "
                             f"requested size for the smaller edge size = {size[0]}")
        if new_long > max_size:
            new_short, new_long = int(max_size * new_short / new_long), max_size
    return [new_long, new_short] if width <= height else [new_short, new_long]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size: int | None = None,
           antialias: bool | None = True):
    """Resize to size (h, w), or scale so the smaller edge equals an int size."""
    interpolation = _interpolation(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in (1, 2):
            raise ValueError("Size must be an int or a 1 or 2 element tuple/list, not a "
                             f"{len(size)} element tuple/list")
    elif isinstance(size, int):
        size = [size]
    else:
        raise TypeError(f"Size should be int or sequence. Got {type(size)}")
    _, height, width = get_dimensions(img)
    output = _resized_size(height, width, list(size), max_size)
    if output == [height, width]:
        return img
    if isinstance(img, Tensor):
        return F_t.resize(img, output, interpolation.value, bool(antialias))
    if antialias is False:
        warnings.warn("Anti-alias option is always applied for PIL Image input. Argument "
                      "antialias is ignored.")
    return F_pil.resize(img, output, _PIL_RESAMPLE[interpolation])


def crop(img, top: int, left: int, height: int, width: int):
    """The box at (top, left) of the given size; parts outside the image are filled with 0."""
    if isinstance(img, Tensor):
        return F_t.crop(img, top, left, height, width)
    return F_pil.crop(img, top, left, height, width)


def _pair(size, name: str = "size") -> tuple:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return size[0], size[0]
    return tuple(size)


def center_crop(img, output_size):
    """Crop the centre; an image smaller than output_size is first padded with zeros."""
    crop_h, crop_w = _pair(output_size)
    _, height, width = get_dimensions(img)
    if crop_w > width or crop_h > height:
        ltrb = [(crop_w - width) // 2 if crop_w > width else 0,
                (crop_h - height) // 2 if crop_h > height else 0,
                (crop_w - width + 1) // 2 if crop_w > width else 0,
                (crop_h - height + 1) // 2 if crop_h > height else 0]
        img = pad(img, ltrb, fill=0)
        _, height, width = get_dimensions(img)
        if crop_w == width and crop_h == height:
            return img
    top = int(round((height - crop_h) / 2.0))
    left = int(round((width - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def resized_crop(img, top: int, left: int, height: int, width: int, size,
                 interpolation=InterpolationMode.BILINEAR, antialias: bool | None = True):
    return resize(crop(img, top, left, height, width), size, interpolation,
                  antialias=antialias)


def _crop_size(size) -> tuple:
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return size


def five_crop(img, size) -> tuple:
    """The four corner crops and the centre crop: (top-left, top-right, bottom-left,
    bottom-right, centre)."""
    crop_h, crop_w = size = _crop_size(size)
    _, height, width = get_dimensions(img)
    if crop_w > width or crop_h > height:
        raise ValueError(f"Requested crop size {size} is bigger than input size "
                         f"{(height, width)}")
    bottom, right = height - crop_h, width - crop_w
    corners = [crop(img, top, left, crop_h, crop_w)
               for top, left in [(0, 0), (0, right), (bottom, 0), (bottom, right)]]
    return (*corners, center_crop(img, [crop_h, crop_w]))


def ten_crop(img, size, vertical_flip: bool = False) -> tuple:
    """five_crop of the image, then five_crop of its horizontal (or vertical) mirror."""
    size = _crop_size(size)
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def hflip(img):
    return F_t.hflip(img) if isinstance(img, Tensor) else F_pil.hflip(img)


def vflip(img):
    return F_t.vflip(img) if isinstance(img, Tensor) else F_pil.vflip(img)


def _padding_ltrb(padding) -> list:
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, numbers.Number):
        return [int(padding)] * 4
    if len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return list(padding)


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pad each border: an int for all, (left/right, top/bottom) or (left, top, right,
    bottom); padding_mode constant (with fill), edge, reflect or symmetric."""
    ltrb = _padding_ltrb(padding)
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if isinstance(img, Tensor):
        return F_t.pad(img, ltrb, 0 if fill is None else fill, padding_mode)
    return F_pil.pad(img, ltrb, fill, padding_mode)


def _inverse_affine_matrix(center: list, angle: float, translate: list, scale: float,
                           shear: list) -> list:
    """The 2x3 matrix (row-major) mapping output points to input points for the map
    M = T(translate) C RSS C^-1: a rotation by angle degrees (clockwise on screen), the
    shears shear[0] (along x) and shear[1] (along y) in degrees and the scaling, all about
    center, then the translation. Pillow and the tensor kernels both sample with M^-1."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    # RSS = R(angle) SHy(sy) SHx(sx) without the scale; its determinant is 1
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    matrix = [x / scale for x in [d, -b, 0.0, -c, a, 0.0]]  # RSS^-1 with the scale
    # then C RSS^-1 C^-1 T^-1
    matrix[2] += matrix[0] * (-cx - tx) + matrix[1] * (-cy - ty)
    matrix[5] += matrix[3] * (-cx - tx) + matrix[4] * (-cy - ty)
    matrix[2] += cx
    matrix[5] += cy
    return matrix


def _centered(center, width: int, height: int) -> list:
    """A center given from the top-left corner, taken from the image centre (the tensor
    kernels' origin); None is the centre itself."""
    if center is None:
        return [0.0, 0.0]
    return [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]


def rotate(img, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False,
           center: list | None = None, fill: list | None = None):
    """Rotate counter-clockwise by angle degrees about center (default: the image centre)."""
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, Tensor):
        return F_pil.rotate(img, angle, _PIL_RESAMPLE[interpolation], expand, center, fill)
    _, height, width = get_dimensions(img)
    # affine's angle turns clockwise, rotate's counter-clockwise
    matrix = _inverse_affine_matrix(_centered(center, width, height), -angle, [0.0, 0.0],
                                    1.0, [0.0, 0.0])
    return F_t.rotate(img, matrix, interpolation.value, expand, fill)


def affine(img, angle: float, translate: list, scale: float, shear,
           interpolation=InterpolationMode.NEAREST, fill: list | None = None,
           center: list | None = None):
    """Rotate by angle degrees (clockwise), shear by shear degrees (a number shears along
    x; (sx, sy) along both) and scale, all about center (default: the image centre),
    then translate by (tx, ty) pixels; the image keeps its size."""
    interpolation = _interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    angle = float(angle)
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    _, height, width = get_dimensions(img)
    if not isinstance(img, Tensor):
        # Pillow's origin is the top-left corner; the centre is taken without a half-pixel
        # offset, as torchvision does
        center = [width * 0.5, height * 0.5] if center is None else center
        matrix = _inverse_affine_matrix(center, angle, list(translate), scale, shear)
        return F_pil.affine(img, matrix, _PIL_RESAMPLE[interpolation], fill)
    translate = [1.0 * t for t in translate]
    matrix = _inverse_affine_matrix(_centered(center, width, height), angle, translate,
                                    scale, shear)
    return F_t.affine(img, matrix, interpolation.value, fill)


def _perspective_coeffs(startpoints: list, endpoints: list) -> list:
    """The eight coefficients of the perspective map taking each endpoint to its
    startpoint (output to input, as Pillow samples), solved by least squares in float64
    and rounded to float32."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} "
                         f"startpoints and {len(endpoints)} endpoints.")
    rows = []
    for (x, y), (u, v) in zip(endpoints, startpoints):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    targets = np.array(startpoints, dtype=np.float64).reshape(8)
    solution = np.linalg.lstsq(np.array(rows, dtype=np.float64), targets, rcond=None)[0]
    return solution.astype(np.float32).tolist()


def perspective(img, startpoints: list, endpoints: list,
                interpolation=InterpolationMode.BILINEAR, fill: list | None = None):
    """Warp the image so that the four startpoints (corners, [x, y]) land on endpoints."""
    coeffs = _perspective_coeffs(startpoints, endpoints)
    interpolation = _interpolation(interpolation)
    if not isinstance(img, Tensor):
        return F_pil.perspective(img, coeffs, _PIL_RESAMPLE[interpolation], fill)
    return F_t.perspective(img, coeffs, interpolation.value, fill)


def elastic_transform(img, displacement: Tensor, interpolation=InterpolationMode.BILINEAR,
                      fill: list | None = None):
    """Sample the image at its pixel grid moved by displacement (1, H, W, 2), given in
    grid_sample's [-1, 1] units; PIL images go through a uint8 tensor and back."""
    if isinstance(interpolation, int):
        warnings.warn("Argument interpolation should be of type InterpolationMode instead of "
                      "int. Please, use InterpolationMode enum.")
    interpolation = _interpolation(interpolation)
    if not isinstance(displacement, Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    tensor_img = img
    if not isinstance(img, Tensor):
        if not is_pil_image(img):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        tensor_img = pil_to_tensor(img)
    shape = (1,) + tensor_img.shape[-2:] + (2,)
    if displacement.shape != shape:
        raise ValueError(f"Argument displacement shape should be {shape}, but given "
                         f"{displacement.shape}")
    out = F_t.elastic_transform(tensor_img, displacement, interpolation.value, fill)
    return out if isinstance(img, Tensor) else to_pil_image(out, mode=img.mode)


# --- colour ---------------------------------------------------------------------------

def _check_factor(value: float, name: str) -> None:
    if value < 0:
        raise ValueError(f"{name} ({value}) is not non-negative.")


def adjust_brightness(img, brightness_factor: float):
    """Blend with black: 0 gives black, 1 the original image."""
    _check_factor(brightness_factor, "brightness_factor")
    if isinstance(img, Tensor):
        return F_t.adjust_brightness(img, brightness_factor)
    return F_pil.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    """Blend with the mean grey level: 0 gives a flat grey image."""
    _check_factor(contrast_factor, "contrast_factor")
    if isinstance(img, Tensor):
        return F_t.adjust_contrast(img, contrast_factor)
    return F_pil.adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    """Blend with the greyscale image: 0 gives black and white."""
    _check_factor(saturation_factor, "saturation_factor")
    if isinstance(img, Tensor):
        return F_t.adjust_saturation(img, saturation_factor)
    return F_pil.adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor: float):
    """Shift the hue channel (in HSV) by hue_factor turns, in [-0.5, 0.5]."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if isinstance(img, Tensor):
        return F_t.adjust_hue(img, hue_factor)
    return F_pil.adjust_hue(img, hue_factor)


def rgb_to_grayscale(img, num_output_channels: int = 1):
    """Luma L = 0.2989 R + 0.587 G + 0.114 B (Pillow's 299/587/114 for PIL images)."""
    if isinstance(img, Tensor):
        return F_t.rgb_to_grayscale(img, num_output_channels)
    return F_pil.rgb_to_grayscale(img, num_output_channels)


def to_grayscale(img, num_output_channels: int = 1):
    """PIL-only spelling of rgb_to_grayscale."""
    F_pil.assert_pil(img)
    return F_pil.rgb_to_grayscale(img, num_output_channels)


def _dispatch(name: str, img, *args):
    """Call the tensor or the PIL implementation of `name` for img."""
    return getattr(F_t if isinstance(img, Tensor) else F_pil, name)(img, *args)


def invert(img):
    """Invert the colours: v becomes (full intensity - v)."""
    return _dispatch("invert", img)


def posterize(img, bits: int):
    """Keep the top `bits` bits (0-8) of each channel (uint8 tensors or PIL images)."""
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    return _dispatch("posterize", img, bits)


def solarize(img, threshold: float):
    """Invert the pixels whose value is at least threshold."""
    return _dispatch("solarize", img, threshold)


def adjust_sharpness(img, sharpness_factor: float):
    """Blend with a smoothed copy: 0 gives the smoothed image, 1 the original, 2 doubles
    the sharpness."""
    return _dispatch("adjust_sharpness", img, sharpness_factor)


def autocontrast(img):
    """Stretch each channel so its darkest pixel becomes black and its lightest white."""
    return _dispatch("autocontrast", img)


def equalize(img):
    """Equalize the histogram of each channel (uint8 tensors or PIL images)."""
    return _dispatch("equalize", img)


def adjust_gamma(img, gamma: float, gain: float = 1):
    """Gamma correction: v becomes gain * v ** gamma, on intensities scaled to [0, 1]."""
    return _dispatch("adjust_gamma", img, gamma, gain)


# --- filtering and erasing ------------------------------------------------------------

def gaussian_blur(img, kernel_size, sigma=None):
    """Blur with a Gaussian kernel (odd sizes; sigma defaults to 0.3 * ((k - 1) * 0.5 - 1)
    + 0.8 per axis, as OpenCV and torchvision)."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError("kernel_size should be int or a sequence of integers. Got "
                        f"{type(kernel_size)}")
    kernel_size = [kernel_size, kernel_size] if isinstance(kernel_size, int) else \
        list(kernel_size)
    if len(kernel_size) != 2:
        raise ValueError("If kernel_size is a sequence its length should be 2. Got "
                         f"{len(kernel_size)}")
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got "
                             f"{kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got "
                        f"{type(sigma)}")
    sigma = [float(sigma)] * 2 if isinstance(sigma, (int, float)) else [float(s) for s in sigma]
    if len(sigma) == 1:
        sigma = sigma * 2
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    if any(s <= 0 for s in sigma):
        raise ValueError(f"sigma should have positive values. Got {sigma}")
    if isinstance(img, Tensor):
        return F_t.gaussian_blur(img, kernel_size, sigma)
    blurred = F_t.gaussian_blur(pil_to_tensor(img), kernel_size, sigma)
    return to_pil_image(blurred, mode=img.mode)


def erase(img: Tensor, i: int, j: int, h: int, w: int, v, inplace: bool = False) -> Tensor:
    """Set img[..., i:i+h, j:j+w] to v (a value or a tensor broadcastable to the box)."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img

