"""ember.nn.functional: the math behind every layer, one module per family as torch's
functional.py sections. `import ember.nn.functional as F` sees all of them."""
import inspect as _inspect

from ..._naming import set_public_module

from .activation import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .linear_cross_entropy import *  # noqa: F401,F403
from .ctc import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .fractional_pool import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .local_norm import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .grid import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .. import _reduction as _Reduction  # noqa: F401  (torch's F._Reduction)


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    """Raise AssertionError(message.format(arg_name)) unless `arg` is an int or a pair."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


# The functions live in one file per family, but torch's F is a single module: pickles
# that hold one must name torch.nn.functional.<name>, the path both libraries resolve.
set_public_module(__name__, *[
    obj for name, obj in list(globals().items())
    if not name.startswith("_") and _inspect.isfunction(obj)
    and obj.__module__.startswith(__name__ + ".")])
