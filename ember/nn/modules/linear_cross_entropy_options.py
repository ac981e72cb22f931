"""LinearCrossEntropyOptions: how F.linear_cross_entropy splits the batch into chunks.

The chunked path never holds the whole (batch, num_classes) logits tensor: it runs
linear + cross_entropy on `batch_chunk_size` rows at a time and recomputes each chunk's
logits in backward. With a large vocabulary (num_classes >> in_features) that logits
tensor is what dominates memory.
"""
from __future__ import annotations

import dataclasses

from ... import _dtype
from ..._dtype import dtype as DType

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")
_ACC_DTYPES = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _parse_chunking_method(method: str) -> int | None:
    """The divisor N of 'aspect_ratio' (N = 1) or 'aspect_ratio:N'; None when invalid."""
    name, sep, factor = method.partition(":")
    if not sep:
        factor = "1"
    if name == "aspect_ratio" and factor.isdigit() and int(factor) > 0:
        return int(factor)
    return None


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Options of the chunked linear_cross_entropy (see the module docstring).

    batch_chunk_size: rows per chunk (None: let chunking_method decide, or one chunk).
    chunking_method: 'auto', 'aspect_ratio', 'aspect_ratio:N' or None. 'aspect_ratio'
        sizes a chunk's logits like the input: the next power of two of
        ceil(batches / ceil(num_classes / in_features)), divided by N.
    acc_policy, acc_dtype: torch's precision/memory trade-offs of its fused kernels;
        ember accumulates in the input dtype, which every policy gives for float32/64.
    allow_retain_graph: ember's backward always allows retain_graph=True.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: DType | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        method = self.chunking_method
        if method is not None and method != "auto" and _parse_chunking_method(method) is None:
            raise ValueError(f"invalid chunking_method: {method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")

    def _resolved_chunking_method(self, dtype: DType) -> str | None:
        """chunking_method with 'auto' replaced by torch's CPU pick for `dtype`; an
        explicit batch_chunk_size turns 'auto' off."""
        if self.chunking_method != "auto":
            return self.chunking_method
        if self.batch_chunk_size is not None:
            return None
        half = dtype in (_dtype.float16, _dtype.bfloat16)
        return "aspect_ratio" if half else "aspect_ratio:2"

    def _chunk_size(self, num_batches: int, in_features: int, num_classes: int,
                    dtype: DType) -> int:
        """The number of rows per chunk for this call (at least 1)."""
        method = self._resolved_chunking_method(dtype)
        if method is None:
            size = num_batches if self.batch_chunk_size is None else self.batch_chunk_size
            return max(1, min(size, num_batches))
        rows = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        size = min((1 << (rows - 1).bit_length()) // _parse_chunking_method(method),
                   num_batches)
        if self.batch_chunk_size is not None and self.batch_chunk_size != size:
            raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                             f"('{method}') give different chunk sizes "
                             f"({self.batch_chunk_size} vs {size}); pass only one.")
        return max(1, size)
