"""ember.vision.transforms' augmentation operations (the colour operations, affine, the
auto-augment policies) against torchvision's outputs and random draws, stored by
data/make_torchvision_transforms.py, and against Pillow and NumPy formulas."""
import hashlib
import json
import os

import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageOps

import ember
import ember.vision.transforms as T
import ember.vision.transforms.functional as F
from ember.vision.transforms import InterpolationMode

DATA = os.path.join(os.path.dirname(__file__), "data", "torchvision_transforms.npz")
REFERENCE = np.load(DATA)
CASES = json.loads(str(REFERENCE["cases"]))
NAMESPACE = {"T": T, "F": F, "InterpolationMode": InterpolationMode, "torch": ember}


def reference_input(name: str):
    array = REFERENCE[f"input_{name}"]
    return Image.fromarray(array) if name.startswith("pil") else ember.tensor(array)


def as_array(out) -> np.ndarray:
    if isinstance(out, (tuple, list)):
        return np.stack([as_array(o) for o in out])
    return out.numpy() if isinstance(out, ember.Tensor) else np.asarray(out)


def assert_same_image(out, expected: np.ndarray, atol: float = 1e-6) -> None:
    """Exact for integer images (and PIL), to atol for float images."""
    out = as_array(out)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(out, expected, atol=atol, rtol=0)
    else:
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['expression']}-{c['input']}"
                         f"-seed{c['seed']}")
def test_matches_torchvision(case):
    ember.manual_seed(case["seed"])
    transform = eval(case["expression"], NAMESPACE)
    img = reference_input(case["input"])
    # ElasticTransform blurs its random field with a 2-D convolution that torch sums in
    # another order: the field differs by ~1e-7 and some samples by up to ~2e-6
    atol = 1e-5 if "ElasticTransform" in case["expression"] else 1e-6
    for name in case["outputs"]:
        assert_same_image(transform(img), REFERENCE[name], atol)
    state = ember.get_rng_state().numpy().tobytes()
    assert hashlib.sha256(state).hexdigest() == case["state"]


# --- against Pillow and NumPy directly ------------------------------------------------

RNG = np.random.default_rng(1)
RGB = RNG.integers(0, 256, (10, 9, 3), dtype=np.uint8)


@pytest.mark.parametrize("op,pillow", [
    (F.invert, ImageOps.invert), (F.autocontrast, ImageOps.autocontrast),
    (F.equalize, ImageOps.equalize),
    (lambda img: F.posterize(img, 5), lambda img: ImageOps.posterize(img, 5)),
    (lambda img: F.solarize(img, 90), lambda img: ImageOps.solarize(img, 90)),
    (lambda img: F.adjust_sharpness(img, 1.7),
     lambda img: ImageEnhance.Sharpness(img).enhance(1.7))])
def test_pil_images_go_to_pillow(op, pillow):
    img = Image.fromarray(RGB)
    out = op(img)
    assert out.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(out), np.asarray(pillow(img)))


def test_tensor_formulas():
    chw = ember.tensor(RGB.transpose(2, 0, 1).copy())
    data = RGB.transpose(2, 0, 1)
    np.testing.assert_array_equal(F.invert(chw).numpy(), 255 - data)
    np.testing.assert_array_equal(F.posterize(chw, 2).numpy(), data & 0b11000000)
    np.testing.assert_array_equal(F.solarize(chw, 100).numpy(),
                                  np.where(data >= 100, 255 - data, data))
    low, high = data.min(axis=(1, 2), keepdims=True), data.max(axis=(1, 2), keepdims=True)
    stretched = (data - low.astype(np.float32)) * (np.float32(255) / (high - low))
    np.testing.assert_array_equal(F.autocontrast(chw).numpy(), stretched.astype(np.uint8))
    floats = ember.tensor(data / 255.0)
    np.testing.assert_allclose(F.adjust_gamma(floats, 2.0, 0.5).numpy(),
                               np.clip(0.5 * (data / 255.0) ** 2, 0, 1))
    assert F.adjust_sharpness(chw[:, :2], 3.0) is not None  # too small: returned as is


def test_reprs():
    assert repr(T.RandomInvert()) == "RandomInvert(p=0.5)"
    assert repr(T.RandomPosterize(3, p=0.2)) == "RandomPosterize(bits=3,p=0.2)"
    assert repr(T.RandomSolarize(192.0)) == "RandomSolarize(threshold=192.0,p=0.5)"
    assert repr(T.RandomAdjustSharpness(2)) == "RandomAdjustSharpness(sharpness_factor=2,p=0.5)"
    assert repr(T.RandomAutocontrast()) == "RandomAutocontrast(p=0.5)"
    assert repr(T.RandomEqualize(p=1)) == "RandomEqualize(p=1)"


