"""Image operations on tensors of shape (..., C, H, W), computed on their NumPy arrays.

These are data-pipeline operations: they transform values and do not record autograd
history (torchvision's normalize and erase, which do, live in functional.py on ember ops).
Integer images are processed in float and rounded back, as torchvision does.
"""
from __future__ import annotations

import numpy as np

from ... import _dtype, linspace
from ..._tensor import Tensor
from ...nn.functional.grid import grid_sample
from ...nn.functional.vision import interpolate
from .. import _unavailable

# ITU-R 601-2 luma weights as torchvision writes them for tensors.
_LUMA = (0.2989, 0.587, 0.114)


def _wrap(array: np.ndarray) -> Tensor:
    return Tensor._wrap(np.ascontiguousarray(array))


def assert_image_tensor(img: Tensor) -> None:
    if img.ndim < 2:
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img: Tensor) -> list:
    assert_image_tensor(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    return [channels, img.shape[-2], img.shape[-1]]


def assert_channels(img: Tensor, permitted: list) -> None:
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, "
                        f"but found {c}")


def max_value(dt: _dtype.dtype) -> float | int:
    """The value of full intensity: 1.0 for float images, the type's maximum for integers."""
    if dt.is_floating_point:
        return 1.0
    if dt is _dtype.bool:
        return 1
    return int(np.iinfo(dt.numpy).max)


def _float_array(img: Tensor) -> tuple[np.ndarray, np.dtype]:
    """img's values as a float array to compute on, and the dtype to give the result."""
    data = img.numpy(force=True)
    if data.dtype.kind == "f":
        return data, data.dtype
    return data.astype(np.float32), data.dtype


