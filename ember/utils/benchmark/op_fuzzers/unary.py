"""UnaryOpFuzzer: one tensor x for elementwise unary ops and reductions.

1 to 3 dimensions, 4K to 32M elements (see _shapes), random strides, non-contiguous a
quarter of the time. Parameters are drawn in torch's order, so a seed gives torch's inputs.
"""
from __future__ import annotations

from .... import _dtype
from ..utils.fuzzer import FuzzedTensor, Fuzzer
from ._shapes import DIMS, STEPS, choice, random_value, shape_parameters, tensor_options

__all__ = ["UnaryOpFuzzer"]


class UnaryOpFuzzer(Fuzzer):
    def __init__(self, seed, dtype=_dtype.float32, cuda: bool = False) -> None:
        parameters = shape_parameters() + [
            [choice(f"x_step_{i}", STEPS) for i in DIMS],
            random_value(),
        ]
        tensors = [FuzzedTensor("x", size=("k0", "k1", "k2"), min_elements=4 * 1024,
                                max_elements=32 * 1024 ** 2, **tensor_options(dtype, cuda))]
        super().__init__(parameters=parameters, tensors=tensors, seed=seed)
