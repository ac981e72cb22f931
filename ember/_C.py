"""torch._C: the few names of torch's compiled extension that Python libraries reach for.

torch._C is private and mostly C++ bindings; ember has none. Libraries still probe it at
import time (`getattr(torch._C, '_CudaDeviceProperties', None)`) or call its eager
helpers, so the module exists and holds those helpers with their eager results. Any other
name raises AttributeError, as a name missing from torch._C does.
"""
from __future__ import annotations


def _get_tracing_state() -> None:
    """None: no TorchScript trace is being recorded (ember never records one)."""
    return None


def _log_api_usage_once(event: str) -> None:
    """torch logs the first use of an API for telemetry; ember logs nothing."""
