"""The shape parameters the op fuzzers share: 1 to 3 dimensions, each size log-uniform in
[16, 16M] (80%) or a power of two (20%), and random strides (steps 1-16)."""
from __future__ import annotations

import numpy as np

from ..utils.fuzzer import FuzzedParameter, ParameterAlias

MIN_DIM_SIZE = 16
MAX_DIM_SIZE = 16 * 1024 ** 2
POW_TWO_SIZES = tuple(2 ** i for i in range(int(np.log2(MIN_DIM_SIZE)),
                                            int(np.log2(MAX_DIM_SIZE)) + 1))
STEPS = {1: 0.8, 2: 0.06, 4: 0.06, 8: 0.04, 16: 0.04}
DIMS = range(3)


def choice(name: str, distribution: dict, strict: bool = False) -> FuzzedParameter:
    return FuzzedParameter(name, distribution=distribution, strict=strict)


def shape_parameters() -> list:
    """dim, then k0-k2 (drawn through k_any_i / k_pow2_i), in torch's draw order."""
    return [
        choice("dim", {1: 0.3, 2: 0.4, 3: 0.3}, strict=True),
        [FuzzedParameter(f"k_any_{i}", minval=MIN_DIM_SIZE, maxval=MAX_DIM_SIZE,
                         distribution="loguniform") for i in DIMS],
        [choice(f"k_pow2_{i}", {size: 1. / len(POW_TWO_SIZES) for size in POW_TWO_SIZES})
         for i in DIMS],
        [choice(f"k{i}", {ParameterAlias(f"k_any_{i}"): 0.8,
                          ParameterAlias(f"k_pow2_{i}"): 0.2}, strict=True) for i in DIMS],
    ]


def random_value() -> FuzzedParameter:
    return FuzzedParameter("random_value", minval=0, maxval=2 ** 32 - 1, distribution="uniform")


def tensor_options(dtype, cuda: bool) -> dict:
    """FuzzedTensor options shared by every fuzzed tensor (strided by x's steps)."""
    return dict(steps=("x_step_0", "x_step_1", "x_step_2"), probability_contiguous=0.75,
                max_allocation_bytes=2 * 1024 ** 3, dim_parameter="dim", dtype=dtype,
                cuda=cuda)
