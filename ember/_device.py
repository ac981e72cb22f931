"""Device objects and the default device. ember computes on the CPU; its 'meta' tensors
carry shape, dtype and strides without data (ember/_meta). 'cuda' devices can be named (so
code that builds them runs) but any attempt to put data there fails as a CPU-only PyTorch
build does."""
from __future__ import annotations

import builtins
import enum

from ._modes import current as current_modes, own as own_modes


class device:
    """A device: a type ('cpu', 'cuda' ...) and optional index, from device('cpu'), device('cuda:0')
    or device('cuda', 0). ember computes on the CPU only."""
    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # A bare index means "the current accelerator"; a CPU build has none.
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({builtins.type(type).__name__})")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "mps", "meta", "xpu"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                f"maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
                f"of device string: {type}")
        self.type, self.index = type, index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # As in torch, a device never equals a string: compare with torch.device('cpu').
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self) -> "device":
        """`with torch.device('meta'):` makes this the default device of factory functions
        (and so of modules built inside) until the block ends."""
        state = own_modes()
        state.device_contexts = state.device_contexts + (self,)
        return self

    def __exit__(self, *exc) -> None:
        state = own_modes()
        state.device_contexts = state.device_contexts[:-1]


CPU = device("cpu")
META = device("meta")


def get_default_device() -> device:
    """The device factory functions use when they are given none: the innermost open
    `with torch.device(...)`, else the one set_default_device chose, else the CPU."""
    state = current_modes()
    if state.device_contexts:
        return state.device_contexts[-1]
    return state.default_device or CPU


def set_default_device(device) -> None:
    """Make `device` (a device or its name; None for the CPU again) the default device of
    factory functions in this thread."""
    if device is not None:
        device = factory_device(device)
    own_modes().default_device = device


def factory_device(dev) -> device:
    """The device a factory function creates on: `dev`, or the default device when it is None.
    Only the CPU and the meta device hold tensors in ember."""
    if dev is None:
        return get_default_device()
    if not isinstance(dev, device):
        dev = device(dev)
    if dev.type != "meta":
        check_device(dev)
    return dev


def check_device(dev) -> None:
    """Accept the CPU; refuse any other device with torch's CPU-build error (the meta device
    only where the caller handles it, see factory_device)."""
    if dev is None:
        return
    if not isinstance(dev, device):
        dev = device(dev)
    if dev.type == "meta":
        raise NotImplementedError("this operation does not support the meta device in ember; "
                                  "meta tensors come from factory functions, .to('meta') and "
                                  "modules built under `with torch.device('meta'):`")
    if dev.type == "cuda":
        raise AssertionError(
            "Torch not compiled with CUDA enabled. ember runs on the CPU only: drop "
            "device='cuda' / .cuda(), or pick the device with "
            "'cuda' if torch.cuda.is_available() else 'cpu'.")
    if dev.type != "cpu":
        raise RuntimeError(f"ember supports only the CPU device, got '{dev}'")


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes; ember's tensors are all kDLCPU."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
