"""ember.vision.transforms.v2 (classification transforms) against torch computations of
the same pixels, the v1 transforms' random draws, and torchvision 0.29.1's reprs."""
import numpy as np
import pytest
import torch
from PIL import Image

import ember
from ember.vision import transforms as v1
from ember.vision.transforms import v2
from ember.vision.transforms.v2 import functional as F
from tests.vision.torch_reference import (IMAGENET_MEAN, IMAGENET_STD, assert_close_to_preset,
                                         classification_preset)

RNG = np.random.default_rng(0)


def image_array(c=3, h=30, w=40, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (c, h, w), dtype=np.uint8)


def test_classification_pipeline_matches_torch():
    x = image_array(h=300, w=400)
    pipeline = v2.Compose([v2.Resize(256), v2.CenterCrop(224),
                           v2.ToDtype(ember.float32, scale=True),
                           v2.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD)])
    out = pipeline(ember.from_numpy(x))
    assert out.dtype == ember.float32 and tuple(out.shape) == (3, 224, 224)
    assert_close_to_preset(out.numpy(), classification_preset(x, (256, 341), 224))


def test_to_dtype_and_to_image_match_torch():
    x = image_array()
    t = torch.from_numpy(x)
    scaled = v2.ToDtype(ember.float32, scale=True)(ember.from_numpy(x))
    np.testing.assert_allclose(scaled.numpy(), (t.float() / 255).numpy(), rtol=1e-6)
    plain = v2.ToDtype(ember.float32)(ember.from_numpy(x))
    np.testing.assert_array_equal(plain.numpy(), t.float().numpy())
    back = F.to_dtype(scaled, ember.uint8, scale=True)
    expected = (t.float() / 255 * (255 + 1 - 1e-3)).to(torch.uint8)
    np.testing.assert_array_equal(back.numpy(), expected.numpy())
    same = ember.from_numpy(x)
    assert F.to_dtype(same, ember.uint8, scale=True) is same
    pil = Image.fromarray(x.transpose(1, 2, 0))
    from_pil = v2.ToImage()(pil)
    assert from_pil.dtype == ember.uint8
    np.testing.assert_array_equal(from_pil.numpy(), x)
    np.testing.assert_array_equal(v2.ToImage()(x.transpose(1, 2, 0)).numpy(), x)
    assert v2.PILToTensor()(pil).shape == (3, 30, 40)
    assert v2.ToPILImage()(from_pil).size == (40, 30)
    with pytest.raises(ValueError, match="dtype must be a dict or a torch.dtype, got <class "):
        v2.ToDtype("float32")


def test_to_dtype_dict_and_to_tensor():
    x = ember.from_numpy(image_array())
    assert v2.ToDtype({ember.Tensor: ember.float64})(x).dtype == ember.float64
    assert v2.ToDtype({"others": None})(x) is x
    with pytest.raises(ValueError, match="No dtype was specified for type"):
        v2.ToDtype({int: ember.float32})(x)
    with pytest.warns(UserWarning, match="The transform `ToTensor\\(\\)` is deprecated"):
        to_tensor = v2.ToTensor()
    pil = Image.fromarray(image_array().transpose(1, 2, 0))
    np.testing.assert_allclose(to_tensor(pil).numpy(), v1.ToTensor()(pil).numpy())


def test_a_sample_shares_one_draw_and_labels_pass_through():
    pil = Image.fromarray(image_array(h=50, w=60).transpose(1, 2, 0))
    mask = Image.fromarray(image_array(1, 50, 60, seed=1)[0])
    ember.manual_seed(3)
    out_img, out_mask, label = v2.RandomResizedCrop(20)(pil, mask, 7)
    assert label == 7 and out_img.size == out_mask.size == (20, 20)
    ember.manual_seed(3)
    top, left, h, w = v1.RandomResizedCrop.get_params(pil, (0.08, 1.0), (3 / 4, 4 / 3))
    expected = v1.functional.resized_crop(mask, top, left, h, w, [20, 20],
                                          v1.InterpolationMode.BILINEAR)
    np.testing.assert_array_equal(np.asarray(out_mask), np.asarray(expected))


def test_first_plain_tensor_is_the_image():
    x = ember.from_numpy(image_array())
    other = ember.arange(5)
    flipped, rest = v2.RandomHorizontalFlip(p=1.0)(x, other)
    np.testing.assert_array_equal(flipped.numpy(), torch.from_numpy(image_array()).flip(-1))
    assert rest is other
    sample = {"image": x, "label": 2}
    out = v2.RandomVerticalFlip(p=1.0)(sample)
    assert out["label"] == 2
    np.testing.assert_array_equal(out["image"].numpy(), torch.from_numpy(image_array()).flip(-2))
    assert v2.RandomHorizontalFlip(p=0.0)(x) is x


