"""torch.backends.cuda: cuBLAS, cuFFT and scaled-dot-product-attention switches.

ember has no CUDA, so is_built() is False and the cuBLAS flags (matmul.allow_tf32 ...) change
no result: ember's float32 matmul is always full IEEE precision. matmul.allow_tf32 is the
legacy spelling of torch.set_float32_matmul_precision ("high" when True, "highest" when False)
and reads and writes that setting, as in torch.

The scaled-dot-product-attention switches (enable_math_sdp, enable_flash_sdp ...) do act on
the CPU: torch.nn.attention.sdpa_kernel sets the same flags, and
F.scaled_dot_product_attention refuses to run when no kernel a CPU build has is allowed.
"""
from __future__ import annotations

import contextlib
import enum
import warnings

from .._naming import set_public_module
from ..nn.attention._switches import (allow_fp16_bf16_reduction_math_sdp, cudnn_sdp_enabled,
                                      enable_cudnn_sdp, enable_flash_sdp, enable_math_sdp,
                                      enable_mem_efficient_sdp, flash_sdp_enabled,
                                      fp16_bf16_reduction_math_sdp_allowed, math_sdp_enabled,
                                      mem_efficient_sdp_enabled)

__all__ = ["is_built", "cuFFTPlanCacheAttrContextProp", "cuFFTPlanCache",
           "cuFFTPlanCacheManager", "cuBLASModule", "preferred_linalg_library",
           "preferred_blas_library", "cublas_workspace_size", "cublaslt_workspace_size",
           "blas_workspace_size", "preferred_rocm_fa_library", "is_ck_sdpa_available",
           "cufft_plan_cache", "matmul", "SDPAParams", "enable_cudnn_sdp", "cudnn_sdp_enabled",
           "enable_flash_sdp", "flash_sdp_enabled", "enable_mem_efficient_sdp",
           "mem_efficient_sdp_enabled", "math_sdp_enabled", "enable_math_sdp",
           "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed",
           "is_flash_attention_available", "can_use_flash_attention",
           "can_use_efficient_attention", "can_use_cudnn_attention", "sdp_kernel"]

_NO_CUDA = "Torch not compiled with CUDA enabled"


def is_built() -> bool:
    """Whether this build has CUDA support: False."""
    return False


# ---------------------------------------------------------------- cuBLAS (backends.cuda.matmul)
def _reduction_setting(value, name: str) -> tuple:
    """(allow_reduced_precision, allow_splitk) from a bool or a 1- or 2-tuple of bools."""
    if isinstance(value, bool):
        return value, True
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)!r}")
    if not value:
        raise TypeError(f"{name} expects at least one boolean argument")
    if len(value) > 2:
        raise TypeError(f"{name} expects at most two boolean arguments")
    for item, which in zip(value, ("allow_reduced_precision", "allow_splitk")):
        if not isinstance(item, bool):
            raise TypeError(f"{name} expects a bool for {which}, but got {type(item)!r}")
    allow_reduced, allow_splitk = value[0], value[1] if len(value) == 2 else True
    if allow_reduced and not allow_splitk:
        raise RuntimeError("allow_splitk=False is not supported when reduced precision "
                           "reductions are enabled")
    return allow_reduced, allow_splitk


# (allow_reduced_precision, allow_splitk) pairs; "<name>_split_k" reads the second.
_REDUCTIONS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")


class cuBLASModule:
    """torch.backends.cuda.matmul: cuBLAS's precision switches. No result of ember depends on
    them; allow_tf32 mirrors torch.get/set_float32_matmul_precision."""

    def __init__(self) -> None:
        state = {_REDUCTIONS[0]: (True, True), _REDUCTIONS[1]: (True, True),
                 "allow_fp16_accumulation": False, "fp32_precision": "none"}
        object.__setattr__(self, "_state", state)

    def __getattr__(self, name: str):
        from .. import get_float32_matmul_precision
        if name == "allow_tf32":
            return get_float32_matmul_precision() != "highest"
        if name in _REDUCTIONS:
            return self._state[name][0]
        if name.removesuffix("_split_k") in _REDUCTIONS:
            return self._state[name.removesuffix("_split_k")][1]
        if name in self._state:
            return self._state[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name: str, value) -> None:
        from .. import set_float32_matmul_precision
        from . import _check_precision
        if name == "allow_tf32":
            set_float32_matmul_precision("high" if value else "highest")
        elif name in _REDUCTIONS:
            self._state[name] = _reduction_setting(value, name)
        elif name == "allow_fp16_accumulation":
            self._state[name] = bool(value)
        elif name == "fp32_precision":
            _check_precision("cuda", value)
            self._state[name] = value
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


