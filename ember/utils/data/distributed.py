"""DistributedSampler: each of `num_replicas` processes takes every num_replicas-th index
of one (optionally shuffled) order, padded or cut so that all get the same count."""
from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypeVar

from ... import _random, _sampling
from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


def _default_group_value(name: str) -> int:
    """world size or rank of the default process group, when ember.distributed has one."""
    try:
        from ... import distributed as dist
    except ImportError:
        dist = None
    if dist is None or not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return getattr(dist, name)()


class DistributedSampler(Sampler[_T_co]):
    """Restricts sampling to this rank's share of the dataset.

    The shuffled order comes from a generator seeded with `seed + epoch` (call
    `set_epoch` every epoch), identical on all ranks; the order is ember's, not torch's,
    but the split between ranks and the padding are torch's.
    """

    def __init__(self, dataset: Dataset, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _default_group_value("get_world_size")
        if rank is None:
            rank = _default_group_value("get_rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def _order(self) -> list[int]:
        n = len(self.dataset)
        if not self.shuffle:
            return list(range(n))
        generator = _random.Generator().manual_seed(self.seed + self.epoch)
        return _sampling.permutation(generator, n).tolist()

    def __iter__(self) -> Iterator[int]:
        indices = self._order()
        if self.drop_last:
            indices = indices[:self.total_size]
        elif len(indices) < self.total_size:  # repeat the order until every rank is full
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use a different shuffle for `epoch` (the same on every rank)."""
        self.epoch = epoch
