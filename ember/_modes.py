"""The per-thread mode state every op reads: grad mode, inference mode, autocast, the
recorder that intercepts ops (the profiler's, later the exporter's and the compiler's), and
the doctor's checks (ember.doctor) that the optimizer, module, loss and backward entry
points consult.

torch keeps these per thread: while one thread runs under `no_grad()`, another thread's
`x * 2` still records `MulBackward0`. ember does the same with one `ModeState` object
per thread, reached through a context variable (a per-thread lookup far cheaper than a
`threading.local` attribute, which matters: ops read it on every call).

    current()   this thread's state, for reading; threads that never changed a mode
                share DEFAULT, which is never written
    own()       this thread's own state, for writing (made on first use)

Anomaly mode is not here: torch keeps it process-wide.
"""
from __future__ import annotations

import contextvars

from . import _dtype

__all__ = ["ModeState", "DEFAULT", "current", "own"]


class ModeState:
    """One thread's modes. Write only to the object `own()` returns."""

    __slots__ = ("grad_enabled", "inference", "autocast_enabled", "autocast_dtype",
                 "autocast_cuda_dtype", "autocast_cache_enabled", "autocast_nesting",
                 "autocast_cache", "recorder", "doctor", "default_device", "device_contexts",
                 "saved_hooks", "saved_hooks_refusal")

    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.autocast_enabled = False           # autocast of the CPU, the only device
        self.autocast_dtype = _dtype.bfloat16
        self.autocast_cuda_dtype = _dtype.float16   # only stored: ember has no CUDA
        self.autocast_cache_enabled = True
        self.autocast_nesting = 0               # open autocast regions (the cache's life)
        self.autocast_cache = {}                # id(weight) -> (weight, its cast)
        self.recorder = None                    # intercepts Function.apply when set
        self.doctor = None                      # ember.doctor's checks, when enabled
        self.default_device = None              # set_default_device's device (None: the CPU)
        self.device_contexts = ()               # devices of open `with torch.device(...)`
        self.saved_hooks = ()                   # (pack, unpack) pairs of open saved_tensors_hooks
        self.saved_hooks_refusal = None         # disable_saved_tensors_hooks' message


DEFAULT = ModeState()
# Each thread starts with an empty context, so its first read gives DEFAULT.
_STATE = contextvars.ContextVar("ember_modes", default=DEFAULT)
current = _STATE.get


def own() -> ModeState:
    """This thread's own state, made (with the defaults) the first time it is asked for."""
    state = _STATE.get()
    if state is DEFAULT:
        state = ModeState()
        _STATE.set(state)
    return state
