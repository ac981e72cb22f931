"""Compiled twin of ember/_cpu/dropout.py: the boolean mask and the scale applied in one
pass, with no float mask in between."""
from __future__ import annotations

import numpy as np

from .. import dropout as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit

dropout_factor = reference.dropout_factor


@jit
def _dropout(x, keep, factor, out):
    zero = x.dtype.type(0)
    for i in range(x.size):
        out[i] = x[i] * (factor if keep[i] else zero)


# 2.3x on (12, 64, 512) float32 and float64, one thread (the reference: a boolean mask,
# the product, then the scale)
def dropout(x: np.ndarray, keep: np.ndarray, p: float) -> np.ndarray:
    """x * keep * dropout_factor(p) (see the reference)."""
    if not (compiled(x) and keep.dtype == np.bool_ and x.flags.c_contiguous and
            keep.flags.c_contiguous):
        return reference.dropout(x, keep, p)
    out = np.empty_like(x)
    flat_x, flat_keep, flat_out = x.reshape(-1), keep.reshape(-1), out.reshape(-1)
    factor = x.dtype.type(dropout_factor(p))
    parts = threads() if x.size >= MIN_PARALLEL_VALUES else 1
    parallel_for(split(x.size, parts), lambda part: _dropout(
        flat_x[part], flat_keep[part], factor, flat_out[part]), x.size)
    return out
