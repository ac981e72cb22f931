"""ember.cuda: ember runs on the CPU; these report "no CUDA" the way torch's CPU build does."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """A no-op without CUDA (torch's CPU build silently ignores it too)."""


def manual_seed_all(seed: int) -> None:
    """A no-op without CUDA (torch's CPU build silently ignores it too)."""


def synchronize(device=None) -> None:
    """Nothing runs asynchronously on ember's CPU device."""


def empty_cache() -> None:
    """ember keeps no device memory cache."""


def is_initialized() -> bool:
    return False


def current_device() -> int:
    raise AssertionError("Torch not compiled with CUDA enabled")
