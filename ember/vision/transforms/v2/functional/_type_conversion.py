"""to_image of transforms.v2.functional.

torchvision returns a `tv_tensors.Image`, a Tensor subclass that marks the tensor as an
image for the transforms that follow. ember has no Tensor subclasses: to_image returns a
plain (C, H, W) tensor, which the v2 transforms treat as the image of a sample when no PIL
image is present (the first plain tensor of the sample)."""
from __future__ import annotations

import numpy as np

from ..... import from_numpy
from ....._tensor import Tensor
from ... import functional as F

__all__ = ["to_image"]


def to_image(inpt) -> Tensor:
    """A (C, H, W) tensor from a PIL image (as pil_to_tensor), an (H, W, C) NumPy array, or
    a tensor (returned as is)."""
    if isinstance(inpt, np.ndarray):
        return from_numpy(np.atleast_3d(inpt)).permute(2, 0, 1).contiguous()
    if isinstance(inpt, Tensor):
        return inpt
    return F.pil_to_tensor(inpt)
