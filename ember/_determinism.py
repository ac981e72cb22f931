"""torch.use_deterministic_algorithms and its queries.

Every ember op is deterministic (NumPy on the CPU, reductions in a fixed order, the
thread splits of ember/_parallel.py independent of timing), so the setting changes no
result; it is kept so that reproducibility code written for torch runs and reads back
what it set.
"""
from __future__ import annotations

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]

_state = {"enabled": False, "warn_only": False}
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Require deterministic algorithms (mode=True): ops without one raise RuntimeError, or only
    warn when warn_only=True."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) "
                        f"must be bool, not {type(mode).__name__}")
    _state.update(enabled=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether use_deterministic_algorithms(True) is in effect."""
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic mode only warns (use_deterministic_algorithms(True, warn_only=True)).
    """
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """debug_mode: "default"/0 (off), "warn"/1 (deterministic, warn only), "error"/2."""
    if not isinstance(debug_mode, (str, int)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The deterministic mode as a number: 0 off, 1 warn only, 2 error."""
    if not _state["enabled"]:
        return 0
    return 1 if _state["warn_only"] else 2
