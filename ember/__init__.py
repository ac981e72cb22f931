"""ember: a PyTorch-compatible deep learning framework in Python on NumPy.

`import ember as torch` runs ordinary PyTorch training code on the CPU.
"""
from __future__ import annotations

import math as _math

from . import _dtype
from ._dtype import (bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype,
                     float, float16, float32, float64, float8_e4m3fn, float8_e4m3fnuz,
                     float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, get_default_dtype, half, int,
                     int8,
                     int16, int32, int64, long, promote_types, result_type, can_cast,
                     set_default_dtype, short, uint8, uint16, uint32, uint64)
from ._device import device
from ._size import Size
from ._layout import (_mkldnn, jagged, layout, sparse_bsc, sparse_bsr, sparse_coo,  # noqa: F401
                      sparse_csc, sparse_csr, strided)
from ._memory_format import (channels_last, channels_last_3d, contiguous_format,  # noqa: F401
                             memory_format, preserve_format)
from ._tensor import Tensor
from ._legacy_types import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor,  # noqa: F401
                            DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
                            ShortTensor, set_default_tensor_type)
from ._type_info import finfo, iinfo  # noqa: F401
from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                      seed, set_rng_state)
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from .ops import _methods  # noqa: F401  (binds the ops to Tensor)
from .ops.calculus import *  # noqa: F401,F403
from .ops.complex import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.hashing import *  # noqa: F401,F403
from .ops.householder import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.joining import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.lu import *  # noqa: F401,F403
from .ops.matrix_exp import *  # noqa: F401,F403
from .ops.pointwise import *  # noqa: F401,F403
from .ops.random import *  # noqa: F401,F403
from .ops.reduction import *  # noqa: F401,F403
from .ops.shape import *  # noqa: F401,F403
from .ops.softmax import *  # noqa: F401,F403
from .ops.sorting import *  # noqa: F401,F403
from .ops.special_functions import *  # noqa: F401,F403
from .ops.spectral import *  # noqa: F401,F403
from .ops.statistics import *  # noqa: F401,F403
from .ops.triangular import *  # noqa: F401,F403
from .ops.windows import *  # noqa: F401,F403
from . import autograd, cuda, backends  # noqa: F401
from .cuda import OutOfMemoryError  # noqa: F401
from .autograd import functional as _autograd_functional  # noqa: F401  (needs Tensor)
from .autograd._forward import native as _jvp_rules  # noqa: F401  (registers forward-AD rules)
from . import _C, func, fx, jit, library, linalg, profiler, random, testing  # noqa: F401
from .linalg._legacy import *  # noqa: F401,F403  (torch.det, torch.svd, torch.norm ...)
from . import sparse  # noqa: F401  (also binds Tensor.to_sparse / to_dense)
from .sparse import sparse_coo_tensor  # noqa: F401
spmm = mm  # torch.spmm: the matrix product with a sparse first operand
from . import hub, overrides, storage, __config__  # noqa: F401
from .utils.dlpack import from_dlpack  # noqa: F401
from ._storage import (BFloat16Storage, BoolStorage, ByteStorage, CharStorage,  # noqa: F401
                       ComplexDoubleStorage, ComplexFloatStorage, DoubleStorage,
                       FloatStorage, HalfStorage, IntStorage, LongStorage, ShortStorage,
                       TypedStorage, UntypedStorage)
