"""The base of the v2 transforms (torchvision.transforms.v2.Transform).

A v2 transform takes a whole sample: one image, or any nesting of tuples, lists and dicts
holding images, labels and other values. It draws its random parameters once per call
(make_params) and applies them (transform) to every input it handles, so an image and
its companions stay consistent; the rest passes through unchanged. Handled inputs are PIL
images and tensors; as torchvision, when the sample holds no PIL image only its first
plain tensor is taken for the image (a second tensor, a label, passes through).
"""
from __future__ import annotations

import enum
from typing import Any

from .... import rand
from ...._tensor import Tensor
from ....nn import Module
from ....utils._pytree import tree_flatten, tree_unflatten
from ..._pil import is_pil_image

__all__ = ["Transform"]


class Transform(Module):
    """Subclasses override make_params (random parameters drawn once per call from the
    inputs to transform) and transform (one input and the parameters -> its output), and
    say which inputs they handle (tensors, PIL images)."""

    _handles_tensors = True
    _handles_pil = True

    def make_params(self, flat_inputs: list) -> dict:
        """The random parameters of one call (none by default)."""
        return {}

    def transform(self, inpt: Any, params: dict) -> Any:
        """The output for one input; subclasses implement it."""
        raise NotImplementedError

    def _handles(self, inpt) -> bool:
        if isinstance(inpt, Tensor):
            return self._handles_tensors
        return self._handles_pil and is_pil_image(inpt)

    def _needs_transform_list(self, flat_inputs: list) -> list:
        take_plain_tensor = not any(is_pil_image(inpt) for inpt in flat_inputs)
        needs = []
        for inpt in flat_inputs:
            handled = self._handles(inpt)
            if handled and isinstance(inpt, Tensor):
                handled, take_plain_tensor = take_plain_tensor, False
            needs.append(handled)
        return needs

    def forward(self, *inputs: Any) -> Any:
        flat_inputs, spec = tree_flatten(inputs if len(inputs) > 1 else inputs[0])
        needs = self._needs_transform_list(flat_inputs)
        params = self.make_params([inpt for inpt, need in zip(flat_inputs, needs) if need])
        outputs = [self.transform(inpt, params) if need else inpt
                   for inpt, need in zip(flat_inputs, needs)]
        return tree_unflatten(outputs, spec)

    def extra_repr(self) -> str:
        # torchvision's rule: the public attributes of simple types, in definition order
        return ", ".join(f"{name}={value.value if isinstance(value, enum.Enum) else value}"
                         for name, value in vars(self).items()
                         if not name.startswith("_") and name != "training"
                         and isinstance(value, (bool, int, float, str, tuple, list,
                                                enum.Enum)))


class _RandomApplyTransform(Transform):
    """A transform applied with probability p (all inputs of the call together)."""

    def __init__(self, p: float = 0.5) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs: Any) -> Any:
        if rand(1).item() >= self.p:
            return inputs if len(inputs) > 1 else inputs[0]
        return super().forward(*inputs)
