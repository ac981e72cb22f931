"""Torch computations the vision tests compare ember's transforms with."""
import numpy as np
import torch
import torch.nn.functional as TF

IMAGENET_MEAN, IMAGENET_STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def classification_preset(image: np.ndarray, resize_to: tuple, crop: int) -> np.ndarray:
    """torchvision's ImageClassification on a (3, H, W) uint8 array, written in torch:
    antialiased bilinear resize to resize_to (rounded back to uint8), centre crop, scale
    to [0, 1], ImageNet normalization."""
    resized = TF.interpolate(torch.from_numpy(image).float()[None], size=resize_to,
                             mode="bilinear", antialias=True, align_corners=False)[0]
    resized = resized.round().clamp(0, 255).to(torch.uint8)
    top, left = round((resize_to[0] - crop) / 2), round((resize_to[1] - crop) / 2)
    scaled = resized[:, top:top + crop, left:left + crop].float() / 255
    mean, std = torch.tensor(IMAGENET_MEAN), torch.tensor(IMAGENET_STD)
    return ((scaled - mean[:, None, None]) / std[:, None, None]).numpy()


def assert_close_to_preset(out: np.ndarray, expected: np.ndarray) -> None:
    """ember's resize sums in another order than torch's: a few pixels at x.5 round to
    the neighbouring uint8 level, one level over the smallest std at most."""
    diff = np.abs(out - expected)
    assert diff.max() < 1 / 255 / min(IMAGENET_STD) + 1e-5 and (diff > 1e-5).mean() < 1e-3
