"""ember.utils: helpers outside the op library (torch.utils's shape)."""
from . import checkpoint, data, hooks  # noqa: F401
