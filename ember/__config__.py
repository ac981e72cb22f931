"""torch.__config__: what this build is made of, as text for bug reports and logs.

torch lists its compiler, BLAS (MKL), oneDNN and OpenMP; ember is Python on NumPy, so it
lists NumPy, the BLAS library NumPy loaded, and the optional kernel layer (numba).
"""
from __future__ import annotations

import importlib.metadata
import os
import platform

from . import version
from ._cpu import kernels, threads
from ._cpu.openblas import _loaded_openblas_paths

__all__ = ["show", "parallel_info"]


def _installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def show() -> str:
    """The build's parts, one per line (torch.__config__.show())."""
    blas = _loaded_openblas_paths()
    numba = _installed("numba")
    lines = [f"ember {version.ember_version} (as torch {version.__version__}) built with:",
             f"  - Python {platform.python_version()}",
             f"  - NumPy {_installed('numpy')}",
             f"  - BLAS: {', '.join(os.path.basename(p) for p in blas) or 'none found'}",
             f"  - numba {numba} (ember[fast] kernels)" if numba else
             "  - no numba: NumPy reference kernels only",
             f"  - kernels in use: {kernels.current()}",
             "  - CPU only (no CUDA, no MPS)"]
    return "\n".join(lines) + "\n"


def parallel_info() -> str:
    """The thread settings (torch.__config__.parallel_info())."""
    return (f"ATen/Parallel:\n\tat::get_num_threads() : {threads.get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {threads.get_num_interop_threads()}\n"
            f"BLAS threads are NumPy's BLAS pool\nos.cpu_count() : {os.cpu_count()}\n")
