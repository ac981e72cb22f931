"""Fetchers: turn what the sampler yields into a (collated) batch, for map-style and
iterable datasets alike."""
from __future__ import annotations


class MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, index):
        """`index` is a list of indices (auto-collation) or one index."""
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if getattr(self.dataset, "__getitems__", None):  # the whole batch in one call
            return self.collate_fn(self.dataset.__getitems__(index))
        return self.collate_fn([self.dataset[i] for i in index])


class IterableDatasetFetcher(MapDatasetFetcher):
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        """Take the next batch (len(index) samples) or sample from the stream; raises
        StopIteration once it is exhausted."""
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if len(data) == 0 or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(is_iterable: bool, dataset, auto_collation: bool, collate_fn,
                   drop_last: bool) -> MapDatasetFetcher:
    kind = IterableDatasetFetcher if is_iterable else MapDatasetFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