def test_errors():
    u8 = ember.zeros((3, 4, 5), dtype=ember.uint8)
    floats = ember.zeros((3, 4, 5))
    with pytest.raises(ValueError, match="The number if bits should be between 0 and 8. Got 9"):
        F.posterize(u8, 9)
    with pytest.raises(TypeError, match="Only torch.uint8 image tensors are supported, but "
                                        "found torch.float32"):
        F.posterize(floats, 3)
    with pytest.raises(TypeError, match="Only torch.uint8 image tensors are supported"):
        F.equalize(floats)
    with pytest.raises(TypeError, match="Input image tensor should have 3 or 4 dimensions, "
                                        "but found 5"):
        F.equalize(u8[None, None])
    with pytest.raises(TypeError, match="Input image tensor should have at least 3 "
                                        "dimensions, but found 2"):
        F.invert(u8[0])
    with pytest.raises(TypeError, match="Input image tensor permitted channel values are "
                                        r"\[1, 3\], but found 2"):
        F.autocontrast(u8[:2])
    with pytest.raises(TypeError, match="Threshold should be less than bound of img."):
        F.solarize(floats, 1.5)
    with pytest.raises(ValueError, match=r"sharpness_factor \(-1\) is not non-negative."):
        F.adjust_sharpness(floats, -1)
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number"):
        F.adjust_gamma(floats, -1)
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number"):
        F.adjust_gamma(Image.fromarray(RGB), -1)
    with pytest.raises(TypeError, match="img should be PIL Image. Got <class 'list'>"):
        F.invert([1])


def test_affine_reprs():
    assert repr(T.RandomAffine(10)) == "RandomAffine(degrees=[-10.0, 10.0])"
    assert repr(T.RandomAffine((-10, 40), translate=(0.2, 0.1), scale=(0.7, 1.3), shear=8,
                               interpolation=InterpolationMode.BILINEAR, fill=3,
                               center=(1, 2))) == \
        ("RandomAffine(degrees=[-10.0, 40.0], translate=(0.2, 0.1), scale=(0.7, 1.3), "
         "shear=[-8.0, 8.0], interpolation=bilinear, fill=3, center=(1, 2))")
    assert repr(T.RandomAffine(5, shear=[1, 2, 3, 4])) == \
        "RandomAffine(degrees=[-5.0, 5.0], shear=[1.0, 2.0, 3.0, 4.0])"


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(degrees=5, shear=[1, 2, 3]), ValueError, "shear should be a sequence of length 2 or 4."),
    (dict(degrees=5, translate=(0.2, 1.5)), ValueError, "translation values should be between"),
    (dict(degrees=5, scale=(0, 1)), ValueError, "scale values should be positive"),
    (dict(degrees=5, translate=0.2), TypeError, "translate should be a sequence of length 2."),
    (dict(degrees=-1), ValueError, "If degrees is a single number, it must be positive."),
    (dict(degrees=5, fill={}), TypeError, "Fill should be either a sequence or a number.")])
def test_random_affine_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        T.RandomAffine(**kwargs)


def test_affine_errors():
    img = ember.zeros((3, 4, 5))
    with pytest.raises(ValueError, match="Argument scale should be positive"):
        F.affine(img, 0.0, [0, 0], 0.0, 0.0)
    with pytest.raises(ValueError, match="Argument translate should be a sequence of length 2"):
        F.affine(img, 0.0, [0], 1.0, 0.0)
    with pytest.raises(TypeError, match="Argument angle should be int or float"):
        F.affine(img, "0", [0, 0], 1.0, 0.0)
    with pytest.raises(ValueError, match="Shear should be a sequence containing two values"):
        F.affine(img, 0.0, [0, 0], 1.0, [1, 2, 3])
    with pytest.raises(ValueError, match="Interpolation mode 'bicubic' is unsupported with "
                                         "Tensor input"):
        F.affine(img, 0.0, [0, 0], 1.0, 0.0, InterpolationMode.BICUBIC)
    with pytest.raises(ValueError, match=r"The number of elements in 'fill' cannot broadcast "
                                         r"to match the number of channels of the image \(2 "):
        F.affine(img, 0.0, [0, 0], 1.0, 0.0, fill=[1, 2])


