"""torch.autocast: mixed precision regions (context manager and decorator).

Inside `with autocast("cpu"):` the ops on autocast's lists cast their inputs (see
policy.py): matrix products and convolutions run in bfloat16 (or float16), losses and
other precision-sensitive ops in float32, everything else in its inputs' dtype.
ember computes only on the CPU: `autocast("cuda")` warns and disables itself, as torch
does on a machine without CUDA.
"""
from __future__ import annotations

import functools
import warnings

from .. import _dtype
from .._modes import current as modes, own as own_modes

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "set_autocast_enabled", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "custom_fwd", "custom_bwd"]

_DEVICE_TYPES = ("cpu", "cuda")
_SUPPORTED_DTYPES = (_dtype.bfloat16, _dtype.float16)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports the device type `device_type` ('cpu' and 'cuda' are accepted by
    ember)."""
    return device_type in _DEVICE_TYPES


def _check_device(device_type: str) -> None:
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for `device_type` (torch's default device_type is 'cuda')."""
    _check_device(device_type)
    return device_type == "cpu" and modes().autocast_enabled


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Switch autocast on or off for `device_type` in the current thread."""
    _check_device(device_type)
    if device_type == "cpu":
        own_modes().autocast_enabled = bool(enabled)


def get_autocast_dtype(device_type: str) -> _dtype.dtype:
    """The dtype autocast casts to on `device_type` (bfloat16 for the CPU by default)."""
    _check_device(device_type)
    state = modes()
    return state.autocast_dtype if device_type == "cpu" else state.autocast_cuda_dtype


def set_autocast_dtype(device_type: str, dtype: _dtype.dtype) -> None:
    """Set the dtype autocast casts to on `device_type`."""
    _check_device(device_type)
    if device_type == "cpu":
        own_modes().autocast_dtype = dtype
    else:
        own_modes().autocast_cuda_dtype = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast keeps the casts of leaf tensors it made, to reuse them inside the same
    autocast region."""
    return modes().autocast_cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Switch autocast's cache of cast leaf tensors on or off."""
    own_modes().autocast_cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Drop every cast tensor autocast has cached."""
    modes().autocast_cache.clear()


class autocast:
    """Run a region (or a decorated function) in mixed precision.

    autocast(device_type, dtype=None, enabled=True, cache_enabled=None): dtype defaults to
    the device's autocast dtype (bfloat16 on the CPU); the CPU supports bfloat16 and float16.
    """

    def __init__(self, device_type: str, dtype: _dtype.dtype | None = None,
                 enabled: bool = True, cache_enabled: bool | None = None):
        _check_device_type_argument(device_type)
        _check_device(device_type)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled and device_type == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          stacklevel=2)
            enabled = False
        elif enabled and self.fast_dtype not in _SUPPORTED_DTYPES:
            name = device_type.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                          f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                          f"{', '.join(map(str, _SUPPORTED_DTYPES))} currently.", stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)

    def __enter__(self) -> "autocast":
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        own_modes().autocast_nesting += 1
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> bool:
        state = own_modes()
        state.autocast_nesting -= 1
        if state.autocast_nesting == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(f"autocast()(func) requires a callable, but got "
                            f"{type(func).__name__}. Did you mean to use autocast as a context "
                            f"manager? For example:\n    with torch.autocast(device_type=...):\n"
                            f"        output = model(input)")

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return decorated


def _cast(value, device_type: str, dtype: _dtype.dtype):
    """`value` with its float32/float16/bfloat16 tensors (also inside lists, tuples and
    dicts) cast to `dtype`; float64 tensors and everything else unchanged."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype is not _dtype.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def _check_device_type_argument(device_type) -> None:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type: str, cast_inputs: _dtype.dtype | None = None):
    """Decorate a custom autograd Function's forward for autocast regions: with
    `cast_inputs`, inside an autocast region of `device_type` the floating inputs are cast
    to it and forward runs with autocast off; without, forward runs in the current
    autocast state. Either way the state is noted on ctx for custom_bwd."""
    _check_device_type_argument(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorated(ctx, *args, **kwargs):
        ctx._dtype = get_autocast_dtype(device_type)
        autocasting = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = autocasting and cast_inputs is None
        if cast_inputs is None or not autocasting:
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(ctx, *_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))
    return decorated


def custom_bwd(bwd=None, *, device_type: str):
    """Decorate a custom autograd Function's backward so that it runs in the autocast state
    its forward (decorated with custom_fwd) ran in."""
    _check_device_type_argument(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorated(ctx, *args, **kwargs):
        with autocast(device_type, dtype=ctx._dtype, enabled=ctx._fwd_used_autocast):
            return bwd(ctx, *args, **kwargs)
    return decorated


# torch's older per-device spellings, deprecated in favour of the functions above
def _deprecated_spelling(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: is_autocast_enabled('cpu')."""
    _deprecated_spelling("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: set_autocast_enabled('cpu', enabled)."""
    _deprecated_spelling("set_autocast_cpu_enabled(enabled)",
                         "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> _dtype.dtype:
    """Deprecated: get_autocast_dtype('cpu')."""
    _deprecated_spelling("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: _dtype.dtype) -> None:
    """Deprecated: set_autocast_dtype('cpu', dtype)."""
    _deprecated_spelling("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype() -> _dtype.dtype:
    """Deprecated: get_autocast_dtype('cuda')."""
    _deprecated_spelling("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype: _dtype.dtype) -> None:
    """Deprecated: set_autocast_dtype('cuda', dtype)."""
    _deprecated_spelling("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)
