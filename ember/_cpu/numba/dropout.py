"""Compiled twin of ember/_cpu/dropout.py: the mask applied in one pass from the draws,
with no boolean or float mask in between."""
from __future__ import annotations

import numpy as np

from .. import dropout as reference
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit

dropout_factor = reference.dropout_factor


@jit
def _dropout(x, draws, p, factor, out):
    zero = x.dtype.type(0)
    for i in range(x.size):
        out[i] = x[i] * (factor if draws[i] >= p else zero)


# 2.3x on (12, 64, 512) float32 and float64, one thread (the reference: a boolean mask,
# the product, then the scale)
def dropout(x: np.ndarray, draws: np.ndarray, p: float) -> np.ndarray:
    """x * (draws >= p) * dropout_factor(p) (see the reference)."""
    if not (compiled(x, draws) and x.flags.c_contiguous and draws.flags.c_contiguous):
        return reference.dropout(x, draws, p)
    out = np.empty_like(x)
    flat_x, flat_draws, flat_out = x.reshape(-1), draws.reshape(-1), out.reshape(-1)
    scalar = x.dtype.type
    parts = threads() if x.size >= MIN_PARALLEL_VALUES else 1
    parallel_for(split(x.size, parts), lambda part: _dropout(
        flat_x[part], flat_draws[part], scalar(p), scalar(dropout_factor(p)), flat_out[part]),
        x.size)
    return out
