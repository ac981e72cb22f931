"""torchvision.transforms.v2 for classification: transforms that take a whole sample (an
image with its label, or nested tuples / dicts) and apply one draw of their random
parameters to every image in it, plus batch-level MixUp and CutMix.

ember has no tv_tensors (Tensor subclasses): images are PIL images or plain (..., C, H,
W) tensors, and in a sample without a PIL image the first plain tensor is the image (as
in torchvision). The detection-oriented transforms (bounding boxes, masks, keypoints),
the video ones, the auto-augment policies and a few geometric and colour transforms
import and raise NotImplementedError naming themselves.
"""
from ..autoaugment import AutoAugmentPolicy  # noqa: F401
from ..functional import InterpolationMode  # noqa: F401
from . import functional  # noqa: F401
from ._transform import Transform  # noqa: F401
from ._augment import CutMix, JPEG, MixUp, RandomErasing  # noqa: F401
from ._auto_augment import AugMix, AutoAugment, RandAugment, TrivialAugmentWide  # noqa: F401
from ._color import (RGB, ColorJitter, Grayscale, RandomAdjustSharpness,  # noqa: F401
                     RandomAutocontrast, RandomChannelPermutation, RandomEqualize,
                     RandomGrayscale, RandomInvert, RandomPhotometricDistort, RandomPosterize,
                     RandomSolarize)
from ._container import Compose, RandomApply, RandomChoice, RandomOrder  # noqa: F401
from ._geometry import (CenterCrop, ElasticTransform, FiveCrop, Pad,  # noqa: F401
                        RandomAffine, RandomCrop, RandomHorizontalFlip, RandomIoUCrop,
                        RandomPerspective, RandomResize, RandomResizedCrop, RandomRotation,
                        RandomShortestSize, RandomVerticalFlip, RandomZoomOut, Resize,
                        ScaleJitter, TenCrop)
from ._meta import (ClampBoundingBoxes, ClampKeyPoints,  # noqa: F401
                    ConvertBoundingBoxFormat, SetClampingMode)
from ._misc import (ConvertImageDtype, GaussianBlur, GaussianNoise, Identity,  # noqa: F401
                    Lambda, LinearTransformation, Normalize, SanitizeBoundingBoxes,
                    SanitizeKeyPoints, ToDtype)
from ._temporal import UniformTemporalSubsample  # noqa: F401
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor  # noqa: F401
from ._utils import (check_type, get_bounding_boxes, get_keypoints, has_all,  # noqa: F401
                     has_any, query_chw, query_size)
from ._deprecated import ToTensor  # noqa: F401
