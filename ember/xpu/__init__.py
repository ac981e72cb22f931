"""torch.xpu (Intel GPUs) as torch's CPU build answers it: no XPU. Device pickers that ask
`torch.xpu.is_available()` get False; asking about a device fails as in torch."""

_NO_XPU = "Torch not compiled with XPU enabled"


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """A no-op without XPU (torch's CPU build ignores it too)."""


manual_seed_all = manual_seed


def seed() -> None:
    """A no-op without XPU."""


seed_all = seed


def empty_cache() -> None:
    """ember keeps no device memory cache."""


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def _no_xpu(*args, **kwargs):
    raise AssertionError(_NO_XPU)


# Queries about a device fail as on a CPU-only torch build.
synchronize = current_device = set_device = get_device_name = get_device_properties = _no_xpu
get_device_capability = get_rng_state = set_rng_state = current_stream = _no_xpu
set_per_process_memory_fraction = _no_xpu
