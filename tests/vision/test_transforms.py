"""ember.vision.transforms against independent computations: NumPy formulas, Pillow, and
torch.nn.functional.interpolate (what torchvision's tensor resize calls)."""
import numpy as np
import pytest
import torch
from PIL import Image
from scipy import ndimage

import ember
import ember.vision.transforms as T
import ember.vision.transforms.functional as F

RNG = np.random.default_rng(0)
RGB = RNG.integers(0, 256, (6, 8, 3), dtype=np.uint8)
FLOAT_CHW = RNG.random((3, 6, 8)).astype(np.float32)


def pil(array=RGB):
    return Image.fromarray(array)


def tens(array=FLOAT_CHW):
    return ember.tensor(array)


def close(a, b, atol=1e-5):
    a = a.numpy() if isinstance(a, ember.Tensor) else np.asarray(a)
    b = b.numpy() if isinstance(b, ember.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), atol=atol)


# --- conversions ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_to_tensor_pil_uint8(mode):
    img = pil().convert(mode)
    out = T.ToTensor()(img)
    expected = np.asarray(img, dtype=np.float32).reshape(6, 8, -1).transpose(2, 0, 1) / 255
    assert out.dtype == ember.float32
    close(out, expected)


@pytest.mark.parametrize("mode,dtype", [("I", np.int32), ("F", np.float32)])
def test_to_tensor_pil_wide_modes_keep_values(mode, dtype):
    img = pil().convert("L").convert(mode)
    out = F.to_tensor(img)
    assert out.numpy().dtype == dtype
    close(out, np.asarray(img)[None])


def test_to_tensor_mode_1_and_ndarrays():
    bw = pil().convert("1")
    close(F.to_tensor(bw), np.asarray(bw, dtype=np.float32)[None])
    close(F.to_tensor(RGB), RGB.transpose(2, 0, 1) / 255)
    hw = RNG.random((4, 5))
    out = F.to_tensor(hw)
    assert out.dtype == ember.float64 and out.shape == (1, 4, 5)  # non-uint8 kept as is


def test_to_tensor_errors():
    with pytest.raises(TypeError, match=r"pic should be PIL Image or ndarray. Got <class 'list'>"):
        T.ToTensor()([1, 2])
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 4 dimensions."):
        F.to_tensor(np.zeros((1, 2, 3, 4)))


def test_pil_to_tensor_keeps_uint8():
    out = T.PILToTensor()(pil())
    assert out.dtype == ember.uint8
    np.testing.assert_array_equal(out.numpy(), RGB.transpose(2, 0, 1))
    with pytest.raises(TypeError, match="pic should be PIL Image. Got"):
        F.pil_to_tensor(RGB)


def test_to_pil_image_round_trip_and_modes():
    img = T.ToPILImage()(F.to_tensor(pil()))
    assert img.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(img), RGB)
    gray = F.to_pil_image(ember.tensor(RGB[:, :, 0]))
    assert gray.mode == "L"
    np.testing.assert_array_equal(np.asarray(gray), RGB[:, :, 0])
    assert F.to_pil_image(np.zeros((3, 4, 4), np.uint8).transpose(1, 2, 0), "HSV").mode == "HSV"
    assert F.to_pil_image(np.ones((2, 3), np.float32)).mode == "F"
    with pytest.raises(TypeError, match="pic should be Tensor or ndarray. Got <class 'list'>."):
        F.to_pil_image([1])
    with pytest.raises(ValueError, match="pic should not have > 4 channels. Got 5 channels."):
        F.to_pil_image(ember.zeros(5, 2, 2))
    with pytest.raises(ValueError, match="Only modes"):
        F.to_pil_image(ember.zeros(3, 2, 2), mode="RGBA")
    with pytest.raises(ValueError, match=r"Incorrect mode \(RGB\) supplied"):
        F.to_pil_image(np.zeros((2, 2), np.uint8), mode="RGB")


def test_convert_image_dtype():
    u8 = ember.tensor(RGB.transpose(2, 0, 1).copy())
    close(T.ConvertImageDtype(ember.float32)(u8), RGB.transpose(2, 0, 1) / 255)
    back = F.convert_image_dtype(tens(), ember.uint8)
    np.testing.assert_array_equal(back.numpy(), (FLOAT_CHW * (255 + 1 - 1e-3)).astype(np.uint8))
    wide = F.convert_image_dtype(u8, ember.int16)
    np.testing.assert_array_equal(wide.numpy(), RGB.transpose(2, 0, 1).astype(np.int16) * 128)
    with pytest.raises(RuntimeError, match="The cast from torch.float32 to torch.int32 cannot"):
        F.convert_image_dtype(tens(), ember.int32)


