"""The v1 functions transforms.v2.functional keeps for old code."""
from __future__ import annotations

import warnings

from ... import functional as F

__all__ = ["to_tensor", "get_image_size"]


def to_tensor(inpt):
    """transforms.functional.to_tensor, with torchvision's deprecation warning."""
    warnings.warn("The function `to_tensor(...)` is deprecated and will be removed in a future "
                  "release. Instead, please use `to_image(...)` followed by "
                  "`to_dtype(..., dtype=torch.float32, scale=True)`.")
    return F.to_tensor(inpt)


def get_image_size(inpt) -> list:
    """[width, height], with torchvision's deprecation warning."""
    warnings.warn("The function `get_image_size(...)` is deprecated and will be removed in a "
                  "future release. Instead, please use `get_size(...)` which returns "
                  "`[h, w]` instead of `[w, h]`.")
    return F.get_image_size(inpt)