def test_random_draws_follow_the_v1_transforms():
    x = ember.from_numpy(image_array(h=32, w=32))
    for new, old in [(v2.ColorJitter(0.4, 0.4, 0.4, 0.1), v1.ColorJitter(0.4, 0.4, 0.4, 0.1)),
                     (v2.RandomRotation(30), v1.RandomRotation(30)),
                     (v2.GaussianBlur(5), v1.GaussianBlur(5))]:
        ember.manual_seed(11)
        a = new(x)
        ember.manual_seed(11)
        np.testing.assert_array_equal(a.numpy(), old(x).numpy())


def test_random_crop_padding():
    x = ember.from_numpy(image_array(h=8, w=10))
    ember.manual_seed(0)
    out = v2.RandomCrop(12, padding=2)(x)
    assert tuple(out.shape) == (3, 12, 12)
    padded = np.pad(image_array(h=8, w=10), ((0, 0), (2, 2), (2, 2)))
    windows = [padded[:, i:i + 12, j:j + 12] for i in range(1) for j in range(3)]
    assert any((out.numpy() == w).all() for w in windows)
    grown = v2.RandomCrop((10, 14), pad_if_needed=True)(x)
    assert tuple(grown.shape) == (3, 10, 14)
    with pytest.raises(ValueError, match="Required crop size \\(20, 20\\) is larger than input"):
        v2.RandomCrop(20)(x)


def test_grayscale_rgb_and_normalize_skip_pil():
    x = ember.from_numpy(image_array()).float() / 255
    gray = v2.Grayscale()(x)
    expected = (0.2989 * x[0] + 0.587 * x[1] + 0.114 * x[2]).numpy()
    np.testing.assert_allclose(gray.numpy()[0], expected, rtol=1e-5, atol=1e-6)
    assert tuple(v2.RGB()(gray).shape) == (3, 30, 40)
    ember.manual_seed(0)
    assert tuple(v2.RandomGrayscale(p=1.0)(x).shape) == (3, 30, 40)
    pil = Image.fromarray(image_array().transpose(1, 2, 0))
    assert v2.Normalize([0.5], [0.5])(pil) is pil


def test_random_erasing():
    x = ember.ones(3, 20, 20)
    ember.manual_seed(1)
    out = v2.RandomErasing(p=1.0, value=0)(x)
    zeros = out.numpy() == 0
    assert zeros.any() and not zeros.all() and (x.numpy() == 1).all()
    rows, cols = np.nonzero(zeros[0])
    assert zeros[:, rows.min():rows.max() + 1, cols.min():cols.max() + 1].all()
    assert v2.RandomErasing(p=0.0)(x) is x
    with pytest.raises(ValueError, match="If value is str, it should be 'random'"):
        v2.RandomErasing(value="noise")


