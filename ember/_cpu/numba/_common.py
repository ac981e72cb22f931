"""What every numba kernel family shares: how kernels are compiled, and which arrays
they take.

- `jit` compiles with numba's on-disk cache (only a machine's first run pays for
  compilation) and releases the GIL, so `ember._cpu.parallel.parallel_for` can run
  pieces of a kernel on the BLAS threads. No kernel uses numba's own threading layer
  (`parallel=True`): its pools would compete with OpenBLAS's for the same cores, and
  the workqueue and OpenMP layers are not safe under forked DataLoader workers or
  concurrent user threads. ember changes no numba setting.
- Kernels are compiled without the C-callable wrapper (`no_cfunc_wrapper`): ember calls
  them from Python only, and leaving it out took the MNIST CNN's cold first step (empty
  cache) from 5.4 to 3.9 s. Keep kernels to plain loops and scalar stores: a tuple stored
  into an array row made numba compile its broadcasting machinery (3.7 s cold).
- Kernels are compiled for float32 and float64 only. `compiled(*arrays)` says whether a
  call can take the compiled path; other dtypes (float16, bfloat16, complex, integers)
  go to the NumPy reference, which the family module calls itself.
"""
from __future__ import annotations

import functools

import numba
import numpy as np

jit = functools.partial(numba.njit, cache=True, nogil=True, error_model="numpy",
                        no_cfunc_wrapper=True)

COMPILED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def compiled(*arrays) -> bool:
    """Whether every array given (None entries skipped) is a NumPy array (a meta tensor's
    storage is not: the NumPy reference computes its metadata) with a dtype the kernels
    are compiled for, all the same one."""
    dtype = None
    for a in arrays:
        if a is None:
            continue
        if type(a) is not np.ndarray or dtype is not None and a.dtype != dtype:
            return False
        dtype = a.dtype
    return dtype in COMPILED_DTYPES
