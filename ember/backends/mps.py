"""torch.backends.mps: Apple's Metal GPUs. ember runs on the CPU only: MPS is neither built
nor available, and the device queries fail as on a torch build without MPS."""
from __future__ import annotations

__all__ = ["get_core_count", "get_name", "is_built", "is_available", "is_macos13_or_newer",
           "is_macos_or_newer"]

_NO_MPS = "Cannot execute isOnMacOSorNewer() without MPS backend."


def is_built() -> bool:
    """Whether this build has MPS support: False."""
    return False


def is_available() -> bool:
    """Whether an MPS device can be used: False."""
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    """Whether MPS runs on macOS major.minor or newer (fails without MPS)."""
    raise RuntimeError(_NO_MPS)


def is_macos13_or_newer(minor: int = 0) -> bool:
    """Whether MPS runs on macOS 13.minor or newer (fails without MPS)."""
    raise RuntimeError(_NO_MPS)


def get_name() -> str:
    """The Metal device's name (fails without MPS; torch's CPU build lacks the function)."""
    raise AttributeError("get_name: this build has no MPS backend")


def get_core_count() -> int:
    """The Metal GPU's core count (fails without MPS; torch's CPU build lacks the function)."""
    raise AttributeError("get_core_count: this build has no MPS backend")
