"""Augmentations of whole images and batches (torchvision.transforms.v2._augment):
RandomErasing, and MixUp / CutMix, which blend a batch with itself shifted by one and mix
the labels in proportion. JPEG raises NotImplementedError naming itself."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Callable

from .... import clamp, randint, tensor
from ...._tensor import Tensor
from ....distributions import Beta
from ....nn.functional import one_hot
from ....utils._pytree import tree_flatten, tree_unflatten
from ... import _unavailable
from ..._pil import is_pil_image
from .. import transforms as v1
from . import functional as F
from ._transform import Transform, _RandomApplyTransform

__all__ = ["RandomErasing", "MixUp", "CutMix"]


class RandomErasing(_RandomApplyTransform):
    """With probability p, set a random box of the image tensor (area a `scale` fraction,
    aspect ratio in `ratio`) to value (a number, one per channel, or "random" for normal
    noise) (Zhong et al., 2017)."""

    _handles_pil = False

    def __init__(self, p: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0.0,
                 inplace: bool = False) -> None:
        super().__init__(p=p)
        v1.RandomErasing(0.5, scale, ratio, value)  # validates them
        self.scale = scale
        self.ratio = ratio
        if isinstance(value, (int, float)):
            self.value = [float(value)]
        elif isinstance(value, str):
            self.value = None
        else:
            self.value = [float(v) for v in value]
        self.inplace = inplace

    def make_params(self, flat_inputs: list) -> dict:
        image = flat_inputs[0]
        channels = F.get_num_channels(image)
        if self.value is not None and len(self.value) not in (1, channels):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{channels} (number of inpt channels)")
        i, j, h, w, v = v1.RandomErasing.get_params(image, self.scale, self.ratio, self.value)
        return {"i": i, "j": j, "h": h, "w": w, "v": None if v is image else v}

    def transform(self, inpt: Any, params: dict) -> Any:
        if params["v"] is None:
            return inpt
        return F.erase(inpt, **params, inplace=self.inplace)


def _default_labels(inputs: Any) -> Tensor:
    """Where a sample keeps its labels: the second item of an (images, labels) pair, or a
    dict entry named "labels" (or containing "label")."""
    if isinstance(inputs, (tuple, list)):
        inputs = inputs[1]
    if isinstance(inputs, Tensor):
        return inputs
    if not isinstance(inputs, Mapping):
        raise ValueError("When using the default labels_getter, the input passed to forward "
                         "must be a dictionary or a two-tuple whose second item is a "
                         f"dictionary or a tensor, but got {inputs} instead.")
    keys = [key for key in inputs if key.lower() == "labels"] or \
        [key for key in inputs if "label" in key.lower()]
    if not keys:
        raise ValueError("Could not infer where the labels are in the sample. Try passing a "
                         "callable as the labels_getter parameter?If there are no labels in "
                         "the sample by design, pass labels_getter=None.")
    return inputs[keys[0]]


class _BaseMixUpCutMix(Transform):
    """Batch-level mixing: the inputs are a (B, C, H, W) image batch and its labels
    ((B,) class indices, turned one-hot with num_classes, or (B, num_classes))."""

    def __init__(self, *, alpha: float = 1.0, num_classes: int | None = None,
                 labels_getter: str | Callable = "default") -> None:
        super().__init__()
        self.alpha = float(alpha)
        self._dist = Beta(tensor([alpha]), tensor([alpha]))
        self.num_classes = num_classes
        if labels_getter == "default":
            self._labels_getter = _default_labels
        elif callable(labels_getter):
            self._labels_getter = labels_getter
        elif labels_getter is None:
            self._labels_getter = lambda sample: None
        else:
            raise ValueError("labels_getter should either be 'default', a callable, or None, "
                             f"but got {labels_getter}.")

    def forward(self, *inputs: Any) -> Any:
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, spec = tree_flatten(inputs)
        if any(is_pil_image(inpt) for inpt in flat_inputs):
            raise ValueError(f"{type(self).__name__}() does not support PIL images, bounding "
                             "boxes, keypoints and masks.")
        labels = self._checked_labels(self._labels_getter(inputs))
        needs = self._needs_transform_list(flat_inputs)
        params = {"labels": labels, "batch_size": labels.shape[0],
                  **self.make_params([x for x, need in zip(flat_inputs, needs) if need])}
        outputs = [self._mix_labels(x, params) if x is labels
                   else self._mix_images(x, params) if need else x
                   for x, need in zip(flat_inputs, needs)]
        return tree_unflatten(outputs, spec)

    def _checked_labels(self, labels) -> Tensor:
        if not isinstance(labels, Tensor):
            raise ValueError(f"The labels must be a tensor, but got {type(labels)} instead.")
        if labels.ndim not in (1, 2):
            raise ValueError("labels should be index based with shape (batch_size,) or "
                             "probability based with shape (batch_size, num_classes), but got "
                             f"a tensor of shape {labels.shape} instead.")
        if labels.ndim == 2 and self.num_classes is not None and \
                labels.shape[-1] != self.num_classes:
            raise ValueError("When passing 2D labels, the number of elements in last dimension "
                             f"must match num_classes: {labels.shape[-1]} != {self.num_classes}. "
                             "You can Leave num_classes to None.")
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        return labels

    def _check_batch(self, images: Tensor, batch_size: int) -> None:
        if images.ndim != 4:
            raise ValueError(f"Expected a batched input with 4 dims, but got {images.ndim} "
                             "dimensions instead.")
        if images.shape[0] != batch_size:
            raise ValueError("The batch size of the image or video does not match the batch "
                             f"size of the labels: {images.shape[0]} != {batch_size}.")

    def _mix(self, label: Tensor, lam: float) -> Tensor:
        """lam * label + (1 - lam) * label of the previous sample in the batch."""
        if label.ndim == 1:
            label = one_hot(label, num_classes=self.num_classes)
        if not label.is_floating_point():
            label = label.float()
        return label.roll(1, 0) * (1.0 - lam) + label * lam


class MixUp(_BaseMixUpCutMix):
    """Blend each image with the previous one of the batch, lam * x + (1 - lam) * x_prev,
    lam ~ Beta(alpha, alpha); the labels are blended alike (Zhang et al., 2017)."""

    def make_params(self, flat_inputs: list) -> dict:
        return {"lam": float(self._dist.sample(()).item())}

    def _mix_labels(self, labels: Tensor, params: dict) -> Tensor:
        return self._mix(labels, params["lam"])

    def _mix_images(self, images: Tensor, params: dict) -> Tensor:
        self._check_batch(images, params["batch_size"])
        lam = params["lam"]
        return images.roll(1, 0) * (1.0 - lam) + images * lam


class CutMix(_BaseMixUpCutMix):
    """Paste a random box of the previous image of the batch into each image (box area
    about 1 - lam, lam ~ Beta(alpha, alpha)); the labels mix by the pasted area (Yun et
    al., 2019)."""

    def make_params(self, flat_inputs: list) -> dict:
        lam = float(self._dist.sample(()).item())
        height, width = F.get_size(flat_inputs[0])
        r_x = randint(width, size=(1,))
        r_y = randint(height, size=(1,))
        r = 0.5 * math.sqrt(1.0 - lam)
        half_w, half_h = int(r * width), int(r * height)
        x1 = int(clamp(r_x - half_w, min=0).item())
        y1 = int(clamp(r_y - half_h, min=0).item())
        x2 = int(clamp(r_x + half_w, max=width).item())
        y2 = int(clamp(r_y + half_h, max=height).item())
        return {"box": (x1, y1, x2, y2),
                "lam_adjusted": float(1.0 - (x2 - x1) * (y2 - y1) / (width * height))}

    def _mix_labels(self, labels: Tensor, params: dict) -> Tensor:
        return self._mix(labels, params["lam_adjusted"])

    def _mix_images(self, images: Tensor, params: dict) -> Tensor:
        self._check_batch(images, params["batch_size"])
        x1, y1, x2, y2 = params["box"]
        output = images.clone()
        output[..., y1:y2, x1:x2] = images.roll(1, 0)[..., y1:y2, x1:x2]
        return output


globals().update(_unavailable.stand_ins(__name__, ["JPEG"]))
