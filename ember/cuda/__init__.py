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


_NO_CUDA = ("Torch not compiled with CUDA enabled. ember runs on the CPU only: guard GPU code "
            "with `if torch.cuda.is_available():`.")


def _no_cuda(*args, **kwargs):
    raise AssertionError(_NO_CUDA)


# Queries about a GPU fail as on a CPU-only torch build.
current_device = get_device_name = get_device_properties = get_device_capability = _no_cuda
set_device = current_stream = mem_get_info = _no_cuda


class Event:
    """torch.cuda.Event: the class can be named (and subclassed); making one fails, as on a
    CPU-only torch build."""

    def __new__(cls, enable_timing: bool = False, blocking: bool = False,
                interprocess: bool = False):
        raise RuntimeError("Tried to instantiate dummy base class Event")


class Stream:
    """torch.cuda.Stream: the class can be named; making one fails, as on a CPU-only build."""

    def __new__(cls, device=None, priority: int = 0, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def _legacy_type(name: str):
    """torch.cuda.FloatTensor and friends: naming them works, constructing them fails."""
    def constructor(*args, **kwargs):
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA "
                        "enabled.")
    constructor.__name__ = constructor.__qualname__ = name
    return constructor


FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor = (
    _legacy_type(n) for n in ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor"))
ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, BoolTensor = (
    _legacy_type(n) for n in ("ByteTensor", "CharTensor", "ShortTensor", "IntTensor",
                              "LongTensor", "BoolTensor"))