# ---------------------------------------------------------------- library preferences
class _LinalgBackend(enum.Enum):
    """CUDA linear-algebra libraries (torch._C._LinalgBackend)."""
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.Enum):
    """CUDA BLAS libraries (torch._C._BlasBackend)."""
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


class _ROCmFABackend(enum.Enum):
    """ROCm flash-attention libraries (torch._C._ROCmFABackend)."""
    Default = 0
    AOTriton = 1
    Ck = 2


def _parse_backend(backend, names: dict, kind: type, bad_type: Exception):
    """`backend` (one of `names` or a member of `kind`) as a member of `kind`; None stays None."""
    if backend is None or isinstance(backend, kind):
        return backend
    if isinstance(backend, str):
        if backend not in names:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(names)}.")
        return names[backend]
    raise bad_type


_preferred = {"blas": _BlasBackend.Cublas, "rocm_fa": _ROCmFABackend.Default}


def preferred_linalg_library(backend=None) -> _LinalgBackend:
    """Choose cuSOLVER or MAGMA for CUDA linear algebra ("default", "cusolver", "magma");
    neither is built in, so only "default" is accepted. Returns the current choice."""
    names = {"default": _LinalgBackend.Default, "cusolver": _LinalgBackend.Cusolver,
             "magma": _LinalgBackend.Magma}
    choice = _parse_backend(backend, names, _LinalgBackend,
                            RuntimeError("Unknown input value type."))
    if choice not in (None, _LinalgBackend.Default):
        library = {_LinalgBackend.Cusolver: "cuSOLVER", _LinalgBackend.Magma: "MAGMA"}[choice]
        raise RuntimeError(f"Cannot set preferred backend to {library} if PyTorch has not been "
                           f"compiled with {library}.")
    return _LinalgBackend.Default


def preferred_blas_library(backend=None) -> _BlasBackend:
    """Choose cuBLAS, cuBLASLt or CK for CUDA BLAS ("default" means cuBLAS; cuBLASLt is not
    built in). Recorded only; returns the current choice."""
    names = {"default": _BlasBackend.Default, "cublas": _BlasBackend.Cublas,
             "hipblas": _BlasBackend.Cublas, "cublaslt": _BlasBackend.Cublaslt,
             "hipblaslt": _BlasBackend.Cublaslt, "ck": _BlasBackend.Ck}
    choice = _parse_backend(backend, names, _BlasBackend,
                            RuntimeError("Unknown input value type."))
    if choice is _BlasBackend.Cublaslt:
        raise RuntimeError("Cannot set preferred backend to cuBLASLt if PyTorch has not been "
                           "compiled with cuBLASLt.")
    if choice is not None:
        _preferred["blas"] = _BlasBackend.Cublas if choice is _BlasBackend.Default else choice
    return _preferred["blas"]


def preferred_rocm_fa_library(backend=None) -> _ROCmFABackend:
    """[ROCm] Choose AOTriton or CK for flash attention. Recorded only; returns the current
    choice."""
    names = {"default": _ROCmFABackend.Default, "aotriton": _ROCmFABackend.AOTriton,
             "ck": _ROCmFABackend.Ck}
    choice = _parse_backend(backend, names, _ROCmFABackend,
                            ValueError(f"Unknown input value. Choose from: {', '.join(names)}."))
    if choice is not None:
        _preferred["rocm_fa"] = choice
    return _preferred["rocm_fa"]


def _no_cuda_library(name: str):
    def query(*args, **kwargs):
        raise AttributeError(f"{name}: torch's CPU build has no CUDA BLAS workspace "
                             f"({_NO_CUDA})")
    query.__name__ = query.__qualname__ = name
    query.__doc__ = (f"Query or set the {name.removesuffix('_workspace_size')} workspace "
                     "size in bytes (needs CUDA).")
    return query


cublas_workspace_size = _no_cuda_library("cublas_workspace_size")
cublaslt_workspace_size = _no_cuda_library("cublaslt_workspace_size")
blas_workspace_size = _no_cuda_library("blas_workspace_size")


