"""Shared inputs for the distribution tests: parameter arrays drawn inside each
parameter's constraint, so torch and ember see identical valid values."""
from __future__ import annotations

import numpy as np

import ember.distributions  # noqa: F401  (binds ember.distributions for the oracle's lib)

DTYPES = ["float32", "float64"]

# How to draw an array of each kind of parameter or value.
KINDS = {
    "real": lambda r, shape: r.standard_normal(shape),
    "positive": lambda r, shape: r.uniform(0.5, 2.5, shape),
    "unit": lambda r, shape: r.uniform(0.05, 0.95, shape),
    "low": lambda r, shape: r.uniform(-2.0, -1.0, shape),
    "high": lambda r, shape: r.uniform(1.0, 2.0, shape),
    "inner": lambda r, shape: r.uniform(-0.9, 0.9, shape),
}


def draw(kind: str, shape: tuple, dtype: str, seed: int = 0) -> np.ndarray:
    return np.asarray(KINDS[kind](np.random.default_rng(seed), shape)).astype(dtype)


def draw_all(kinds, shapes, dtype: str, seed: int = 0) -> list:
    return [draw(kind, shape, dtype, seed + i) for i, (kind, shape) in enumerate(zip(kinds,
                                                                                     shapes))]