# --- normalize ------------------------------------------------------------------------

def test_normalize_formula_and_inplace():
    mean, std = (0.5, 0.4, 0.3), (0.2, 0.25, 0.5)
    expected = (FLOAT_CHW - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    x = tens()
    close(T.Normalize(mean, std)(x), expected)
    close(x, FLOAT_CHW)  # not modified
    out = T.Normalize(mean, std, inplace=True)(x)
    assert out is x
    close(x, expected)


def test_normalize_batched_and_grad():
    x = ember.tensor(RNG.random((2, 1, 3, 3)).astype(np.float32), requires_grad=True)
    F.normalize(x, [0.1307], [0.3081]).sum().backward()
    close(x.grad, np.full((2, 1, 3, 3), 1 / 0.3081))


def test_normalize_errors_and_repr():
    with pytest.raises(TypeError, match="img should be Tensor Image. Got"):
        F.normalize(RGB, [0.5], [0.5])
    with pytest.raises(TypeError, match="Input tensor should be a float tensor. Got torch.uint8."):
        F.normalize(ember.zeros(1, 2, 2, dtype=ember.uint8), [0.5], [0.5])
    with pytest.raises(ValueError, match="Expected tensor to be a tensor image of size"):
        F.normalize(ember.zeros(2, 2), [0.5], [0.5])
    with pytest.raises(ValueError, match="std evaluated to zero after conversion to torch.float32"):
        F.normalize(ember.zeros(1, 2, 2), [0.5], [0.0])
    text = repr(T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))]))
    assert text == "Compose(\n    ToTensor()\n    Normalize(mean=(0.1307,), std=(0.3081,))\n)"


# --- resize ---------------------------------------------------------------------------

@pytest.mark.parametrize("size,expected", [(4, (4, 5)), ([3, 7], (3, 7)), ((12,), (12, 16))])
def test_resize_output_size(size, expected):
    assert tuple(T.Resize(size)(tens()).shape[-2:]) == expected
    assert T.Resize(size)(pil()).size == expected[::-1]


def test_resize_max_size_and_same_size():
    assert tuple(F.resize(ember.zeros(1, 6, 12), 4, max_size=6).shape[-2:]) == (3, 6)
    x = tens()
    assert F.resize(x, [6, 8]) is x
    with pytest.raises(ValueError, match="max_size = 4 must be strictly greater"):
        F.resize(x, 4, max_size=4)


def _torch_interpolate(x, size, mode, antialias):
    out = torch.nn.functional.interpolate(torch.from_numpy(x)[None], size=size, mode=mode,
                                          antialias=antialias,
                                          align_corners=None if "nearest" in mode else False)
    return out[0].numpy()


@pytest.mark.parametrize("mode,antialias", [("bilinear", True), ("bilinear", False),
                                            ("bicubic", True), ("bicubic", False),
                                            ("nearest", False), ("nearest-exact", False)])
@pytest.mark.parametrize("size", [(3, 5), (11, 13), (4, 16)])
def test_resize_tensor_matches_interpolate(mode, size, antialias):
    out = F.resize(tens(), list(size), T.InterpolationMode(mode), antialias=antialias)
    close(out, _torch_interpolate(FLOAT_CHW, size, mode, antialias), atol=1e-5)


@pytest.mark.parametrize("antialias", [True, False])
def test_resize_tensor_is_differentiable(antialias):
    """aladdinpersson's UNet resizes an upsampled feature map to its skip connection's size
    with TF.resize: the gradient flows through, as through torch's interpolate."""
    x = RNG.standard_normal((2, 4, 8, 8))
    g = RNG.standard_normal((2, 4, 9, 9))
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.resize(ex, [9, 9], antialias=antialias).backward(ember.tensor(g))
    torch.nn.functional.interpolate(tx, size=(9, 9), mode="bilinear", align_corners=False,
                                    antialias=antialias).backward(torch.tensor(g))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode,resample", [("bilinear", Image.BILINEAR),
                                           ("bicubic", Image.BICUBIC)])
