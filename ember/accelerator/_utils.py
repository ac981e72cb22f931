"""torch.accelerator's reading of a device argument, and its failure without an accelerator."""
from __future__ import annotations

from typing import NoReturn

from .._device import device as _device_cls

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def fail_for(device=None, optional: bool = True) -> NoReturn:
    """Raise what torch's CPU build raises for a call about `device` (an int, a device string,
    a torch.device or None): its argument error first, else 'no accelerator'.

    A device type is never the current accelerator's (there is none); a missing index means
    "the current device", which cannot be looked up either, unless the call needs an index.
    """
    if isinstance(device, str):
        device = _device_cls(device)
    if isinstance(device, _device_cls):
        raise RuntimeError("Accelerator expected")
    if not isinstance(device, int) and not optional:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, "
                         f"but got:{device}")
    raise RuntimeError(NO_ACCELERATOR)
