"""ember.utils: helpers outside the op library (torch.utils's shape)."""
from . import data  # noqa: F401