def test_resize_tensor_antialias_matches_pillow_float(mode, resample):
    # Pillow's float ('F') resampling is the reference antialiased filter.
    plane = FLOAT_CHW[0]
    expected = np.asarray(Image.fromarray(plane, "F").resize((3, 2), resample))
    out = F.resize(tens(plane[None]), [2, 3], T.InterpolationMode(mode))
    close(out[0], expected, atol=1e-5)


def test_resize_uint8_tensor_rounds():
    u8 = ember.tensor(RGB.transpose(2, 0, 1).copy())
    out = F.resize(u8, [3, 4], antialias=False)
    expected = RGB.transpose(2, 0, 1).reshape(3, 3, 2, 4, 2).astype(float).mean(axis=(2, 4))
    assert out.dtype == ember.uint8
    np.testing.assert_array_equal(out.numpy(), np.round(expected))


def test_resize_errors_and_repr():
    with pytest.raises(TypeError, match="Size should be int or sequence. Got <class 'float'>"):
        T.Resize(2.5)
    with pytest.raises(ValueError, match="If size is a sequence, it should have 1 or 2 values"):
        T.Resize([1, 2, 3])
    with pytest.raises(TypeError, match="Argument interpolation should be a InterpolationMode"):
        F.resize(tens(), 3, interpolation="bilinear")
    with pytest.warns(UserWarning, match="Anti-alias option is always applied for PIL Image"):
        F.resize(pil(), 3, antialias=False)
    assert repr(T.Resize(256)) == \
        "Resize(size=256, interpolation=bilinear, max_size=None, antialias=True)"


# --- crops, flips, pad ----------------------------------------------------------------

def test_center_crop_box():
    close(T.CenterCrop(4)(tens()), FLOAT_CHW[:, 1:5, 2:6])
    np.testing.assert_array_equal(np.asarray(T.CenterCrop((2, 3))(pil())), RGB[2:4, 2:5])
    assert repr(T.CenterCrop(224)) == "CenterCrop(size=(224, 224))"


def test_center_crop_larger_than_image_pads_with_zeros():
    out = F.center_crop(tens(), [8, 10])
    expected = np.pad(FLOAT_CHW, [(0, 0), (1, 1), (1, 1)])
    close(out, expected)


def test_crop_outside_is_zero():
    out = F.crop(tens(), -1, 6, 3, 4)
    expected = np.zeros((3, 3, 4), np.float32)
    expected[:, 1:, :2] = FLOAT_CHW[:, :2, 6:]
    close(out, expected)
    np.testing.assert_array_equal(np.asarray(F.crop(pil(), 1, 2, 3, 4)), RGB[1:4, 2:6])


def test_random_crop_within_bounds_and_seeded():
    x = ember.arange(48.0).reshape(1, 6, 8)
    ember.manual_seed(0)
    first = T.RandomCrop(3)(x)
    ember.manual_seed(0)
    assert (T.RandomCrop(3)(x) == first).all()
    i, j = int(first[0, 0, 0].item()) // 8, int(first[0, 0, 0].item()) % 8
    close(first, x.numpy()[:, i:i + 3, j:j + 3])
    for _ in range(20):
        top, left, h, w = T.RandomCrop.get_params(x, (3, 5))
        assert (h, w) == (3, 5) and 0 <= top <= 3 and 0 <= left <= 3


def test_random_crop_errors_and_padding():
    with pytest.raises(ValueError, match=r"Required crop size \(40, 40\) is larger than input "
                                         r"image size \(32, 32\)"):
        T.RandomCrop(40)(ember.zeros(3, 32, 32))
    out = T.RandomCrop(10, pad_if_needed=True)(tens())
    assert tuple(out.shape) == (3, 10, 10)
    assert T.RandomCrop(8, padding=1)(pil()).size == (8, 8)
    assert repr(T.RandomCrop(32, padding=4)) == "RandomCrop(size=(32, 32), padding=4)"


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize("padding,ltrb", [(2, (2, 2, 2, 2)), ([1, 2], (1, 2, 1, 2)),
                                          ((1, 0, 2, 3), (1, 0, 2, 3))])
