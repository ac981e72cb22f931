"""torch.mps (Apple GPUs) as torch answers it off a Mac: no MPS device. Seeding is
accepted; whatever needs the device raises torch's RuntimeError."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """A no-op without MPS (torch accepts it too)."""


def _without_mps(call: str):
    def fail(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {call}() without MPS backend.")
    return fail


empty_cache = _without_mps("emptyCache")
synchronize = _without_mps("deviceSynchronize")
current_allocated_memory = _without_mps("getCurrentAllocatedMemory")
driver_allocated_memory = _without_mps("getDriverAllocatedMemory")
recommended_max_memory = _without_mps("getRecommendedMaxMemory")
set_per_process_memory_fraction = _without_mps("setMemoryFraction")
seed = get_rng_state = set_rng_state = _without_mps("getDefaultGenerator")
