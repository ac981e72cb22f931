"""torch.backends.miopen: AMD's MIOpen (ROCm's cuDNN). ember has no ROCm; the `immediate`
flag (MIOpen's immediate mode) is kept and changes nothing."""
from __future__ import annotations

from . import _bool_flag, _flags_block, _install_flags, _swap_flags

_this = _install_flags(__name__, immediate=_bool_flag(False, "set_immediate_miopen"))


def set_flags(_immediate=None) -> tuple:
    """Set `immediate` (None leaves it alone); returns the previous value."""
    return _swap_flags(_this, {"immediate": _immediate})


def flags(immediate=False):
    """Context manager: `immediate` inside the block, the old value after."""
    return _flags_block(_this, {"immediate": immediate})