nonzero_static = Tensor.nonzero_static  # torch.nonzero_static(input, *, size, fill_value)
from .func import vmap  # noqa: F401  (torch.vmap is torch.func.vmap)
from . import optim  # noqa: F401
from . import nn  # noqa: F401
from . import fft  # noqa: F401  (after nn: stft pads with nn.functional)
from . import special  # noqa: F401  (after nn: softmax and friends)
from . import signal  # noqa: F401
from . import masked  # noqa: F401  (after nn: the masked softmaxes)
from ._functional_aliases import *  # noqa: F401,F403  (torch.conv2d ...: after nn)
from ._foreach import *  # noqa: F401,F403  (torch._foreach_add_ ...: the multi-tensor API)
from . import distributions  # noqa: F401  (after nn)
from . import distributed  # noqa: F401  (imports mpi4py only when first used)
from . import utils  # noqa: F401
from . import multiprocessing  # noqa: F401  (torch imports it eagerly; needs nn)
from .serialization import save, load  # noqa: F401
from ._compile import compile  # noqa: F401  (traces and replays: ember/_dynamo)
from . import _dynamo, _inductor, _logging, compiler  # noqa: F401
from ._determinism import *  # noqa: F401,F403
from ._checks import *  # noqa: F401,F403  (sym_int, SymInt ...)
from ._checks import (_assert, _assert_async, _check, _check_index, _check_is_size,  # noqa: F401
                      _check_not_implemented, _check_tensor_all, _check_type, _check_value,
                      _check_with)
from . import onnx  # noqa: F401  (imports the onnx package only when export runs)
from . import accelerator, amp, cpu, futures, mps, xpu  # noqa: F401
from . import functional, types  # noqa: F401  (after the ops they name)
from .futures import Future  # noqa: F401
from .cuda import amp as _cuda_amp  # noqa: F401  (binds ember.cuda.amp)
from .amp.autocast_mode import (autocast, clear_autocast_cache, get_autocast_dtype,  # noqa: F401
                                is_autocast_cache_enabled, is_autocast_enabled,
                                set_autocast_cache_enabled, set_autocast_dtype,
                                set_autocast_enabled, get_autocast_cpu_dtype,
                                get_autocast_gpu_dtype, is_autocast_cpu_enabled,
                                set_autocast_cpu_dtype, set_autocast_cpu_enabled,
                                set_autocast_gpu_dtype)
from ._printing import set_printoptions  # noqa: F401
from ._cpu.threads import (get_num_interop_threads, get_num_threads,  # noqa: F401
                       set_num_interop_threads, set_num_threads)

# torch.__version__ is the torch release ember claims ("2.13.0+cpu", see version.py);
# ember's own release is ember.version.ember_version.
from . import version  # noqa: F401
from .torch_version import __version__  # noqa: F401

# Constants torch re-exports from math (and NumPy's newaxis, None).
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None


def is_tensor(obj) -> bool:
    """Whether `obj` is an ember Tensor (Parameters included)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """Number of elements of `input`."""
    return input.numel()


# Deprecated build flags: NumPy brings LAPACK and FFTs; MKL and OpenMP as ember.backends say.
has_lapack = has_spectral = True
has_mkl, has_openmp = backends.mkl.is_available(), backends.openmp.is_available()


def is_storage(obj) -> bool:
    """Whether `obj` is a storage (typed or untyped)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def get_device(input: Tensor) -> int:
    """The device index of `input`: -1 for the CPU."""
    return input.get_device()


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal numbers to zero is now as asked: NumPy cannot flush them,
    so asking for it returns False (torch's answer on a CPU without the feature) and
    nothing changes; turning it off returns True."""
    return not mode


def is_floating_point(input: Tensor) -> bool:
    """Whether input's dtype is a floating-point type (float16, bfloat16, float32, float64)."""
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    """Whether input's dtype is complex (complex64 or complex128)."""
    return input.is_complex()


def _present_functions_as_torch_does() -> None:
    """The functions live in one file per family (ops/, _random.py...), but torch's live
    in the torch namespace: pickles that hold one must name torch.<name>, the path both
    libraries resolve, so each is given this module as its __module__. (Those of
    nn.functional keep theirs: torch.conv2d is torch.nn.functional.conv2d.)"""
    from ._naming import set_public_module
    namespace = globals()
    set_public_module(__name__, *[
        obj for name, obj in namespace.items()
        if not name.startswith("_") and type(obj).__name__ == "function"
        and obj.__qualname__ == obj.__name__ and namespace.get(obj.__name__) is obj
        and obj.__module__ != "ember.nn.functional"])


_present_functions_as_torch_does()
