"""ember.nn: Module, Parameter, layers, init and functional."""
from .parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                        UninitializedParameter)
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
# `from .modules import *` also copied nn.modules' submodule `attention` (layers), which
# would hide the torch.nn.attention package (SDPBackend, sdpa_kernel) from `from . import`.
del attention  # noqa: F821
from . import attention  # noqa: E402,F401
