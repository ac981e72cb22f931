"""ember.utils: helpers outside the op library (torch.utils's shape)."""
from . import checkpoint, data, dlpack, hooks  # noqa: F401
