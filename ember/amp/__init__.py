"""ember.amp: automatic mixed precision (torch.amp): autocast regions and GradScaler."""
from .autocast_mode import (autocast, clear_autocast_cache, custom_bwd,  # noqa: F401
                            custom_fwd, get_autocast_dtype,
                            is_autocast_available, is_autocast_cache_enabled,
                            is_autocast_enabled, set_autocast_cache_enabled,
                            set_autocast_dtype, set_autocast_enabled)
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "GradScaler", "is_autocast_available"]
