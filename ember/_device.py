"""Device objects. ember computes on the CPU only; 'cuda' devices can be named
(so code that builds them runs) but any attempt to put data there fails as a
CPU-only PyTorch build does."""
from __future__ import annotations

import builtins


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


CPU = device("cpu")


def check_device(dev) -> None:
    """Accept the CPU; refuse any other device with torch's CPU-build error."""
    if dev is None:
        return
    if not isinstance(dev, device):
        dev = device(dev)
    if dev.type == "cuda":
        raise AssertionError(
            "Torch not compiled with CUDA enabled. ember runs on the CPU only: drop "
            "device='cuda' / .cuda(), or pick the device with "
            "'cuda' if torch.cuda.is_available() else 'cpu'.")
    if dev.type != "cpu":
        raise RuntimeError(f"ember supports only the CPU device, got '{dev}'")
