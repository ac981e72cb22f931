"""Image operations on PIL images (Pillow does the resampling and colour math)."""
from __future__ import annotations

import numpy as np

from .._pil import is_pil_image, pil_image
from . import _functional_tensor as F_t


def assert_pil(img) -> None:
    if not is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img) -> list:
    assert_pil(img)
    width, height = img.size
    return [len(img.getbands()), height, width]


def hflip(img):
    assert_pil(img)
    return img.transpose(pil_image().Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    assert_pil(img)
    return img.transpose(pil_image().Transpose.FLIP_TOP_BOTTOM)


def crop(img, top: int, left: int, height: int, width: int):
    assert_pil(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size: list, resample: int):
    assert_pil(img)
    return img.resize(tuple(size[::-1]), resample)


def pad(img, ltrb: list, fill, padding_mode: str):
    assert_pil(img)
    array = np.asarray(img)
    fill = parse_fill(fill, img)
    padded = F_t.pad_array(array, ltrb, fill, padding_mode, channels_last=True)
    Image = pil_image()
    if img.mode == "1":
        out = Image.fromarray(padded)
    else:
        out = Image.frombytes(img.mode, (padded.shape[1], padded.shape[0]), padded.tobytes())
    if img.mode == "P":
        out.putpalette(img.getpalette())
    return out


def parse_fill(fill, img):
    """One fill value per band, as Pillow expects (ints except for mode 'F')."""
    bands = get_dimensions(img)[0]
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = (fill,) * bands
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError("The number of elements in 'fill' does not match the number of "
                             f"channels of the image ({len(fill)} != {bands})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return fill


def rotate(img, angle: float, resample: int, expand: bool, center, fill):
    assert_pil(img)
    return img.rotate(angle, resample, expand, center, fillcolor=parse_fill(fill, img))


def _transform(img, method: str, data: list, resample: int, fill):
    """Pillow's Image.transform keeping the size; data maps output to input points."""
    assert_pil(img)
    return img.transform(img.size, getattr(pil_image().Transform, method), data, resample,
                         fillcolor=parse_fill(fill, img))


def affine(img, matrix: list, resample: int, fill):
    return _transform(img, "AFFINE", matrix, resample, fill)


def perspective(img, coeffs: list, resample: int, fill):
    return _transform(img, "PERSPECTIVE", coeffs, resample, fill)


def _enhance(img, enhancer: str, factor: float):
    assert_pil(img)
    from PIL import ImageEnhance
    return getattr(ImageEnhance, enhancer)(img).enhance(factor)


def adjust_brightness(img, factor: float):
    return _enhance(img, "Brightness", factor)


def adjust_contrast(img, factor: float):
    return _enhance(img, "Contrast", factor)


def adjust_saturation(img, factor: float):
    return _enhance(img, "Color", factor)


def adjust_hue(img, factor: float):
    assert_pil(img)
    mode = img.mode
    if mode in ("L", "1", "I", "F"):
        return img
    h, s, v = img.convert("HSV").split()
    # hue is stored as 0..255 and wraps around
    shifted = (np.asarray(h).astype(np.int64) + int(np.int8(factor * 255))) % 256
    h = pil_image().fromarray(shifted.astype(np.uint8))
    return pil_image().merge("HSV", (h, s, v)).convert(mode)


def rgb_to_grayscale(img, num_output_channels: int):
    assert_pil(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = img.convert("L")
    if num_output_channels == 3:
        return pil_image().merge("RGB", (gray, gray, gray))
    return gray


def _image_ops(img, name: str, *args):
    assert_pil(img)
    from PIL import ImageOps
    return getattr(ImageOps, name)(img, *args)


def invert(img):
    return _image_ops(img, "invert")


def posterize(img, bits: int):
    return _image_ops(img, "posterize", bits)


def solarize(img, threshold: int):
    return _image_ops(img, "solarize", threshold)


def autocontrast(img):
    return _image_ops(img, "autocontrast")


def equalize(img):
    return _image_ops(img, "equalize")


def adjust_sharpness(img, factor: float):
    return _enhance(img, "Sharpness", factor)


def adjust_gamma(img, gamma: float, gain: float = 1.0):
    """Map each level v of the RGB image to int(255.999 * gain * (v / 255) ** gamma)."""
    assert_pil(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    mode = img.mode
    table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)]
    return img.convert("RGB").point(table * 3).convert(mode)


def get_image_size(img) -> list:
    _, height, width = get_dimensions(img)
    return [width, height]


def get_image_num_channels(img) -> int:
    return get_dimensions(img)[0]


def to_grayscale(img, num_output_channels: int):
    return rgb_to_grayscale(img, num_output_channels)
