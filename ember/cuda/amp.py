"""torch.cuda.amp: the deprecated CUDA spellings of autocast and GradScaler.

ember has no CUDA, so both warn and disable themselves, exactly as torch does on a
machine without a GPU; code written for CUDA still runs, in full precision.
"""
from __future__ import annotations

import warnings

from .. import _dtype
from ..amp import autocast_mode, grad_scaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def _deprecated(name: str, device: str) -> None:
    warnings.warn(f"`torch.{device}.amp.{name}(args...)` is deprecated. Please use "
                  f"`torch.amp.{name}('{device}', args...)` instead.", FutureWarning,
                  stacklevel=3)


class autocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype: _dtype.dtype = _dtype.float16,
                 cache_enabled: bool = True):
        _deprecated("autocast", "cuda")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class _DeviceGradScaler(grad_scaler.GradScaler):
    """GradScaler with its device fixed by the subclass (torch.cuda/cpu.amp.GradScaler)."""

    _device_type = ""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        _deprecated("GradScaler", self._device_type)
        super().__init__(self._device_type, init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


class GradScaler(_DeviceGradScaler):
    _device_type = "cuda"


def custom_fwd(fwd=None, *, cast_inputs: _dtype.dtype | None = None):
    """Deprecated spelling of torch.amp.custom_fwd(..., device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated spelling of torch.amp.custom_bwd(..., device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return autocast_mode.custom_bwd(bwd, device_type="cuda")
