"""torchvision.transforms.v2.functional: the kernels of the v2 transforms for PIL images
and image tensors. Kernels of the types ember lacks (bounding boxes, masks, keypoints,
videos) and the operations it does not implement raise NotImplementedError naming
themselves."""
from ...functional import InterpolationMode, pil_to_tensor, to_pil_image  # noqa: F401
from . import _augment, _color, _geometry, _meta, _misc
from ._augment import *  # noqa: F401,F403
from ._color import *  # noqa: F401,F403
from ._deprecated import get_image_size, to_tensor  # noqa: F401
from ._geometry import *  # noqa: F401,F403
from ._meta import *  # noqa: F401,F403
from ._misc import *  # noqa: F401,F403
from ._temporal import *  # noqa: F401,F403
from ._type_conversion import to_image  # noqa: F401
from ._utils import is_pure_tensor, register_kernel  # noqa: F401

# the submodules' stand-ins belong to this namespace too, as in torchvision
for _module in (_augment, _color, _geometry, _meta, _misc):
    globals().update({name: getattr(_module, name) for name in _module._MISSING})
del _module
