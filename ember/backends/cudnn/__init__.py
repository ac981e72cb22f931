"""torch.backends.cudnn: cuDNN's switches (benchmark, deterministic, allow_tf32 ...).

ember has no cuDNN: is_available() is False and version() None, as on a CPU-only torch build.
The flags are kept and read back, and change nothing: they choose among cuDNN's CUDA kernels,
and ember's convolutions and RNNs are already deterministic and full float32 precision
(`torch.backends.cudnn.deterministic = True` in reproducibility code is true of ember anyway).
"""
from __future__ import annotations

from ... import _dtype
from .. import (_FP32Precision, _bool_flag, _flag, _flags_block, _install_flags,
                _precision_flag, _swap_flags)
from . import rnn  # noqa: F401

CUDNN_TENSOR_DTYPES = {_dtype.float16, _dtype.float32, _dtype.float64}
_DEPTHWISE_KERNELS = ("auto", "cudnn", "native")


def _check_depthwise_kernel(mode) -> None:
    if not isinstance(mode, str):
        raise RuntimeError(f"set_cudnn_depthwise_kernel expects a string, but got "
                           f"{type(mode).__name__}")
    if mode not in _DEPTHWISE_KERNELS:
        raise RuntimeError(f"Unknown cuDNN depthwise kernel mode: {mode}. Expected one of: "
                           f"{', '.join(_DEPTHWISE_KERNELS)}")


def version():
    """cuDNN's version number, or None without cuDNN: None."""
    return None


def is_available() -> bool:
    """Whether cuDNN can be used: False."""
    return False


def is_acceptable(tensor) -> bool:
    """Whether cuDNN could compute on `tensor` (a CUDA tensor of a cuDNN dtype): False."""
    return False


# benchmark_limit is a flag only when cuDNN is available; without it torch leaves it None.
benchmark_limit = None
# The fp32 precision of cuDNN convolutions.
conv = _FP32Precision("cuda", "tf32")

_this = _install_flags(
    __name__,
    enabled=_bool_flag(True, "set_enabled_cudnn"),
    benchmark=_bool_flag(False, "set_benchmark_cudnn"),
    deterministic=_bool_flag(False, "set_deterministic_cudnn"),
    allow_tf32=_bool_flag(True, "set_allow_tf32_cublas"),
    fp32_precision=_precision_flag("cuda"),
    depthwise_kernel=_flag("auto", _check_depthwise_kernel))

_FLAG_NAMES = ("enabled", "benchmark", "deterministic", "allow_tf32", "fp32_precision",
               "depthwise_kernel")


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none", _depthwise_kernel=None) -> tuple:
    """Set the given flags (None leaves one alone); returns the previous values in torch's
    order (benchmark_limit is None without cuDNN)."""
    values = (_enabled, _benchmark, _deterministic, _allow_tf32, _fp32_precision,
              _depthwise_kernel)
    previous = _swap_flags(_this, dict(zip(_FLAG_NAMES, values)))
    return previous[:2] + (None,) + previous[2:]


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Context manager: these flags inside the block (the defaults too), the old ones after."""
    values = (enabled, benchmark, deterministic, allow_tf32, fp32_precision, depthwise_kernel)
    return _flags_block(_this, dict(zip(_FLAG_NAMES, values)))