def test_mixup_blends_images_and_labels():
    images = ember.from_numpy(RNG.standard_normal((4, 3, 8, 8)).astype(np.float32))
    labels = ember.tensor([0, 2, 1, 2])
    ember.manual_seed(0)
    mixed, soft = v2.MixUp(alpha=0.4, num_classes=3)(images, labels)
    assert tuple(soft.shape) == (4, 3) and soft.dtype == ember.float32
    np.testing.assert_allclose(soft.numpy().sum(1), 1, rtol=1e-6)
    lam = float(soft[0, 0])  # sample 0 has class 0, the one before it (sample 3) class 2
    x = torch.from_numpy(images.numpy())
    expected = lam * x + (1 - lam) * x.roll(1, 0)
    np.testing.assert_allclose(mixed.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_cutmix_pastes_a_box_and_mixes_by_area():
    images = ember.from_numpy(np.arange(2 * 1 * 10 * 10, dtype=np.float32).reshape(2, 1, 10, 10))
    labels = ember.tensor([[1.0, 0.0], [0.0, 1.0]])
    ember.manual_seed(4)
    mixed, soft = v2.CutMix(num_classes=2)({"image": images, "labels": labels}).values()
    pasted = (mixed.numpy() != images.numpy())[0, 0]
    lam = 1 - pasted.mean()
    np.testing.assert_allclose(soft.numpy()[0], [lam, 1 - lam], rtol=1e-6)
    np.testing.assert_array_equal(mixed.numpy()[0, 0][pasted], images.numpy()[1, 0][pasted])


def test_mixup_cutmix_errors():
    images = ember.zeros(2, 3, 4, 4)
    with pytest.raises(ValueError, match="num_classes must be passed if the labels are "
                                         "index-based"):
        v2.MixUp()(images, ember.tensor([0, 1]))
    with pytest.raises(ValueError, match="The batch size of the image or video does not match"):
        v2.CutMix(num_classes=2)(images, ember.tensor([0, 1, 1]))
    with pytest.raises(ValueError, match="Expected a batched input with 4 dims"):
        v2.MixUp(num_classes=2)(ember.zeros(3, 4, 4), ember.tensor([0, 1, 1]))
    pil = Image.fromarray(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match="MixUp\\(\\) does not support PIL images"):
        v2.MixUp(num_classes=2)(pil, ember.tensor([0]))


def test_containers():
    x = ember.from_numpy(image_array())
    with pytest.raises(ValueError, match="Pass at least one transform"):
        v2.Compose([])
    with pytest.raises(ValueError, match="Length of p doesn't match the number of transforms: 1 "
                                         "!= 2"):
        v2.RandomChoice([v2.Identity(), v2.Identity()], p=[1])
    out, label = v2.Compose([v2.RandomHorizontalFlip(1.0), v2.RandomVerticalFlip(1.0)])(x, 5)
    np.testing.assert_array_equal(out.numpy(), torch.from_numpy(image_array()).flip(-1, -2))
    assert label == 5
    assert v2.RandomApply([v2.Grayscale()], p=0.0)(x) is x
    assert tuple(v2.RandomApply([v2.Grayscale()], p=1.0)(x).shape) == (1, 30, 40)
    ember.manual_seed(0)
    order = v2.RandomOrder([v2.Lambda(lambda t: t + 1), v2.Lambda(lambda t: t * 2)])
    assert int(order(ember.tensor(1))) in (3, 4)
    choice = v2.RandomChoice([v2.Lambda(lambda t: t * 0), v2.Identity()], p=[0, 1])
    assert choice(x) is x
    assert v2.Lambda(lambda v: v * 10, int)(3, "a") == (30, "a")


def test_reprs_as_torchvision():
    # recorded from torchvision 0.29.1
    pipeline = v2.Compose([v2.RandomResizedCrop(224), v2.RandomHorizontalFlip(), v2.ToImage(),
                           v2.ToDtype(ember.float32, scale=True), v2.Normalize([0.5], [0.5])])
    assert repr(pipeline) == (
        "Compose(\n      RandomResizedCrop(size=(224, 224), scale=(0.08, 1.0), ratio=(0.75, "
        "1.3333333333333333), interpolation=bilinear, antialias=True)\n      "
        "RandomHorizontalFlip(p=0.5)\n      ToImage()\n      ToDtype(scale=True)\n      "
        "Normalize(mean=[0.5], std=[0.5], inplace=False)\n)")
    assert repr(v2.Resize(256)) == "Resize(size=[256], interpolation=bilinear, antialias=True)"
    assert repr(v2.RandomCrop(32, padding=4)) == (
        "RandomCrop(size=(32, 32), padding=[4, 4, 4, 4], pad_if_needed=False, fill=0, "
        "padding_mode=constant)")
    assert repr(v2.ColorJitter(0.4, 0.4)) == "ColorJitter(brightness=(0.6, 1.4), " \
                                             "contrast=(0.6, 1.4))"
    assert repr(v2.RandomErasing()) == ("RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, "
                                        "3.3), value=[0.0], inplace=False)")
    assert repr(v2.CutMix(alpha=0.5, num_classes=3)) == "CutMix(alpha=0.5, num_classes=3)"
    assert repr(v2.RandomApply([v2.Grayscale()], p=0.3)) == \
        "RandomApply(    Grayscale(num_output_channels=1))"
    assert repr(v2.RandomChoice([v2.Grayscale(), v2.Identity()])) == (
        "RandomChoice(transforms=[Grayscale(num_output_channels=1), Identity()], p=[0.5, 0.5])")
    assert repr(v2.GaussianBlur(3)) == "GaussianBlur(kernel_size=(3, 3), sigma=[0.1, 2.0])"
    assert repr(v2.RandomRotation(10)) == ("RandomRotation(degrees=[-10.0, 10.0], "
                                           "interpolation=nearest, expand=False, fill=0)")
    assert repr(v2.Lambda(lambda x: x)) == "Lambda(<lambda>, types=['object'])"


def test_functional():
    x = ember.from_numpy(image_array())
    assert F.get_size(x) == [30, 40] and F.get_num_channels(x) == 3
    assert F.get_dimensions(x) == [3, 30, 40]
    np.testing.assert_array_equal(F.horizontal_flip(x).numpy(), F.hflip(x).numpy())
    assert tuple(F.resize(x, [10, 12], interpolation="nearest").shape) == (3, 10, 12)
    with pytest.raises(ValueError, match="Invalid interpolation mode: 'cubic'"):
        F.resize(x, [10], interpolation="cubic")
    assert F.to_image(x) is x
    assert tuple(F.erase(x, 1, 2, 3, 4, 0).shape) == (3, 30, 40)


def test_unimplemented_names_raise():
    with pytest.raises(NotImplementedError, match="torchvision.transforms.v2._auto_augment."
                                                  "AutoAugment is not implemented in ember"):
        v2.AutoAugment()
    with pytest.raises(NotImplementedError, match="v2.functional._geometry.affine "):
        F.affine(ember.zeros(3, 4, 4), 0, [0, 0], 1, [0])
    # the policy enum is v1's, as in torchvision
    assert v2.AutoAugmentPolicy.IMAGENET is v1.AutoAugmentPolicy.IMAGENET
