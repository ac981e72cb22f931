"""torch.backends.mkl: Intel oneMKL, which torch's CPU build uses for some BLAS, FFT and
sparse routines. ember computes with NumPy and its BLAS instead: is_available() is False."""
from __future__ import annotations

from . import _VerboseScope

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    """Whether oneMKL can be used: False."""
    return False


class verbose(_VerboseScope):
    """Context manager asking oneMKL to log each call (VERBOSE_ON). Fails without oneMKL."""
    library = "MKL"
