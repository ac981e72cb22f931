"""FuzzedSparseTensor: a Fuzzer tensor in sparse COO form.

Its number of stored elements is ceil(sum(size) * density); indices are drawn uniformly
(duplicates possible) and values are uniform floats (or ints in [1, 127)). Uncoalesced
tensors store every entry twice, with the duplicate's value from randn, so they keep the
sparsity pattern. The parameters read are named 'density', 'coalesced' and 'sparse_dim'.
"""
from __future__ import annotations

import math
from numbers import Number

from .... import _dtype
from ...._size import Size
from ....ops.creation import tensor as make_tensor
from ....ops.joining import cat
from ....ops.random import rand, randint, randn_like
from ....sparse import sparse_coo_tensor
from .fuzzer import FuzzedTensor

__all__ = ["FuzzedSparseTensor"]


class FuzzedSparseTensor(FuzzedTensor):
    """A FuzzedTensor made sparse: sparse_dim, nnz, density and coalesced name the
    parameters giving the sparse dimensions (the rest are dense), the density of stored
    elements and whether the tensor is coalesced."""

    def __init__(self, name: str, size: tuple, min_elements: int | None = None,
                 max_elements: int | None = None, dim_parameter: str | None = None,
                 sparse_dim: str | None = None, nnz: str | None = None,
                 density: str | None = None, coalesced: str | None = None,
                 dtype=_dtype.float32, cuda: bool = False) -> None:
        super().__init__(name=name, size=size, min_elements=min_elements,
                         max_elements=max_elements, dim_parameter=dim_parameter, dtype=dtype,
                         cuda=cuda)
        self._density = density
        self._coalesced = coalesced
        self._sparse_dim = sparse_dim
        self._nnz = nnz

    @staticmethod
    def sparse_tensor_constructor(size, dtype, sparse_dim: int, nnz: int, is_coalesced: bool):
        """A COO tensor of `size` with nnz random entries in its first sparse_dim dims."""
        if isinstance(size, Number):
            size = [size] * sparse_dim
        if all(size[d] <= 0 for d in range(sparse_dim)) and nnz != 0:
            raise AssertionError("invalid arguments")
        value_size = [nnz] + list(size[sparse_dim:])
        if dtype.is_floating_point:
            values = rand(size=value_size, dtype=dtype, device="cpu")
        else:
            values = randint(1, 127, size=value_size, dtype=dtype, device="cpu")
        indices = rand(sparse_dim, nnz, device="cpu")
        indices.mul_(make_tensor(size[:sparse_dim]).unsqueeze(1).to(indices))
        indices = indices.to(_dtype.long)
        if not is_coalesced:
            values = cat([values, randn_like(values)], 0)
            indices = cat([indices, indices], 1)
        result = sparse_coo_tensor(indices, values, Size(size))
        return result.coalesce() if is_coalesced else result

    def _make_tensor(self, params: dict, state) -> tuple:
        size, _, _ = self._get_size_and_steps(params)
        density = params["density"]
        nnz = math.ceil(sum(size) * density)
        if nnz > sum(size):
            raise AssertionError("nnz cannot exceed total number of elements")
        sparse_dim = min(params["sparse_dim"] if self._sparse_dim else len(size), len(size))
        result = self.sparse_tensor_constructor(size, self._dtype, sparse_dim, nnz,
                                                params["coalesced"])
        properties = {
            "numel": int(result.numel()), "shape": result.size(),
            "is_coalesced": result.is_coalesced(), "density": density,
            "sparsity": 1.0 - density, "sparse_dim": result.sparse_dim(),
            "dense_dim": result.dense_dim(), "is_hybrid": len(size[result.sparse_dim():]) > 0,
            "dtype": str(self._dtype),
        }
        return result, properties
