"""Samplers: iterables of dataset indices (or, for BatchSampler, of lists of indices).

Random samplers draw from an ember Generator. Given the same seed they repeat their
sequence run after run, but it is not the sequence torch draws (ember's generator is
NumPy's Mersenne Twister, not torch's kernels); the structure around the random draws
(how batches are cut, what drop_last drops) is torch's.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import numpy as np

from ... import _random, _sampling

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

_T_co = TypeVar("_T_co", covariant=True)  # the index type, as in Sampler[int]


class Sampler(Generic[_T_co]):
    """Base class: subclasses implement `__iter__` (and `__len__` when they can)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        """data_source is accepted for torch compatibility; the base class keeps nothing."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError


# RandomSampler with replacement draws indices in batches of this many, as torch's
_DRAWS_AT_ONCE = 32


def fresh_seed(generator: _random.Generator | None = None) -> int:
    """A random int64 drawn from `generator` (the default generator when None): how
    torch seeds the private generators of samplers and worker processes."""
    return int(_sampling.full_range(generator or _random.default_generator, (), np.int64))


def _generator_or_fresh(generator: _random.Generator | None) -> _random.Generator:
    """`generator` itself, or a new one seeded from the default generator, so that
    ember.manual_seed makes the shuffle reproducible."""
    if generator is not None:
        return generator
    return _random.Generator().manual_seed(fresh_seed())


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or `num_samples` indices drawn with
    replacement. Without replacement and num_samples > len, permutations are chained."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        # Flattened in C: a generator yielding each index costs more than the batch's
        # own work in a DataLoader. Still lazy: nothing is drawn before the first index.
        return itertools.chain.from_iterable(self._draws())

    def _draws(self) -> Iterator[list[int]]:
        """The indices, as lists: permutations, or with replacement draws 32 at a time as
        torch makes them (so num_samples may be huge, as for an endless loader)."""
        n = len(self.data_source)
        gen = _generator_or_fresh(self.generator)
        if self.replacement:
            for start in range(0, self.num_samples, _DRAWS_AT_ONCE):
                count = min(_DRAWS_AT_ONCE, self.num_samples - start)
                yield _sampling.integers(gen, (count,), 0, n).tolist()
            return
        for _ in range(self.num_samples // n):
            yield _sampling.permutation(gen, n).tolist()
        yield _sampling.permutation(gen, n)[:self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        order = _sampling.permutation(self.generator or _random.default_generator,
                                      len(self.indices))
        for i in order.tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices into `weights`, drawn with probability proportional to
    the weights (with or without replacement)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        from ... import float64, as_tensor
        weights = as_tensor(weights, dtype=float64)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ... import multinomial
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size`; the last, shorter
    list is dropped when `drop_last`."""

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
