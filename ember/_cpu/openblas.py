"""NumPy's OpenBLAS, reached directly for what NumPy does not expose.

- The size of its thread pool (torch.set_num_threads, see _threads.py).
- Running Python on its worker threads (`gotoblas_pthread`, see _parallel.py).
- Out-of-place matrix transposes (`?omatcopy`, see _transpose.py).

The library is found among the shared objects the process has loaded (NumPy loaded it);
its exported names depend on how it was built (a `scipy_` prefix and a `64_` suffix for
64-bit integers in the PyPI wheels). Where no OpenBLAS is found (another BLAS, another
system) everything here falls back to NumPy, with the same results.
"""
from __future__ import annotations

import ctypes

import numpy as np

# Name stems tried with each prefix/suffix pair, most specific first.
_BUILDS = (("scipy_", "64_"), ("scipy_", ""), ("", "64_"), ("", ""))


def _loaded_openblas_paths() -> list:
    try:
        with open("/proc/self/maps") as maps:
            return sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return []


def _bind(library, stem: str, suffix: str, argtypes, restype):
    """library's function `stem` for one build's naming, typed; None if absent."""
    for prefix, ending in _BUILDS:
        if ending != suffix:
            continue
        name = f"{prefix}{stem}{ending}"
        if hasattr(library, name):
            function = getattr(library, name)
            function.argtypes, function.restype = argtypes, restype
            return function
    return None


class _OpenBLAS:
    """The functions ember calls, bound for one library (any of them may be None)."""

    def __init__(self, library=None):
        self.set_num_threads = self.get_num_threads = self.start_threads = None
        self.omatcopy = {}
        if library is None:
            return
        # int gotoblas_pthread(int threads, void (*function)(void *), void *args,
        # int stride): runs function(args + i * stride) for i < threads on the pool.
        if hasattr(library, "gotoblas_pthread"):
            self.start_threads = library.gotoblas_pthread
            self.start_threads.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                           ctypes.c_int]
            self.start_threads.restype = ctypes.c_int
        for suffix in ("64_", ""):
            integer = ctypes.c_int64 if suffix else ctypes.c_int
            self.omatcopy = {}
            self.set_num_threads = _bind(library, "openblas_set_num_threads", suffix,
                                         [ctypes.c_int], None)
            self.get_num_threads = _bind(library, "openblas_get_num_threads", suffix, [],
                                         ctypes.c_int)
            for dtype, stem, scalar in ((np.float32, "cblas_somatcopy", ctypes.c_float),
                                        (np.float64, "cblas_domatcopy", ctypes.c_double)):
                function = _bind(library, stem, suffix,
                                 [ctypes.c_int, ctypes.c_int, integer, integer, scalar,
                                  ctypes.c_void_p, integer, ctypes.c_void_p, integer], None)
                if function is not None:
                    self.omatcopy[np.dtype(dtype)] = function
            if self.get_num_threads is not None:
                return


def _load() -> _OpenBLAS:
    for path in _loaded_openblas_paths():
        try:
            found = _OpenBLAS(ctypes.CDLL(path))
        except OSError:
            continue
        if found.get_num_threads is not None:
            return found
    return _OpenBLAS()


LIBRARY = _load()