# ---------------------------------------------------------------- cuFFT plan cache
class cuFFTPlanCacheAttrContextProp:
    """An attribute of a cuFFTPlanCache read and written through functions of its device."""

    def __init__(self, getter, setter):
        self.getter = getter
        self.setter = setter

    def __get__(self, obj, objtype=None):
        return self.getter(obj.device_index)

    def __set__(self, obj, value) -> None:
        if isinstance(self.setter, str):
            raise RuntimeError(self.setter)
        self.setter(obj.device_index, value)


def _no_cuda(*args):
    raise AssertionError(_NO_CUDA)


class cuFFTPlanCache:
    """The cuFFT plan cache of one CUDA device (size, max_size, clear()); needs CUDA."""

    def __init__(self, device_index: int) -> None:
        self.device_index = device_index

    size = cuFFTPlanCacheAttrContextProp(
        _no_cuda, ".size is a read-only property showing the number of plans currently in the "
        "cache. To change the cache capacity, set cufft_plan_cache.max_size.")
    max_size = cuFFTPlanCacheAttrContextProp(_no_cuda, _no_cuda)

    def clear(self) -> None:
        _no_cuda()


class cuFFTPlanCacheManager:
    """torch.backends.cuda.cufft_plan_cache: the per-device caches by index, or the current
    device's through its attributes. There are no CUDA devices."""

    def __getitem__(self, device) -> cuFFTPlanCache:
        index = device.index if hasattr(device, "index") else int(device)
        raise RuntimeError(f"cufft_plan_cache: expected 0 <= device index < 0, but got device "
                           f"with index {index}")

    def __getattr__(self, name: str):
        _no_cuda()

    def __setattr__(self, name: str, value) -> None:
        _no_cuda()


cufft_plan_cache = cuFFTPlanCacheManager()


# ---------------------------------------------------------------- scaled dot product attention
# Which attention kernels F.scaled_dot_product_attention may use: the switches live beside
# it in nn.attention (torch.nn.attention.sdpa_kernel sets the same ones); torch names them
# torch.backends.cuda.*.
set_public_module(__name__, allow_fp16_bf16_reduction_math_sdp, cudnn_sdp_enabled,
                  enable_cudnn_sdp, enable_flash_sdp, enable_math_sdp, enable_mem_efficient_sdp,
                  flash_sdp_enabled, fp16_bf16_reduction_math_sdp_allowed, math_sdp_enabled,
                  mem_efficient_sdp_enabled)


def is_flash_attention_available() -> bool:
    """Whether the CUDA FlashAttention kernel is built in: False."""
    return False


def is_ck_sdpa_available() -> bool:
    """[ROCm] Whether composable_kernel attention is built in: False."""
    return False


class SDPAParams:
    """The arguments of one scaled_dot_product_attention call, for the can_use_* checks."""
    __slots__ = ("query", "key", "value", "attn_mask", "dropout", "is_causal", "enable_gqa")

    def __init__(self, query, key, value, attn_mask, dropout: float, is_causal: bool,
                 enable_gqa: bool, /) -> None:
        self.query, self.key, self.value, self.attn_mask = query, key, value, attn_mask
        self.dropout, self.is_causal, self.enable_gqa = float(dropout), is_causal, enable_gqa


def can_use_flash_attention(params: SDPAParams, debug: bool = False) -> bool:
    """Whether the CUDA FlashAttention kernel could take `params`: never without CUDA."""
    return False


def can_use_efficient_attention(params: SDPAParams, debug: bool = False) -> bool:
    """Whether the CUDA memory-efficient kernel could take `params`: never without CUDA."""
    return False


def can_use_cudnn_attention(params: SDPAParams, debug: bool = False) -> bool:
    """Whether the cuDNN attention kernel could take `params`: never without CUDA."""
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True):
    """Deprecated: allow only the chosen attention kernels inside the block (use
    torch.nn.attention.sdpa_kernel)."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for "
                  "the new context manager, with updated signature.", FutureWarning,
                  stacklevel=3)
    switches = ((flash_sdp_enabled, enable_flash_sdp, enable_flash),
                (math_sdp_enabled, enable_math_sdp, enable_math),
                (mem_efficient_sdp_enabled, enable_mem_efficient_sdp, enable_mem_efficient),
                (cudnn_sdp_enabled, enable_cudnn_sdp, enable_cudnn))
    previous = [(enable, enabled()) for enabled, enable, _ in switches]
    for _, enable, value in switches:
        enable(value)
    try:
        yield {}
    finally:
        for enable, value in previous:
            enable(value)
