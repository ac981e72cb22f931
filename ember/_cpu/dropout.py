"""Kernel family `dropout`: apply a dropout mask given as the uniform draws it comes from
(NumPy reference).

dropout keeps an element when its draw in [0, 1) is at least p. Keeping the draws, not a
float mask, lets forward and backward share one array the generator already filled; the
compiled twin (ember/_cpu/numba/dropout.py) applies it in one pass with no temporary.
"""
from __future__ import annotations

import numpy as np


def dropout_factor(p: float) -> float:
    """What a kept element is multiplied by: 1 / (1 - p), or 0 when everything drops."""
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


def dropout(x: np.ndarray, draws: np.ndarray, p: float) -> np.ndarray:
    """x * (draws >= p) * dropout_factor(p), a new array of x's dtype and shape (draws has
    x's shape). A dropped element is x * 0: NaN stays NaN and -x gives -0, as in torch.
    Dropout's backward is the same function of the gradient."""
    with np.errstate(invalid="ignore"):         # a dropped inf is NaN, silently
        y = np.multiply(x, draws >= p)
        y *= dropout_factor(p)
    return y
