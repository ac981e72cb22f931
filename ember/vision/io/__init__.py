"""torchvision.io: image and video reading and writing, not implemented in ember (see
io.image); the names import and raise NotImplementedError naming themselves."""
from .image import *  # noqa: F401,F403
from .image import __all__  # noqa: F401
