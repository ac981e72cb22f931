"""ember.backends: the flags PyTorch scripts set; accepted and recorded, with no effect on
the CPU NumPy backend."""
from . import cudnn, mps  # noqa: F401
