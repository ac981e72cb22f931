"""torch.cpu.amp: the deprecated CPU spellings of autocast and GradScaler."""
from __future__ import annotations

from .. import _dtype
from ..amp import autocast_mode
from ..cuda.amp import _deprecated, _DeviceGradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype: _dtype.dtype = _dtype.bfloat16,
                 cache_enabled: bool = True):
        _deprecated("autocast", "cpu")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_DeviceGradScaler):
    _device_type = "cpu"
