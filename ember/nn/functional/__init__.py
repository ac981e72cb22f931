"""ember.nn.functional: the math behind every layer, one module per family as torch's
functional.py sections. `import ember.nn.functional as F` sees all of them."""
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
