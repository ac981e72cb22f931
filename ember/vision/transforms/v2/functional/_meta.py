"""Image size queries of transforms.v2.functional. The bounding-box, keypoint and video
versions raise NotImplementedError."""
from __future__ import annotations

from .... import _unavailable
from ... import functional as F

__all__ = ["get_dimensions", "get_dimensions_image", "get_num_channels",
           "get_num_channels_image", "get_image_num_channels", "get_size", "get_size_image"]


def get_dimensions(inpt) -> list:
    """[channels, height, width]."""
    return F.get_dimensions(inpt)


def get_num_channels(inpt) -> int:
    """The number of channels."""
    return F.get_dimensions(inpt)[0]


def get_size(inpt) -> list:
    """[height, width] (note: v1's get_image_size is [width, height])."""
    return F.get_dimensions(inpt)[1:]


get_dimensions_image, get_size_image = get_dimensions, get_size
get_num_channels_image = get_image_num_channels = get_num_channels

_MISSING = ["get_dimensions_video", "get_num_channels_video", "get_num_frames",
           "get_num_frames_video", "get_size_video", "get_size_mask", "get_size_bounding_boxes",
           "get_size_keypoints", "clamp_bounding_boxes", "clamp_keypoints",
           "convert_bounding_box_format"]
globals().update(_unavailable.stand_ins(__name__, _MISSING))
