"""torchvision.transforms.v2._meta: bounding-box and keypoint transforms, not implemented
in ember (it has no tv_tensors); the names import and raise NotImplementedError."""
from ... import _unavailable

__all__ = ["ConvertBoundingBoxFormat", "ClampBoundingBoxes", "ClampKeyPoints",
           "SetClampingMode"]
globals().update(_unavailable.stand_ins(__name__, __all__))