def test_pad_modes_match_numpy(mode, padding, ltrb):
    left, top, right, bottom = ltrb
    kwargs = {"constant_values": 7} if mode == "constant" else {}
    expected = np.pad(RGB, [(top, bottom), (left, right), (0, 0)], mode=mode, **kwargs)
    np.testing.assert_array_equal(np.asarray(T.Pad(padding, 7, mode)(pil())), expected)
    out = F.pad(ember.tensor(RGB.transpose(2, 0, 1).copy()), padding, 7, mode)
    np.testing.assert_array_equal(out.numpy(), expected.transpose(2, 0, 1))


def test_pad_rgb_fill_negative_padding_and_errors():
    out = np.asarray(F.pad(pil(), 1, fill=(1, 2, 3)))
    np.testing.assert_array_equal(out[0, 0], [1, 2, 3])
    close(F.pad(tens(), [-1, -2]), FLOAT_CHW[:, 2:-2, 1:-1])
    with pytest.raises(ValueError, match="Padding must be an int or a 1, 2, or 4 element tuple, "
                                         "not a 3 element tuple"):
        F.pad(tens(), [1, 2, 3])
    with pytest.raises(ValueError, match="Padding mode should be either constant, edge"):
        F.pad(tens(), 1, padding_mode="wrap")


def test_flips():
    close(F.hflip(tens()), FLOAT_CHW[:, :, ::-1])
    close(F.vflip(tens()), FLOAT_CHW[:, ::-1, :])
    np.testing.assert_array_equal(np.asarray(F.hflip(pil())), RGB[:, ::-1])
    np.testing.assert_array_equal(np.asarray(T.RandomVerticalFlip(p=1.0)(pil())), RGB[::-1])
    x = tens()
    assert T.RandomHorizontalFlip(p=0.0)(x) is x
    with pytest.raises(TypeError, match="img should be PIL Image. Got <class 'list'>"):
        F.hflip([1])


def test_random_flip_follows_manual_seed():
    x = tens()
    ember.manual_seed(3)
    flips = [bool((T.RandomHorizontalFlip()(x) != x).any()) for _ in range(16)]
    ember.manual_seed(3)
    assert flips == [ember.rand(1).item() < 0.5 for _ in range(16)]
    assert any(flips) and not all(flips)


# --- random resized crop --------------------------------------------------------------

def test_random_resized_crop_box_in_bounds():
    img = ember.zeros(3, 20, 30)
    ember.manual_seed(0)
    for _ in range(50):
        i, j, h, w = T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3))
        assert 0 < h and 0 < w and i >= 0 and j >= 0 and i + h <= 20 and j + w <= 30
        assert 0.08 * 600 * 0.8 <= h * w <= 600
    assert tuple(T.RandomResizedCrop(7)(img).shape) == (3, 7, 7)
    assert T.RandomResizedCrop((5, 9))(pil()).size == (9, 5)


def test_random_resized_crop_fallback_is_central():
    # no box with ratio in [10, 11] fits a 20x30 image: the central crop clamps the ratio
    img = ember.zeros(3, 20, 30)
    assert T.RandomResizedCrop.get_params(img, (0.9, 1.0), (10.0, 11.0)) == (8, 0, 3, 30)
    assert T.RandomResizedCrop.get_params(img, (0.9, 1.0), (0.1, 0.2)) == (0, 13, 20, 4)


def test_random_resized_crop_repr_and_warning():
    assert repr(T.RandomResizedCrop(224)) == (
        "RandomResizedCrop(size=(224, 224), scale=(0.08, 1.0), ratio=(0.75, 1.3333), "
        "interpolation=bilinear, antialias=True)")
    with pytest.warns(UserWarning, match="Scale and ratio should be of kind"):
        T.RandomResizedCrop(4, scale=(1.0, 0.5))


# --- rotation -------------------------------------------------------------------------

def test_rotate_90_is_rot90():
    square = RNG.random((2, 5, 5)).astype(np.float32)
    close(F.rotate(tens(square), 90.0), np.rot90(square, 1, axes=(1, 2)))
    close(F.rotate(tens(square), -90.0, T.InterpolationMode.BILINEAR),
          np.rot90(square, -1, axes=(1, 2)))
    np.testing.assert_array_equal(np.asarray(F.rotate(pil(RGB[:6, :6]), 90.0)),
                                  np.rot90(RGB[:6, :6], 1))