def _cast_back(result: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "f":
        return result.astype(dtype, copy=False)
    info = np.iinfo(dtype)
    return np.clip(np.round(result), info.min, info.max).astype(dtype)


def convert_image_dtype(image: Tensor, dtype: _dtype.dtype) -> Tensor:
    src = image.dtype
    if src is dtype:
        return image
    data = image.numpy(force=True)
    if src.is_floating_point:
        if dtype.is_floating_point:
            return _wrap(data.astype(dtype.numpy))
        if (src is _dtype.float32 and dtype in (_dtype.int32, _dtype.int64)) or \
                (src is _dtype.float64 and dtype is _dtype.int64):
            raise RuntimeError(f"The cast from {src} to {dtype} cannot be performed safely.")
        # Scale by max + 1 - eps so that 1.0 maps to max and the bins stay equally wide.
        return _wrap((data * (max_value(dtype) + 1.0 - 1e-3)).astype(dtype.numpy))
    input_max = max_value(src)
    if dtype.is_floating_point:
        return _wrap(data.astype(dtype.numpy) / dtype.numpy.type(input_max))
    output_max = max_value(dtype)
    if input_max > output_max:
        factor = (input_max + 1) // (output_max + 1)
        return _wrap((data // factor).astype(dtype.numpy))
    factor = (output_max + 1) // (input_max + 1)
    return _wrap(data.astype(dtype.numpy) * dtype.numpy.type(factor))


def hflip(img: Tensor) -> Tensor:
    assert_image_tensor(img)
    return _wrap(img.numpy(force=True)[..., ::-1])


def vflip(img: Tensor) -> Tensor:
    assert_image_tensor(img)
    return _wrap(img.numpy(force=True)[..., ::-1, :])


def crop(img: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    """The box [top, top + height) x [left, left + width); parts outside the image are 0."""
    assert_image_tensor(img)
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        data = img.numpy(force=True)
        inside = data[..., max(top, 0):max(bottom, 0), max(left, 0):max(right, 0)]
        ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        return _wrap(pad_array(inside, ltrb, 0, "constant", channels_last=False))
    return _wrap(img.numpy(force=True)[..., top:bottom, left:right])


def pad_array(arr: np.ndarray, ltrb: list, fill, mode: str, channels_last: bool) -> np.ndarray:
    """Pad (or, for negative amounts, crop) the two spatial axes of an image array.

    channels_last=False: (..., H, W) tensors; True: (H, W[, C]) arrays from PIL images,
    where fill may give one value per channel.
    """
    left, top, right, bottom = ltrb
    h_axis = 0 if channels_last else arr.ndim - 2
    index = [slice(None)] * arr.ndim
    index[h_axis] = slice(max(-top, 0), arr.shape[h_axis] - max(-bottom, 0))
    index[h_axis + 1] = slice(max(-left, 0), arr.shape[h_axis + 1] - max(-right, 0))
    arr = arr[tuple(index)]
    widths = [(0, 0)] * arr.ndim
    widths[h_axis] = (max(top, 0), max(bottom, 0))
    widths[h_axis + 1] = (max(left, 0), max(right, 0))
    if mode != "constant":
        return np.pad(arr, widths, mode=mode)
    out_shape = [n + a + b for n, (a, b) in zip(arr.shape, widths)]
    out = np.empty(out_shape, dtype=arr.dtype)
    out[...] = np.asarray(fill).astype(arr.dtype)
    out[tuple(slice(a, a + n) for n, (a, _) in zip(arr.shape, widths))] = arr
    return out


def pad(img: Tensor, ltrb: list, fill, padding_mode: str) -> Tensor:
    assert_image_tensor(img)
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    data = img.numpy(force=True)
    return _wrap(pad_array(data, ltrb, fill, padding_mode, channels_last=False))


def rgb_to_grayscale(img: Tensor, num_output_channels: int = 1) -> Tensor:
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")
    assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = _gray_array(img.numpy(force=True))
    if num_output_channels == 3:
        gray = np.broadcast_to(gray, img.shape)
    return _wrap(gray)


def _gray_array(data: np.ndarray) -> np.ndarray:
    """Luma of (..., C, H, W) data, keeping the channel axis; integer types truncate."""
    if data.shape[-3] == 1:
        return data.copy()
    work = _work_dtype(data)
    r, g, b = (data[..., i:i + 1, :, :].astype(work) for i in range(3))
    luma = work.type(_LUMA[0]) * r + work.type(_LUMA[1]) * g + work.type(_LUMA[2]) * b
    return luma.astype(data.dtype)


def _work_dtype(data: np.ndarray) -> np.dtype:
    """The type torch computes an image's arithmetic in: float32 for integer images."""
    return data.dtype if data.dtype.kind == "f" else np.dtype(np.float32)


def _blend(img: np.ndarray, other: np.ndarray | float, ratio: float) -> np.ndarray:
    """ratio * img + (1 - ratio) * other in the work dtype, clamped to the intensity range
    and truncated back to img's type, as torchvision's _blend."""
    work = _work_dtype(img)
    bound = 1.0 if img.dtype.kind == "f" else float(np.iinfo(img.dtype).max)
    out = work.type(ratio) * img.astype(work) + \
        work.type(1.0 - ratio) * np.asarray(other).astype(work)
    return np.clip(out, 0, bound).astype(img.dtype)


def adjust_brightness(img: Tensor, factor: float) -> Tensor:
    assert_image_tensor(img)
    assert_channels(img, [1, 3])
    return _wrap(_blend(img.numpy(force=True), 0.0, factor))


def adjust_contrast(img: Tensor, factor: float) -> Tensor:
    assert_image_tensor(img)
    assert_channels(img, [1, 3])
    data = img.numpy(force=True)
    work = _work_dtype(data)
    mean = _gray_array(data).astype(work).mean(axis=(-3, -2, -1), keepdims=True)
    return _wrap(_blend(data, mean, factor))


def adjust_saturation(img: Tensor, factor: float) -> Tensor:
    assert_image_tensor(img)
    assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    data = img.numpy(force=True)
    return _wrap(_blend(data, _gray_array(data), factor))


def adjust_hue(img: Tensor, factor: float) -> Tensor:
    assert_image_tensor(img)
    assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:
        return img
    float_img = convert_image_dtype(img, _dtype.float32).numpy(force=True)
    h, s, v = rgb_to_hsv(float_img)
    rgb = hsv_to_rgb((h + factor) % 1.0, s, v)
    return convert_image_dtype(_wrap(rgb), img.dtype)


def rgb_to_hsv(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue, saturation and value planes (each in [0, 1]) of (..., 3, H, W) RGB in [0, 1]."""
    r, g, b = img[..., 0, :, :], img[..., 1, :, :], img[..., 2, :, :]
    maxc = np.maximum(np.maximum(r, g), b)
    minc = np.minimum(np.minimum(r, g), b)
    chroma = maxc - minc
    flat = chroma == 0  # grey pixels: hue and saturation are 0
    s = chroma / np.where(flat, 1.0, maxc)
    divisor = np.where(flat, 1.0, chroma)
    rc, gc, bc = (maxc - r) / divisor, (maxc - g) / divisor, (maxc - b) / divisor
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.fmod(h / 6.0 + 1.0, 1.0)
    return h.astype(img.dtype), s.astype(img.dtype), maxc


def hsv_to_rgb(h: np.ndarray, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    sector = np.floor(h * 6.0)
    f = h * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    # (r, g, b) for each of the six hue sectors
    table = np.stack([np.stack(c) for c in ((v, q, p, p, t, v), (t, v, v, q, p, p),
                                            (p, p, t, v, v, q))])
    rgb = np.take_along_axis(table, sector[None, None], axis=1)[:, 0]
    return np.moveaxis(rgb, 0, -3).astype(v.dtype)


# --- resampling -----------------------------------------------------------------------

def resize(img: Tensor, size: list, interpolation: str, antialias: bool) -> Tensor:
    """torchvision's: F.interpolate on the image as float32 (float64 stays), rounded back
    to an integer dtype; differentiable, as F.interpolate is. Leading dims are batch dims."""
    assert_image_tensor(img)
    if interpolation not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported for tensor "
                         "images; use nearest, nearest-exact, bilinear or bicubic")
    smooth = interpolation in ("bilinear", "bicubic")
    dtype = img.dtype
    x = img if dtype in (_dtype.float32, _dtype.float64) else img.to(_dtype.float32)
    *lead, h, w = x.shape
    batch = x if x.ndim == 4 else x.reshape(-1, 1, h, w)
    out = interpolate(batch, size=list(size), mode=interpolation,
                      align_corners=False if smooth else None, antialias=antialias and smooth)
    if x.ndim != 4:
        out = out.reshape(*lead, *size)
    if interpolation == "bicubic" and dtype is _dtype.uint8:
        out = out.clamp(0, 255)
    if dtype is x.dtype:
        return out
    return (out if dtype.is_floating_point else out.round()).to(dtype)


def affine_output_size(matrix: list, w: int, h: int) -> tuple[int, int]:
    """Width and height of the box holding the whole transformed image (rotate's expand)."""
    corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                        [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], np.float32)
    theta = np.array(matrix, dtype=np.float32).reshape(2, 3)
    points = corners @ theta.T + np.array([0.5 * w, 0.5 * h], np.float32)  # from the corner
    tol = 1e-4  # ignore float noise before rounding outward
    hi = np.ceil(np.trunc(points.max(axis=0) / tol) * tol)
    lo = np.floor(np.trunc(points.min(axis=0) / tol) * tol)
    size = hi - lo
    return int(size[0]), int(size[1])


def _check_grid_transform(img: Tensor, interpolation: str, fill) -> None:
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor")
    assert_image_tensor(img)
    channels = get_dimensions(img)[0]
    if isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != channels:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number "
                         f"of channels of the image ({len(fill)} != {channels})")
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor "
                         "input. Tensor images take nearest or bilinear.")


def _affine_grid(matrix: list, w: int, h: int, out_w: int, out_h: int,
                 dtype: np.dtype) -> np.ndarray:
    """torchvision's sampling grid (1, out_h, out_w, 2): the output pixel centres, taken
    from the output's centre, mapped by matrix and scaled by the input's half size."""
    theta = np.array(matrix, dtype=dtype).reshape(2, 3)
    scaled = theta.T / np.array([0.5 * w, 0.5 * h], dtype=dtype)  # (3, 2): x, y, 1 rows
    xs = (np.arange(out_w) - out_w * 0.5 + 0.5).astype(dtype)[None, :, None]
    ys = (np.arange(out_h) - out_h * 0.5 + 0.5).astype(dtype)[:, None, None]
    # summed in torch's order (its bmm over (x, y, 1) rows), for the same rounding
    return ((xs * scaled[0] + ys * scaled[1]) + scaled[2])[None]


def grid_transform(img: Tensor, grid: np.ndarray, interpolation: str, fill) -> Tensor:
    """Sample img (..., C, H, W) at grid (1, Ho, Wo, 2) with grid_sample (zeros outside,
    align_corners=False); where the point falls outside, `fill` (a number or one per
    channel) replaces the zeros. Integer images are sampled in float32 and rounded back."""
    data, dtype = _float_array(img)
    *lead, c, h, w = data.shape if img.ndim > 2 else (1, *data.shape)
    batch = data.reshape(-1, c, h, w)
    if fill is not None:  # a channel of ones tells how much of each output lies inside
        batch = np.concatenate([batch, np.ones_like(batch[:, :1])], axis=1)
    grid = np.broadcast_to(grid, (batch.shape[0], *grid.shape[1:]))
    out = grid_sample(Tensor._wrap(batch), Tensor._wrap(np.ascontiguousarray(grid)),
                      mode=interpolation, padding_mode="zeros", align_corners=False)
    out = out.numpy(force=True)
    if fill is not None:
        out, inside = out[:, :-1], out[:, -1:]
        fill = fill if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = np.array(fill, dtype=out.dtype).reshape(1, -1, 1, 1)
        if interpolation == "nearest":
            out = np.where(inside < 0.5, fill_img, out)
        else:
            out = out * inside + (1.0 - inside) * fill_img
    out = out.reshape(*lead, c, *out.shape[-2:]) if img.ndim > 2 else out[0, 0]
    return _wrap(_cast_back(out, dtype))


def _grid_dtype(img: Tensor) -> np.dtype:
    """The type torchvision builds sampling grids in: the image's float type, or float32."""
    return img.dtype.numpy if img.is_floating_point() else np.dtype(np.float32)


def rotate(img: Tensor, matrix: list, interpolation: str = "nearest", expand: bool = False,
           fill=None) -> Tensor:
    """Sample img at matrix @ (x, y, 1) for every output pixel (x, y), both taken from the
    image centre: `matrix` maps output to input points (the inverse of the rotation). With
    expand, the output is large enough for the whole rotated image."""
    _check_grid_transform(img, interpolation, fill)
    h, w = img.shape[-2:]
    out_w, out_h = affine_output_size(matrix, w, h) if expand else (w, h)
    grid = _affine_grid(matrix, w, h, out_w, out_h, _grid_dtype(img))
    return grid_transform(img, grid, interpolation, fill)


def affine(img: Tensor, matrix: list, interpolation: str = "nearest", fill=None) -> Tensor:
    """rotate's sampling for any inverse affine matrix, keeping the image size."""
    return rotate(img, matrix, interpolation, expand=False, fill=fill)


def _perspective_grid(coeffs: list, out_w: int, out_h: int, dtype: np.dtype) -> np.ndarray:
    """torchvision's grid for Pillow's perspective map of output pixel centres (x, y):
    ((c0 x + c1 y + c2) / (c6 x + c7 y + 1), (c3 x + c4 y + c5) / (c6 x + c7 y + 1)),
    normalized to [-1, 1] by the output size."""
    top = np.array([coeffs[0:3], coeffs[3:6]], dtype=dtype).T / \
        np.array([0.5 * out_w, 0.5 * out_h], dtype=dtype)           # (3, 2)
    bottom = np.array([[coeffs[6]] * 2, [coeffs[7]] * 2, [1.0, 1.0]], dtype=dtype)
    xs = (np.arange(out_w) + 0.5).astype(dtype)[None, :, None]
    ys = (np.arange(out_h) + 0.5).astype(dtype)[:, None, None]
    numerator = (xs * top[0] + ys * top[1]) + top[2]
    denominator = (xs * bottom[0] + ys * bottom[1]) + bottom[2]
    return (numerator / denominator - 1.0)[None]


def perspective(img: Tensor, coeffs: list, interpolation: str = "bilinear",
                fill=None) -> Tensor:
    _check_grid_transform(img, interpolation, fill)
    if len(coeffs) != 8:
        raise ValueError("Argument coeffs should have 8 float values")
    h, w = img.shape[-2:]
    grid = _perspective_grid(coeffs, w, h, _grid_dtype(img))
    return grid_transform(img, grid, interpolation, fill)


def elastic_transform(img: Tensor, displacement: Tensor, interpolation: str = "bilinear",
                      fill=None) -> Tensor:
    """Sample img at the identity grid plus displacement (1, H, W, 2), in grid units."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    h, w = img.shape[-2:]
    xs, ys = [linspace((1 - s) / s, (s - 1) / s, s).numpy() for s in (w, h)]  # torch's float32
    identity = np.stack(np.meshgrid(xs, ys), axis=-1)[None]  # (1, H, W, 2): x, y
    grid = identity + displacement.numpy(force=True)
    return grid_transform(img, grid, interpolation, fill)


def gaussian_kernel1d(kernel_size: int, sigma: float) -> np.ndarray:
    half = (kernel_size - 1) * 0.5
    x = np.linspace(-half, half, kernel_size)
    pdf = np.exp(-0.5 * (x / sigma) ** 2)
    return pdf / pdf.sum()


def gaussian_blur(img: Tensor, kernel_size: list, sigma: list) -> Tensor:
    """Separable Gaussian blur with reflect padding (torchvision's 2-D kernel is the outer
    product of the same two 1-D kernels)."""
    assert_image_tensor(img)
    data, dtype = _float_array(img)
    kx = gaussian_kernel1d(kernel_size[0], sigma[0]).astype(data.dtype)
    ky = gaussian_kernel1d(kernel_size[1], sigma[1]).astype(data.dtype)
    px, py = kernel_size[0] // 2, kernel_size[1] // 2
    padded = pad_array(data, [px, py, px, py], 0, "reflect", channels_last=False)
    windows = np.lib.stride_tricks.sliding_window_view(padded, kernel_size[0], axis=-1)
    rows = windows @ kx
    windows = np.lib.stride_tricks.sliding_window_view(rows, kernel_size[1], axis=-2)
    out = windows @ ky
    return _wrap(_cast_back(out, dtype))


# --- colour operations of the auto-augment policies -----------------------------------

def _assert_color_image(img: Tensor) -> None:
    """A (..., 1 or 3, H, W) tensor image, as torchvision's colour operations require."""
    assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")
    assert_channels(img, [1, 3])


def _assert_uint8(img: Tensor) -> None:
    if img.dtype is not _dtype.uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")


def _inverted(data: np.ndarray) -> np.ndarray:
    top = 1.0 if data.dtype.kind == "f" else np.iinfo(data.dtype).max
    return (data.dtype.type(top) - data).astype(data.dtype)


def invert(img: Tensor) -> Tensor:
    _assert_color_image(img)
    return _wrap(_inverted(img.numpy(force=True)))


def posterize(img: Tensor, bits: int) -> Tensor:
    _assert_color_image(img)
    _assert_uint8(img)
    keep = np.uint8((0xFF << (8 - bits)) & 0xFF)  # the top `bits` bits
    return _wrap(img.numpy(force=True) & keep)


def solarize(img: Tensor, threshold: float) -> Tensor:
    _assert_color_image(img)
    if threshold > max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    data = img.numpy(force=True)
    return _wrap(np.where(data >= _work_dtype(data).type(threshold), _inverted(data), data))


def adjust_sharpness(img: Tensor, factor: float) -> Tensor:
    """Blend with the image smoothed by the 3x3 kernel [[1,1,1],[1,5,1],[1,1,1]] / 13 (the
    one-pixel border is left as is)."""
    if factor < 0:
        raise ValueError(f"sharpness_factor ({factor}) is not non-negative.")
    assert_image_tensor(img)
    assert_channels(img, [1, 3])
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    data, dtype = _float_array(img)
    kernel = np.ones((3, 3), dtype=data.dtype)
    kernel[1, 1] = 5.0
    kernel /= kernel.sum()
    windows = np.lib.stride_tricks.sliding_window_view(data, (3, 3), axis=(-2, -1))
    smooth = np.einsum("...ij,ij->...", windows, kernel)
    degenerate = img.numpy(force=True).copy()
    degenerate[..., 1:-1, 1:-1] = _cast_back(smooth, dtype)
    return _wrap(_blend(img.numpy(force=True), degenerate, factor))


def autocontrast(img: Tensor) -> Tensor:
    """Stretch each channel linearly so its minimum becomes 0 and its maximum full
    intensity; flat channels are left as they are."""
    _assert_color_image(img)
    data, dtype = _float_array(img)
    bound = data.dtype.type(max_value(img.dtype))
    low = data.min(axis=(-2, -1), keepdims=True)
    high = data.max(axis=(-2, -1), keepdims=True)
    with np.errstate(divide="ignore"):
        scale = np.reciprocal(high - low) * bound  # torch's bound / t: reciprocal, then times
    flat = ~np.isfinite(scale)
    low, scale = np.where(flat, 0, low), np.where(flat, 1, scale)
    return _wrap(np.clip((data - low) * scale, 0, bound).astype(dtype))


def _equalize_channel(plane: np.ndarray) -> np.ndarray:
    """Map one uint8 plane through the lookup table that flattens its histogram."""
    hist = np.bincount(plane.ravel(), minlength=256)
    step = hist[hist != 0][:-1].sum() // 255
    if step == 0:
        return plane
    lut = (np.cumsum(hist) + step // 2) // step
    lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255)  # shifted right by one level
    return lut[plane].astype(np.uint8)


def equalize(img: Tensor) -> Tensor:
    assert_image_tensor(img)
    if not 3 <= img.ndim <= 4:
        raise TypeError(f"Input image tensor should have 3 or 4 dimensions, but found "
                        f"{img.ndim}")
    _assert_uint8(img)
    assert_channels(img, [1, 3])
    data = img.numpy(force=True)
    planes = data.reshape(-1, *data.shape[-2:])
    return _wrap(np.stack([_equalize_channel(p) for p in planes]).reshape(data.shape))


def adjust_gamma(img: Tensor, gamma: float, gain: float = 1) -> Tensor:
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be a Tensor.")
    assert_channels(img, [1, 3])
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    data = convert_image_dtype(img, _dtype.float32) if not img.is_floating_point() else img
    data = data.numpy(force=True)
    out = np.clip(data.dtype.type(gain) * np.power(data, data.dtype.type(gamma)), 0, 1)
    return convert_image_dtype(_wrap(out.astype(data.dtype)), img.dtype)


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["get_image_size", "get_image_num_channels", "normalize", "erase"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
