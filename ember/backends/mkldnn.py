"""torch.backends.mkldnn: oneDNN (formerly MKL-DNN), torch's CPU kernel library for
convolutions, matmuls and RNNs.

ember does not use oneDNN, so is_available() is False (a torch CPU build says True). The
flags are kept and read back. In torch they choose between oneDNN and its own kernels, which
compute the same values up to float rounding, so they cannot make ember differ from torch
beyond that; the fp32_precision settings ("bf16" for oneDNN matmuls on CPUs with bfloat16
units) are recorded only: ember's float32 math stays IEEE float32. allow_tf32 reads back as
set (False by default; torch 2.13's CPU build reads it as None whatever was set).
"""
from __future__ import annotations

from . import (_FP32Precision, _VerboseScope, _bool_flag, _flags_block,
               _install_flags, _precision_flag, _swap_flags)

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available() -> bool:
    """Whether oneDNN can be used: False (ember has no oneDNN kernels)."""
    return False


def is_acl_available() -> bool:
    """Whether oneDNN was built with the Arm Compute Library: False."""
    return False


class verbose(_VerboseScope):
    """Context manager asking oneDNN to log each kernel it runs (VERBOSE_ON, or
    VERBOSE_ON_CREATION to include kernel creation). Fails without oneDNN."""
    library = "MKLDNN"


# The fp32 precision of oneDNN matmuls, convolutions and RNNs.
matmul = _FP32Precision("mkldnn")
conv = _FP32Precision("mkldnn")
rnn = _FP32Precision("mkldnn")

_this = _install_flags(
    __name__,
    enabled=_bool_flag(True, "set_enabled_mkldnn"),
    deterministic=_bool_flag(False, "set_deterministic_mkldnn"),
    allow_tf32=_bool_flag(False, "_set_onednn_allow_tf32"),
    fp32_precision=_precision_flag("mkldnn"))

_FLAG_NAMES = ("enabled", "deterministic", "allow_tf32", "fp32_precision")


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none") -> tuple:
    """Set the given flags (None leaves one alone); returns the previous values."""
    values = (_enabled, _deterministic, _allow_tf32, _fp32_precision)
    return _swap_flags(_this, dict(zip(_FLAG_NAMES, values)))


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Context manager: these flags inside the block (the defaults too), the old ones after."""
    values = (enabled, deterministic, allow_tf32, fp32_precision)
    return _flags_block(_this, dict(zip(_FLAG_NAMES, values)))
