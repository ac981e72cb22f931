"""torchvision.tv_tensors: Tensor subclasses (Image, Video, Mask, BoundingBoxes, KeyPoints)
that tell the v2 transforms what a tensor holds. ember has no Tensor subclasses, so these
are not implemented: the names import and raise NotImplementedError naming themselves
when used. Classification pipelines do not need them: ember's v2 transforms take PIL
images and plain tensors (see transforms.v2)."""
from .. import _unavailable
from ._bounding_boxes import (BoundingBoxes, BoundingBoxFormat,  # noqa: F401
                              is_rotated_bounding_format)
from ._image import Image  # noqa: F401
from ._keypoints import KeyPoints  # noqa: F401
from ._mask import Mask  # noqa: F401
from ._torch_function_helpers import set_return_type  # noqa: F401
from ._tv_tensor import TVTensor  # noqa: F401
from ._video import Video  # noqa: F401

globals().update(_unavailable.stand_ins(__name__, ["wrap"]))