def test_rotate_expand_and_fill():
    out = F.rotate(tens(), 90.0, expand=True)
    assert tuple(out.shape) == (3, 8, 6)
    close(out, np.rot90(FLOAT_CHW, 1, axes=(1, 2)))
    filled = F.rotate(ember.ones(1, 5, 5), 45.0, fill=[0.25])
    assert filled[0, 0, 0].item() == 0.25 and filled[0, 2, 2].item() == 1.0
    assert F.rotate(pil(), 30.0, expand=True).size == F.rotate(tens(), 30.0, expand=True).shape[
        :0:-1]


def test_random_rotation_params_and_repr():
    ember.manual_seed(0)
    angles = [T.RandomRotation.get_params([-10.0, 20.0]) for _ in range(20)]
    assert all(-10 <= a <= 20 for a in angles)
    assert repr(T.RandomRotation(10)) == \
        "RandomRotation(degrees=[-10.0, 10.0], interpolation=nearest, expand=False, fill=0)"
    with pytest.raises(ValueError, match="If degrees is a single number, it must be positive."):
        T.RandomRotation(-1)


# --- colour ---------------------------------------------------------------------------

def test_brightness_is_blend_with_black():
    close(F.adjust_brightness(tens(), 0.5), FLOAT_CHW * 0.5)
    close(F.adjust_brightness(tens(), 2.0), np.clip(FLOAT_CHW * 2, 0, 1))
    pil_out = np.asarray(F.adjust_brightness(pil(), 0.5))
    np.testing.assert_allclose(pil_out, RGB * 0.5, atol=1)
    with pytest.raises(ValueError, match=r"brightness_factor \(-1\) is not non-negative."):
        F.adjust_brightness(tens(), -1)


def test_contrast_and_saturation_formulas():
    gray = 0.2989 * FLOAT_CHW[0] + 0.587 * FLOAT_CHW[1] + 0.114 * FLOAT_CHW[2]
    expected = np.clip(0.3 * FLOAT_CHW + 0.7 * gray.mean(), 0, 1)
    close(F.adjust_contrast(tens(), 0.3), expected)
    close(F.adjust_saturation(tens(), 0.0), np.broadcast_to(gray, FLOAT_CHW.shape))
    close(F.adjust_saturation(tens(), 1.5), np.clip(1.5 * FLOAT_CHW - 0.5 * gray, 0, 1))


def test_hue():
    red = ember.tensor([[[1.0]], [[0.0]], [[0.0]]])
    close(F.adjust_hue(red, 1 / 3), [[[0.0]], [[1.0]], [[0.0]]], atol=1e-6)
    close(F.adjust_hue(tens(), 0.0), FLOAT_CHW, atol=1e-6)
    grey = ember.full((3, 2, 2), 0.4)
    close(F.adjust_hue(grey, 0.3), grey, atol=1e-6)
    pil_red = Image.new("RGB", (1, 1), (255, 0, 0))
    assert abs(np.asarray(F.adjust_hue(pil_red, 1 / 3))[0, 0, 1] - 255) <= 2
    with pytest.raises(ValueError, match=r"hue_factor \(0.7\) is not in \[-0.5, 0.5\]."):
        F.adjust_hue(tens(), 0.7)


def test_color_jitter_factors_and_order():
    jitter = T.ColorJitter(brightness=0.5)
    assert jitter.brightness == (0.5, 1.5) and jitter.contrast is None
    ember.manual_seed(1)
    out = jitter(tens())
    ember.manual_seed(1)
    order, b, c, s, h = T.ColorJitter.get_params((0.5, 1.5), None, None, None)
    assert sorted(order.tolist()) == [0, 1, 2, 3] and c is s is h is None
    close(out, np.clip(FLOAT_CHW * b, 0, 1))
    assert repr(T.ColorJitter(0.4, 0.4, 0.4, 0.1)) == ("ColorJitter(brightness=(0.6, 1.4), "
                                                       "contrast=(0.6, 1.4), "
                                                       "saturation=(0.6, 1.4), hue=(-0.1, 0.1))")
    with pytest.raises(ValueError, match=r"hue values should be between \(-0.5, 0.5\)"):
        T.ColorJitter(hue=0.6)
    with pytest.raises(TypeError, match="brightness should be a single number or a list/tuple"):
        T.ColorJitter(brightness="x")


def test_color_jitter_runs_on_pil():
    out = T.ColorJitter(0.4, 0.4, 0.4, 0.1)(pil())
    assert out.size == (8, 6) and out.mode == "RGB"


