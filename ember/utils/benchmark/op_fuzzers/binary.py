"""BinaryOpFuzzer: pairs of tensors x, y for elementwise binary ops.

1 to 3 dimensions; each size log-uniform in [16, 16M] (80%) or a power of two (20%); y
broadcasts along a dimension (size 1) 20% of the time; x and y share random strides
(steps 1-16) and are non-contiguous a quarter of the time; x has 4K to 32M elements.
The parameters are drawn in torch's order, so a seed gives torch's inputs.
"""
from __future__ import annotations

import numpy as np

from .... import _dtype
from ..utils.fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias

__all__ = ["BinaryOpFuzzer"]

_MIN_DIM_SIZE = 16
_MAX_DIM_SIZE = 16 * 1024 ** 2
_POW_TWO_SIZES = tuple(2 ** i for i in range(int(np.log2(_MIN_DIM_SIZE)),
                                             int(np.log2(_MAX_DIM_SIZE)) + 1))
_STEPS = {1: 0.8, 2: 0.06, 4: 0.06, 8: 0.04, 16: 0.04}


def _choice(name: str, distribution: dict, strict: bool = False) -> FuzzedParameter:
    return FuzzedParameter(name, distribution=distribution, strict=strict)


class BinaryOpFuzzer(Fuzzer):
    def __init__(self, seed, dtype=_dtype.float32, cuda: bool = False) -> None:
        dims = range(3)
        parameters = [
            _choice("dim", {1: 0.3, 2: 0.4, 3: 0.3}, strict=True),
            [FuzzedParameter(f"k_any_{i}", minval=_MIN_DIM_SIZE, maxval=_MAX_DIM_SIZE,
                             distribution="loguniform") for i in dims],
            [_choice(f"k_pow2_{i}", {size: 1. / len(_POW_TWO_SIZES) for size in _POW_TWO_SIZES})
             for i in dims],
            [_choice(f"k{i}", {ParameterAlias(f"k_any_{i}"): 0.8,
                               ParameterAlias(f"k_pow2_{i}"): 0.2}, strict=True) for i in dims],
            [_choice(f"y_k{i}", {ParameterAlias(f"k{i}"): 0.8, 1: 0.2}, strict=True)
             for i in dims],
            [_choice(f"{name}_step_{i}", _STEPS) for i in dims for name in ("x", "y")],
            FuzzedParameter("random_value", minval=0, maxval=2 ** 32 - 1, distribution="uniform"),
        ]
        steps = ("x_step_0", "x_step_1", "x_step_2")   # y is strided as x (as in torch)
        common = dict(steps=steps, probability_contiguous=0.75,
                      max_allocation_bytes=2 * 1024 ** 3, dim_parameter="dim", dtype=dtype,
                      cuda=cuda)
        tensors = [
            FuzzedTensor("x", size=("k0", "k1", "k2"), min_elements=4 * 1024,
                         max_elements=32 * 1024 ** 2, **common),
            FuzzedTensor("y", size=("y_k0", "y_k1", "y_k2"), **common),
        ]
        super().__init__(parameters=parameters, tensors=tensors, seed=seed)
