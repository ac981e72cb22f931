"""torch.set_num_threads / get_num_threads for ember: the threads of NumPy's BLAS.

ember's multi-threaded work runs on OpenBLAS's thread pool in the PyPI wheels: NumPy's
matrix products, and the pieces of large passes that _parallel.py hands to the same
threads. These functions size that pool through OpenBLAS's own setter (see
_openblas.py). Where no OpenBLAS is found (another BLAS, another system) the number is
remembered and reported but changes nothing. Results never depend on it beyond the
rounding of BLAS products, only speed.
"""
from __future__ import annotations

import os

from .openblas import LIBRARY


def _default_threads() -> int:
    env = os.environ.get("OMP_NUM_THREADS", "")
    return int(env) if env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)


_set_blas, _get_blas = LIBRARY.set_num_threads, LIBRARY.get_num_threads
_remembered = {"intra": _default_threads(), "interop": _default_threads()}


def _check(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


def set_num_threads(count, /) -> None:
    """Set the number of threads used for matrix products and ember's parallel passes."""
    count = _check("set_num_threads", count)
    _remembered["intra"] = count
    if _set_blas is not None:
        _set_blas(count)


def get_num_threads() -> int:
    """The number of threads used for matrix products and ember's parallel passes."""
    return _get_blas() if _get_blas is not None else _remembered["intra"]


def set_num_interop_threads(count, /) -> None:
    """Accepted for compatibility: ember runs independent operations one after another."""
    _remembered["interop"] = _check("set_num_interop_threads", count)


def get_num_interop_threads() -> int:
    """Number of threads used for inter-op parallelism (ember records the setting; its kernels only
    use the intra-op threads)."""
    return _remembered["interop"]
