"""torch.nn.attention: choosing the kernel behind F.scaled_dot_product_attention.

ember has a single implementation (the math one). sdpa_kernel sets which backends a block
of code allows (the switches of torch.backends.cuda, enable_math_sdp and friends, as in
torch), and scaled_dot_product_attention asks `check_sdpa_backend` whether the call could
run on a CPU build of torch under those limits: the MATH backend always can, torch's CPU
flash-attention kernel can for some inputs, the others never can.
"""
from __future__ import annotations

import contextlib
from enum import Enum

from . import _switches

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# torch warns about why a fused kernel was not used when this is set; ember has none.
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(Enum):
    """The scaled-dot-product-attention backends torch knows (values as in torch)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# Each backend's (is it allowed, allow it) pair; OVERRIDEABLE has no switch and no CPU kernel.
_SWITCHES = {
    SDPBackend.MATH: (_switches.math_sdp_enabled, _switches.enable_math_sdp),
    SDPBackend.FLASH_ATTENTION: (_switches.flash_sdp_enabled, _switches.enable_flash_sdp),
    SDPBackend.EFFICIENT_ATTENTION: (_switches.mem_efficient_sdp_enabled,
                                     _switches.enable_mem_efficient_sdp),
    SDPBackend.CUDNN_ATTENTION: (_switches.cudnn_sdp_enabled, _switches.enable_cudnn_sdp),
}


def _allowed_backends() -> set:
    return {backend for backend, (allowed, _) in _SWITCHES.items() if allowed()}


def _allow_only(backends) -> None:
    for backend, (_, allow) in _SWITCHES.items():
        allow(backend in backends)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Allow only `backends` (one SDPBackend or a list) inside the block; the previous set
    is restored on exit. set_priority orders backends in torch; ember has one kernel."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple, set)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    previous = _allowed_backends()
    _allow_only(backends)
    try:
        yield {}
    finally:
        _allow_only(previous)


def _flash_attention_fits(query, key, value, dropout_p: float) -> bool:
    """What torch's CPU flash-attention kernel accepts: 4-D floating q, k, v with one head
    size and no dropout."""
    tensors = (query, key, value)
    return (dropout_p == 0.0 and all(t.ndim == 4 for t in tensors)
            and all(t.is_floating_point() for t in tensors)
            and query.shape[-1] == key.shape[-1] == value.shape[-1])


def check_sdpa_backend(query, key, value, dropout_p: float = 0.0) -> None:
    """Raise torch's error when no allowed backend could run this attention call on a CPU."""
    if _switches.math_sdp_enabled():
        return
    if not _switches.flash_sdp_enabled():
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    if not _flash_attention_fits(query, key, value, dropout_p):
        raise RuntimeError("No available kernel.  Aborting execution. Hint: only "
                           "SDPBackend.FLASH_ATTENTION is allowed, and its CPU kernel needs "
                           "4-D floating query, key and value of one head size and no dropout; "
                           "allow SDPBackend.MATH.")
