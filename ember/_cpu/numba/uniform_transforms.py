"""Compiled twin of ember/_cpu/uniform_transforms.py: the same formulas with the C
library's log1p and tan, which torch calls (so the values are torch's to the bit)."""
from __future__ import annotations

import math

import numpy as np

from ._common import jit


@jit
def _exponential(unit, scale, out):
    for i in range(unit.size):
        out[i] = scale * math.log1p(-unit[i])


@jit
def _cauchy(unit, median, sigma, out):
    for i in range(unit.size):
        out[i] = median + sigma * math.tan(math.pi * (unit[i] - 0.5))


def exponential(unit: np.ndarray, rate: float) -> np.ndarray:
    out = np.empty_like(unit)
    _exponential(unit.reshape(-1), -1.0 / rate, out.reshape(-1))
    return out


def cauchy(unit: np.ndarray, median: float, sigma: float) -> np.ndarray:
    out = np.empty_like(unit)
    _cauchy(unit.reshape(-1), float(median), float(sigma), out.reshape(-1))
    return out
