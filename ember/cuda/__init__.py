"""ember.cuda: ember runs on the CPU; these report "no CUDA" the way torch's CPU build does."""
from ._refusal import no_cuda as _no_cuda
from .memory import (empty_cache, max_memory_allocated, max_memory_cached,  # noqa: F401
                     max_memory_reserved, memory_allocated, memory_cached, memory_reserved,
                     memory_stats, memory_stats_as_nested_dict)
from .random import (get_rng_state, get_rng_state_all, initial_seed,  # noqa: F401
                     manual_seed, manual_seed_all, seed, seed_all, set_rng_state,
                     set_rng_state_all)


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError): a device ran out of memory.
    Named by `except` clauses in GPU code; ember, like torch on the CPU, reports a failed
    allocation as a RuntimeError."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def synchronize(device=None) -> None:
    """Nothing runs asynchronously on ember's CPU device."""


def is_initialized() -> bool:
    return False


# Queries about a GPU fail as on a CPU-only torch build.
current_device = get_device_name = get_device_properties = get_device_capability = _no_cuda
set_device = current_stream = default_stream = mem_get_info = _no_cuda
init = ipc_collect = set_per_process_memory_fraction = get_sync_debug_mode = _no_cuda
current_blas_handle = _no_cuda
has_half = True     # (torch's CPU build says so too)


def _is_compiled() -> bool:
    return False


def get_arch_list() -> list:
    return []


def get_gencode_flags() -> str:
    return ""


class StreamContext:
    """torch.cuda.StreamContext / torch.cuda.stream(s): with no stream (None), as on a
    machine without CUDA, it does nothing."""

    def __init__(self, stream):
        if stream is not None:
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return None


def stream(stream) -> StreamContext:
    return StreamContext(stream)


class device:
    """torch.cuda.device(index): a context that makes a CUDA device current. Without CUDA
    only index -1 (no device) can be entered, as in torch's CPU build."""

    def __init__(self, device):
        from .._device import device as device_type
        self.idx = device.index if isinstance(device, device_type) else device

    def __enter__(self):
        if self.idx is None or self.idx < 0:
            if self.idx is None:
                raise TypeError("'<' not supported between instances of 'NoneType' and 'int'")
            return None
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """torch.cuda.device_of(tensor): the device context of a tensor's device (a CPU tensor:
    none)."""

    def __init__(self, obj):
        super().__init__(-1)


class Event:
    """torch.cuda.Event: the class can be named (and subclassed); making one fails, as on a
    CPU-only torch build."""

    def __new__(cls, enable_timing: bool = False, blocking: bool = False,
                interprocess: bool = False):
        raise RuntimeError("Tried to instantiate dummy base class Event")


class CUDAGraph:
    """torch.cuda.CUDAGraph: the class can be named (in annotations, say); making one fails,
    as on a CPU-only torch build."""

    def __new__(cls, keep_graph: bool = False):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph")


class graph:
    """torch.cuda.graph, the context manager capturing a CUDAGraph: it can be named; making
    one fails, as on a CPU-only build (its capture stream cannot be made)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global"):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Stream:
    """torch.cuda.Stream: the class can be named; making one fails, as on a CPU-only build."""

    def __new__(cls, device=None, priority: int = 0, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


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
