"""Keep freed memory in the process heap (glibc), so large temporaries are reused.

A training step allocates and frees many arrays of a few megabytes (convolution
columns, activations, gradients). glibc serves blocks above its mmap threshold with
fresh mappings and trims the heap eagerly, so each step pays thousands of page faults
(measured: 60% of a small convolution's forward+backward time was the kernel zeroing
pages). Raising the mmap threshold and the trim threshold keeps those blocks in the
heap for reuse; the cost is that the process's resident size shrinks back more slowly
after a peak. On other C libraries this does nothing.

The setting is process-wide (it changes malloc for NumPy, and for a torch loaded beside
ember), so importing ember does not apply it: `ember.backends.cpu.tune_malloc()` does,
and `ember run` calls it before running a script.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 * 1024 * 1024      # glibc's maximum on 64-bit systems
_TRIM_THRESHOLD = 512 * 1024 * 1024


def tune_malloc() -> bool:
    """Keep freed blocks of up to 32 MB in glibc's heap for reuse (see the module's
    docstring); returns whether the C library accepted the settings."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
