"""torch.signal: window functions for signal processing (torch.signal.windows)."""
from . import windows  # noqa: F401

__all__ = ["windows"]
