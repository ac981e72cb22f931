"""BinaryOpFuzzer: pairs of tensors x, y for elementwise binary ops.

x has 1 to 3 dimensions and 4K to 32M elements (see _shapes); y has x's sizes except that
each is 1 (broadcast) 20% of the time; x and y share random strides and are each
non-contiguous a quarter of the time. Parameters are drawn in torch's order, so a seed
gives torch's inputs.
"""
from __future__ import annotations

from .... import _dtype
from ..utils.fuzzer import FuzzedTensor, Fuzzer, ParameterAlias
from ._shapes import DIMS, STEPS, choice, random_value, shape_parameters, tensor_options

__all__ = ["BinaryOpFuzzer"]


class BinaryOpFuzzer(Fuzzer):
    def __init__(self, seed, dtype=_dtype.float32, cuda: bool = False) -> None:
        parameters = shape_parameters() + [
            [choice(f"y_k{i}", {ParameterAlias(f"k{i}"): 0.8, 1: 0.2}, strict=True)
             for i in DIMS],
            [choice(f"{name}_step_{i}", STEPS) for i in DIMS for name in ("x", "y")],
            random_value(),
        ]
        options = tensor_options(dtype, cuda)
        tensors = [
            FuzzedTensor("x", size=("k0", "k1", "k2"), min_elements=4 * 1024,
                         max_elements=32 * 1024 ** 2, **options),
            FuzzedTensor("y", size=("y_k0", "y_k1", "y_k2"), **options),
        ]
        super().__init__(parameters=parameters, tensors=tensors, seed=seed)
