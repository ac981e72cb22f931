"""torch.cpu.amp: the deprecated CPU spellings of autocast and GradScaler."""
from __future__ import annotations

from .. import _dtype
from ..amp import autocast_mode, grad_scaler
from ..cuda.amp import _deprecated

__all__ = ["autocast", "GradScaler"]


class autocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype: _dtype.dtype = _dtype.bfloat16,
                 cache_enabled: bool = True):
        _deprecated("autocast", "cpu")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        _deprecated("GradScaler", "cpu")
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
