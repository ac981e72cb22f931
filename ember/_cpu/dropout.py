"""Kernel family `dropout`: apply a dropout mask given as booleans (NumPy reference).

dropout keeps the elements where `keep` is True and scales them by 1 / (1 - p). A boolean
mask, not a float one, is what forward and backward share (a byte per element); the
compiled twin (ember/_cpu/numba/dropout.py) applies it in one pass with no temporary.
"""
from __future__ import annotations

import numpy as np


def dropout_factor(p: float) -> float:
    """What a kept element is multiplied by: 1 / (1 - p), or 0 when everything drops."""
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


def dropout(x: np.ndarray, keep: np.ndarray, p: float) -> np.ndarray:
    """x * keep * dropout_factor(p), a new array of x's dtype and shape (keep, boolean, has
    x's shape). A dropped element is x * 0: NaN stays NaN and -x gives -0, as in torch.
    Dropout's backward is the same function of the gradient."""
    with np.errstate(invalid="ignore"):         # a dropped inf is NaN, silently
        y = np.multiply(x, keep)
        y *= dropout_factor(p)
    return y
