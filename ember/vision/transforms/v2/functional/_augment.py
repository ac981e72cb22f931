"""erase of transforms.v2.functional; the video kernel and jpeg raise NotImplementedError."""
from __future__ import annotations

from ....._tensor import Tensor
from .... import _unavailable
from ... import functional as F

__all__ = ["erase", "erase_image"]


def erase(inpt: Tensor, i: int, j: int, h: int, w: int, v, inplace: bool = False) -> Tensor:
    """Set the box of height h and width w at (i, j) to v."""
    return F.erase(inpt, i, j, h, w, v, inplace)


erase_image = erase

_MISSING = ["erase_video", "jpeg", "jpeg_image", "jpeg_video"]
globals().update(_unavailable.stand_ins(__name__, _MISSING))
