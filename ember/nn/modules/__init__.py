"""ember.nn.modules: one file per family of layers, as in torch.nn.modules.

Each family file lists its layers in __all__; add a family with one import line.
"""
from types import ModuleType as _ModuleType

from .module import Module  # noqa: F401
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .linear_cross_entropy_options import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403

# What `from .modules import *` (in ember.nn) takes: the layers and functions, not the
# family submodules, whose names would hide ember.nn's own (nn.utils is not
# nn.modules.utils).
__all__ = [name for name, value in list(globals().items())
           if not name.startswith("_") and not isinstance(value, _ModuleType)]
