"""ember.utils: helpers outside the op library (torch.utils's shape)."""
from . import _pytree, checkpoint, data, dlpack, hooks  # noqa: F401
