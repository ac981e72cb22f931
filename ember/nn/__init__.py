"""ember.nn: Module, Parameter, layers, init and functional."""
from .parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                        UninitializedParameter)
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import common_types, functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import attention  # noqa: F401  (the torch.nn.attention package)
