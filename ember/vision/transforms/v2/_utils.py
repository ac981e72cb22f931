"""Sample queries of the v2 transforms (torchvision.transforms.v2._utils): which types a
sample holds and the image size. The bounding-box and keypoint getters raise
NotImplementedError (ember has no tv_tensors)."""
from __future__ import annotations

from typing import Any

from ...._tensor import Tensor
from ... import _unavailable
from ..._pil import is_pil_image
from . import functional as F

__all__ = ["check_type", "has_any", "has_all", "query_chw", "query_size"]


def check_type(obj: Any, types_or_checks: tuple) -> bool:
    """Whether obj is an instance of one of the types or passes one of the checks."""
    return any(isinstance(obj, t) if isinstance(t, type) else t(obj) for t in types_or_checks)


def has_any(flat_inputs: list, *types_or_checks) -> bool:
    """Whether some input matches one of the types or checks."""
    return any(check_type(inpt, types_or_checks) for inpt in flat_inputs)


def has_all(flat_inputs: list, *types_or_checks) -> bool:
    """Whether every type or check is matched by some input."""
    return all(any(check_type(inpt, (t,)) for inpt in flat_inputs) for t in types_or_checks)


def _images(flat_inputs: list) -> list:
    return [inpt for inpt in flat_inputs if isinstance(inpt, Tensor) or is_pil_image(inpt)]


def query_chw(flat_inputs: list) -> tuple:
    """(channels, height, width) shared by the images of a sample."""
    sizes = {tuple(F.get_dimensions(inpt)) for inpt in _images(flat_inputs)}
    if not sizes:
        raise TypeError("No image or video was found in the sample")
    if len(sizes) > 1:
        raise ValueError(f"Found multiple CxHxW dimensions in the sample: "
                         f"{sorted(sizes)}")
    return sizes.pop()


def query_size(flat_inputs: list) -> tuple:
    """(height, width) shared by the images of a sample."""
    return query_chw(flat_inputs)[1:]


globals().update(_unavailable.stand_ins(__name__, ["get_bounding_boxes", "get_keypoints"]))
