"""Which attention kernels F.scaled_dot_product_attention may use. torch keeps these
switches in torch.backends.cuda (enable_math_sdp and friends), which re-exports them
from here; torch.nn.attention.sdpa_kernel sets the same ones."""
from __future__ import annotations

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True,
        "math_fp16_bf16_reduction": False}


def flash_sdp_enabled() -> bool:
    """Whether the flash-attention kernel may run (torch has a CPU one)."""
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    """Allow or forbid the flash-attention kernel."""
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient attention kernel (CUDA only) may run."""
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Allow or forbid the memory-efficient attention kernel."""
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    """Whether the reference (math) attention kernel may run; it is ember's only one."""
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    """Allow or forbid the math attention kernel."""
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN attention kernel (CUDA only) may run."""
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Allow or forbid the cuDNN attention kernel."""
    _sdp["cudnn"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    """Whether the math kernel may reduce in fp16/bf16 for such inputs (ember computes
    half-precision attention the same way either way; the flag is recorded)."""
    return _sdp["math_fp16_bf16_reduction"]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    """Allow or forbid fp16/bf16 reductions in the math kernel (recorded only)."""
    _sdp["math_fp16_bf16_reduction"] = bool(enabled)