def test_auto_augment_reprs_and_errors():
    assert repr(T.AutoAugment(T.AutoAugmentPolicy.SVHN, fill=[1, 2])) == \
        "AutoAugment(policy=AutoAugmentPolicy.SVHN, fill=[1, 2])"
    assert repr(T.RandAugment(3, 5, interpolation=InterpolationMode.BILINEAR, fill=4)) == \
        ("RandAugment(num_ops=3, magnitude=5, num_magnitude_bins=31, "
         "interpolation=InterpolationMode.BILINEAR, fill=4)")
    assert repr(T.TrivialAugmentWide(11)) == ("TrivialAugmentWide(num_magnitude_bins=11, "
                                              "interpolation=InterpolationMode.NEAREST, "
                                              "fill=None)")
    with pytest.raises(ValueError, match="The provided policy imagenet is not recognized."):
        T.AutoAugment("imagenet")
    assert repr(T.AugMix(fill=[3])) == (
        "AugMix(severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True, "
        "interpolation=InterpolationMode.BILINEAR, fill=[3])")
    with pytest.raises(ValueError, match=r"The severity must be between \[1, 10\]. Got 11 "
                                         "instead."):
        T.AugMix(severity=11)


def test_crop_perspective_linear_elastic_reprs():
    assert repr(T.FiveCrop(3)) == "FiveCrop(size=(3, 3))"
    assert repr(T.TenCrop((4, 5), True)) == "TenCrop(size=(4, 5), vertical_flip=True)"
    assert repr(T.RandomPerspective(0.3, p=0.2)) == "RandomPerspective(p=0.2)"
    assert repr(T.ElasticTransform(alpha=(2.0, 3.0), sigma=1.5, fill=(1, 2))) == \
        ("ElasticTransform(alpha=(2.0, 3.0), sigma=[1.5, 1.5], "
         "interpolation=InterpolationMode.BILINEAR, fill=[1.0, 2.0])")
    assert repr(T.LinearTransformation(ember.eye(2), ember.zeros(2))) == \
        ("LinearTransformation(transformation_matrix=[[1.0, 0.0], [0.0, 1.0]], "
         "mean_vector=[0.0, 0.0])")


@pytest.mark.parametrize("call,error,message", [
    (lambda: T.LinearTransformation(ember.zeros(2, 3), ember.zeros(2)), ValueError,
     r"transformation_matrix should be square. Got \(2, 3\) rectangular matrix."),
    (lambda: T.LinearTransformation(ember.eye(3), ember.zeros(2)), ValueError,
     r"mean_vector should have the same length 2 as any one of the dimensions of the "
     r"transformation_matrix \[\(3, 3\)\]"),
    (lambda: T.LinearTransformation(ember.eye(3), ember.zeros(3, dtype=ember.float64)),
     ValueError, "Input tensors should have the same dtype. Got torch.float32 and "
                 "torch.float64"),
    (lambda: T.LinearTransformation(ember.eye(3), ember.zeros(3))(ember.zeros(1, 2, 2)),
     ValueError, r"Input tensor and transformation matrix have incompatible shape.\[1 x 2 x "
                 r"2\] != 3"),
    (lambda: F.five_crop(ember.zeros(3, 4, 4), 5), ValueError,
     r"Requested crop size \(5, 5\) is bigger than input size \(4, 4\)"),
    (lambda: T.FiveCrop((1, 2, 3)), ValueError,
     r"Please provide only two dimensions \(h, w\) for size."),
    (lambda: F.perspective(ember.zeros(3, 4, 4), [[0, 0]] * 3, [[0, 0]] * 4), ValueError,
     "Please provide exactly four corners, got 3 startpoints and 4 endpoints."),
    (lambda: T.ElasticTransform(alpha=5), TypeError,
     "alpha should be float or a sequence of floats. Got <class 'int'>"),
    (lambda: T.ElasticTransform(sigma=(1.0, 2.0, 3.0)), ValueError,
     "If sigma is a sequence its length should be 2. Got 3"),
    (lambda: T.ElasticTransform(fill="a"), TypeError,
     "fill should be int or float or a list or tuple of them. Got <class 'str'>"),
    (lambda: F.elastic_transform(ember.zeros(3, 4, 4), ember.zeros(1, 4, 5, 2)), ValueError,
     r"Argument displacement shape should be torch.Size\(\[1, 4, 4, 2\]\), but given "
     r"torch.Size\(\[1, 4, 5, 2\]\)")])
def test_crop_perspective_linear_elastic_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
