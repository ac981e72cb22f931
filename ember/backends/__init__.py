"""torch.backends: the switches of the libraries torch can compute with (cuDNN, cuBLAS, oneDNN,
MKL, opt_einsum ...).

ember computes with NumPy on the CPU and uses none of those libraries, so each submodule
answers as a CPU-only torch build does where that is true of ember too (no CUDA, no MPS), and
says "not available" for the CPU libraries ember lacks (oneDNN, MKL, OpenMP, NNPACK). The flags
are kept and read back; each module's docstring says why a flag cannot change ember's results
(most only choose between kernels that compute the same values), or how ember honours it.

Flags live on module objects whose class holds them as ContextProps, so
`torch.backends.cudnn.benchmark = True` runs a setter; disable_global_flags() then refuses
such assignments and leaves the flags() context managers as the only way to change them.
"""
from __future__ import annotations

import contextlib
import sys
import types


_allow_flag_writes = True


def disable_global_flags() -> None:
    """Refuse assignments to backend flags from now on; flags() context managers still work."""
    global _allow_flag_writes
    _allow_flag_writes = False


def flags_frozen() -> bool:
    """Whether disable_global_flags() was called."""
    return not _allow_flag_writes


class ContextProp:
    """A module attribute read and written through `getter` and `setter`."""

    def __init__(self, getter, setter):
        self.getter = getter
        self.setter = setter

    def __get__(self, obj, objtype=None):
        return self.getter()

    def __set__(self, obj, value) -> None:
        if flags_frozen():
            raise RuntimeError(f"not allowed to set {obj.__name__} flags after "
                               "disable_global_flags; please use flags() context manager instead")
        self.setter(value)


def _flag(default, check=None) -> ContextProp:
    """A ContextProp holding one value, starting at `default`; `check(value)` may refuse one."""
    value = [default]

    def set_value(new) -> None:
        if check is not None:
            check(new)
        value[0] = new
    return ContextProp(lambda: value[0], set_value)


def _bool_flag(default: bool, setter_name: str) -> ContextProp:
    """A flag refusing anything but True and False, with torch's error naming its setter."""
    def check(value) -> None:
        if not isinstance(value, bool):
            raise RuntimeError(f"{setter_name} expects a bool, but got {type(value).__name__}")
    return _flag(default, check)


def _install_flags(module_name: str, **props: ContextProp) -> types.ModuleType:
    """Give module `module_name` the flag attributes `props` (by changing its class, as a
    module cannot hold properties itself); returns the module."""
    module = sys.modules[module_name]
    module.__class__ = type("FlagModule", (types.ModuleType,), props)
    return module


def _swap_flags(module, values: dict) -> tuple:
    """Set the flags of `module` named in `values` (a None value leaves its flag alone), even
    while flags are frozen, and return their previous values in the same order. A refused
    value restores the flags already set."""
    global _allow_flag_writes
    previous = tuple(getattr(module, name) for name in values)
    allowed, _allow_flag_writes = _allow_flag_writes, True
    try:
        for name, value in values.items():
            if value is not None:
                setattr(module, name, value)
    except Exception:
        for name, old in zip(values, previous):
            setattr(module, name, old)
        raise
    finally:
        _allow_flag_writes = allowed
    return previous


@contextlib.contextmanager
def _flags_block(module, values: dict):
    """Run the block with `module`'s flags set to `values`, then put the old ones back."""
    previous = _swap_flags(module, values)
    try:
        yield
    finally:
        _swap_flags(module, dict(zip(values, previous)))


_PRECISIONS = ("none", "ieee", "tf32", "bf16")


def _check_precision(backend: str, precision) -> None:
    """torch's checks on an fp32_precision value for `backend` ("generic", "cuda", "mkldnn")."""
    if not isinstance(precision, str):
        raise TypeError(f"fp32_precision must be a str, not {type(precision).__name__}")
    if precision not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {precision}")
    if backend == "cuda" and precision == "bf16":
        raise RuntimeError("backend 'cuda' does not support precision 'bf16'")


def _precision_flag(backend: str, default: str = "none") -> ContextProp:
    """An fp32_precision flag of `backend`."""
    return _flag(default, lambda precision: _check_precision(backend, precision))


class _FP32Precision:
    """The fp32_precision of one family of operations of a backend (cudnn.conv,
    mkldnn.matmul ...): "none" (follow the backend's), "ieee", "tf32" or "bf16".

    ember's float32 math is always IEEE float32, so this is recorded only, and each value
    reads back as set: torch also derives an operation's precision from its backend's and
    the generic setting, and from the legacy allow_tf32 flags.
    """
    __slots__ = ("backend", "_precision")

    def __init__(self, backend: str, precision: str = "none") -> None:
        self.backend = backend
        self._precision = precision

    @property
    def fp32_precision(self) -> str:
        return self._precision

    @fp32_precision.setter
    def fp32_precision(self, precision: str) -> None:
        _check_precision(self.backend, precision)
        self._precision = precision


class _VerboseScope:
    """Context manager turning a CPU library's call logging on for a block (level 0: off).
    ember has none of these libraries, so any other level fails on entry as torch's does when
    the library refuses."""
    library = ""

    def __init__(self, level: int) -> None:
        self.level = level

    def __enter__(self):
        if self.level == 0:
            return None
        raise AssertionError(f"Failed to set {self.library} into verbose mode. Please consider to "
                             "disable this verbose scope.")

    def __exit__(self, exc_type, exc_value, traceback) -> bool:
        return False


_this = _install_flags(__name__, fp32_precision=_precision_flag("generic"))


def set_flags(_fp32_precision="none") -> tuple:
    """Set the default fp32 precision of every backend; returns the previous setting."""
    return _swap_flags(_this, {"fp32_precision": _fp32_precision})


def flags(fp32_precision="none"):
    """Context manager: the default fp32 precision inside the block, the old one after."""
    return _flags_block(_this, {"fp32_precision": fp32_precision})


from . import (cpu, cuda, cudnn, cusparselt, kleidiai, mha, miopen, mkl,  # noqa: E402,F401
               mkldnn, mps, nnpack, openmp, opt_einsum, quantized)
