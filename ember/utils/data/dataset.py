"""Datasets: the map-style Dataset and the IterableDataset, and the ways to combine them
(TensorDataset, ConcatDataset, ChainDataset, Subset, StackDataset, random_split)."""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

import numpy as np

from ... import _random, _sampling
from ..._tensor import Tensor
from ._utils.shared_memory import shared_empty

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

_T_co = TypeVar("_T_co", covariant=True)  # the sample type, as in Dataset[int]


class Dataset(Generic[_T_co]):
    """A map from keys (usually integer indices) to samples.

    Subclasses implement `__getitem__` and usually `__len__`; they may add `__getitems__`
    (a list of indices -> a list of samples) to fetch a whole batch at once.
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """A stream of samples: subclasses implement `__iter__`.

    With `num_workers > 0` every worker iterates its own copy of the dataset; use
    `get_worker_info()` inside `__iter__` (or in `worker_init_fn`) to give each copy
    its own share of the stream.
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> "ChainDataset":
        return ChainDataset([self, other])


class BatchedSamples(Sequence):
    """The result of `TensorDataset.__getitems__`: a batch kept as one tensor per column.

    It behaves as the list of sample tuples torch returns (indexing, len, iteration build
    the tuples on demand), and `default_collate` recognises it and returns the columns
    directly instead of splitting and re-stacking every sample.
    """

    __slots__ = ("columns",)

    def __init__(self, columns: tuple[Tensor, ...]):
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return tuple(column[i] for column in self.columns)

    def __repr__(self) -> str:
        return repr(list(self))


def _row_indices(indices: list, n: int) -> np.ndarray:
    """`indices` as an int64 array, with tensor indexing's IndexError for one out of
    range of `n` rows (converted and checked once for all of a batch's columns)."""
    rows = np.asarray(indices, dtype=np.int64)
    if rows.size and (rows.max() >= n or rows.min() < -n):
        bad = rows[(rows >= n) | (rows < -n)][0]
        raise IndexError(f"index {bad} is out of bounds for dimension 0 with size {n}")
    return rows


def _take_rows(tensor: Tensor, indices: list, rows: np.ndarray) -> Tensor:
    """tensor[indices] (`rows` being `indices` checked, see _row_indices): one NumPy
    gather, no autograd bookkeeping unless the tensor needs it (in a worker, written to
    shared memory)."""
    if tensor.requires_grad:
        return tensor[indices]
    data = tensor.numpy(force=True)
    out = shared_empty(rows.shape + data.shape[1:], data.dtype)
    if out is None:
        return Tensor._wrap(data[rows])
    # mode="wrap" (negative indices count from the end; bounds checked already) avoids
    # the buffered copy NumPy makes for out= with the default mode="raise"
    return Tensor._wrap(np.take(data, rows, axis=0, out=out, mode="wrap"))


class TensorDataset(Dataset):
    """Samples are the rows of the given tensors (all with the same first dimension)."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __getitems__(self, indices: list) -> BatchedSamples:
        rows = _row_indices(indices, len(self))
        return BatchedSamples(tuple(_take_rows(t, indices, rows) for t in self.tensors))

    def __len__(self) -> int:
        return self.tensors[0].size(0)


def _fetch_many(dataset, indices: list) -> list:
    """dataset's samples at `indices`, in one `__getitems__` call when it has one."""
    if callable(getattr(dataset, "__getitems__", None)):
        items = dataset.__getitems__(indices)
        if len(items) != len(indices):
            raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                             f"got {len(items)}")
        return items
    return [dataset[i] for i in indices]


class StackDataset(Dataset[_T_co]):
    """Zips datasets of equal length: samples are tuples (positional datasets) or dicts
    (keyword datasets)."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args or kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(dataset) for dataset in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args or kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list) -> list:
        if isinstance(self.datasets, dict):
            keys = list(self.datasets)
            columns = [_fetch_many(self.datasets[k], indices) for k in keys]
            return [dict(zip(keys, row)) for row in zip(*columns)]
        columns = [_fetch_many(dataset, indices) for dataset in self.datasets]
        return [tuple(row) for row in zip(*columns)]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[_T_co]):
    """The datasets one after another: index i falls in the first dataset whose
    cumulative size exceeds it."""

    @staticmethod
    def cumsum(sequence) -> list[int]:
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


def _require_iterable(dataset) -> None:
    if not isinstance(dataset, IterableDataset):
        raise AssertionError("ChainDataset only supports IterableDataset")


class ChainDataset(IterableDataset):
    """Iterable datasets streamed one after another."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            _require_iterable(dataset)
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            _require_iterable(dataset)
            total += len(dataset)
        return total


class Subset(Dataset[_T_co]):
    """The samples of `dataset` at `indices`, renumbered from 0."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When "
                "subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        return _fetch_many(self.dataset, [self.indices[i] for i in indices])

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(fractions: Sequence[float], total: int) -> list[int]:
    """floor(fraction * total) each, then the remainder handed out one by one from the
    first split onwards (torch's rule)."""
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", stacklevel=3)
    return lengths


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: _random.Generator | None = _random.default_generator
                 ) -> list[Subset]:
    """Split `dataset` into non-overlapping random Subsets of the given lengths, or of
    the given fractions of its length (fractions summing to 1)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _sampling.permutation(generator or _random.default_generator,
                                    sum(lengths)).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]
