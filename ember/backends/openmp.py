"""torch.backends.openmp: whether the build uses OpenMP for its CPU thread pool. ember's
threads are its own (ember/_parallel.py) and NumPy's BLAS's: False."""
from __future__ import annotations


def is_available() -> bool:
    """Whether OpenMP is used: False."""
    return False
