"""Optimizer step cost: Adam over a model with 10 M parameters in 100 tensors."""
from __future__ import annotations

import numpy as np

from .runner import compare

SHAPES = [(100, 1000)] * 100   # 100 tensors of 100,000 parameters = 10 M


def adam_step(lib):
    rng = np.random.default_rng(0)
    params = []
    for shape in SHAPES:
        p = lib.tensor(rng.standard_normal(shape, dtype=np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(shape, dtype=np.float32))
        params.append(p)
    optimizer = lib.optim.Adam(params, lr=1e-3)
    return optimizer.step, 1


def run() -> None:
    compare("Adam step, 10 M params in 100 tensors", adam_step, unit="ms", scale=1e3,
            min_seconds=2.0)