def test_grayscale_weights():
    out = T.Grayscale()(tens())
    close(out, (0.2989 * FLOAT_CHW[0] + 0.587 * FLOAT_CHW[1] + 0.114 * FLOAT_CHW[2])[None])
    three = T.Grayscale(3)(tens())
    assert tuple(three.shape) == (3, 6, 8)
    np.testing.assert_array_equal(np.asarray(T.Grayscale()(pil())), np.asarray(pil().convert("L")))
    assert T.Grayscale(3)(pil()).mode == "RGB"
    assert T.RandomGrayscale(p=1.0)(pil()).mode == "RGB"
    with pytest.raises(TypeError, match="Input image tensor permitted channel values are"):
        F.rgb_to_grayscale(ember.zeros(2, 3, 3))


# --- blur and erasing -----------------------------------------------------------------

@pytest.mark.parametrize("kernel,sigma", [(3, 1.0), ((5, 3), (0.8, 1.7))])
def test_gaussian_blur_matches_scipy(kernel, sigma):
    kx, ky = (kernel, kernel) if isinstance(kernel, int) else kernel
    sx, sy = (sigma, sigma) if isinstance(sigma, float) else sigma

    def kernel1d(k, s):
        x = np.linspace(-(k - 1) / 2, (k - 1) / 2, k)
        pdf = np.exp(-0.5 * (x / s) ** 2)
        return pdf / pdf.sum()
    expected = ndimage.correlate1d(FLOAT_CHW.astype(np.float64), kernel1d(kx, sx), axis=2,
                                   mode="mirror")
    expected = ndimage.correlate1d(expected, kernel1d(ky, sy), axis=1, mode="mirror")
    close(F.gaussian_blur(tens(), kernel, sigma), expected)
    assert F.gaussian_blur(pil(), 3).size == (8, 6)


def test_gaussian_blur_transform():
    blur = T.GaussianBlur(3, sigma=(0.5, 1.0))
    assert repr(blur) == "GaussianBlur(kernel_size=(3, 3), sigma=(0.5, 1.0))"
    assert tuple(blur(tens()).shape) == (3, 6, 8)
    with pytest.raises(ValueError, match="Kernel size value should be an odd and positive"):
        T.GaussianBlur(4)


def test_random_erasing():
    x = ember.ones(3, 10, 10)
    assert T.RandomErasing(p=0.0)(x) is x
    ember.manual_seed(0)
    out = T.RandomErasing(p=1.0, value=0.5)(x)
    erased = out.numpy() == 0.5
    assert erased.any() and (x.numpy() == 1).all()
    rows, cols = np.nonzero(erased[0])
    assert erased[:, rows.min():rows.max() + 1, cols.min():cols.max() + 1].all()
    close(F.erase(ember.zeros(1, 4, 4), 1, 2, 2, 1, ember.tensor(3.0))[0, :, 2], [0, 3, 3, 0])
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="If value is a sequence, it should have either a single "
                                         "value or 3"):
        T.RandomErasing(p=1.0, value=(1, 2))(x)


# --- containers -----------------------------------------------------------------------

def test_lambda_apply_choice_order():
    add = T.Lambda(lambda v: v + 1)
    double = T.Lambda(lambda v: v * 2)
    assert T.Compose([add, double])(1) == 4
    assert T.RandomApply([add], p=1.0)(1) == 2 and T.RandomApply([add], p=0.0)(1) == 1
    assert T.RandomChoice([add, double], p=[0.0, 1.0])(5) == 10
    ember.manual_seed(0)
    results = {T.RandomOrder([add, double])(1) for _ in range(30)}
    assert results == {3, 4}
    with pytest.raises(TypeError, match="Argument lambd should be callable, got 'int'"):
        T.Lambda(3)
    assert repr(T.RandomApply([add])) == "RandomApply(\n    p=0.5\n    Lambda()\n)"
    assert repr(T.RandomChoice([add])) == "RandomChoice(\n    Lambda()\n)(p=None)"


def test_full_pipeline_on_pil():
    pipeline = T.Compose([T.RandomResizedCrop(4), T.RandomHorizontalFlip(), T.ToTensor(),
                          T.Normalize([0.5] * 3, [0.5] * 3)])
    out = pipeline(pil())
    assert tuple(out.shape) == (3, 4, 4) and out.dtype == ember.float32
    assert -1 <= out.min().item() and out.max().item() <= 1
