"""Samplers and DistributedSampler against torch.utils.data.

Random orders cannot equal torch's (different generators); those tests check the
structure (a permutation, counts, reproducibility) and compare with torch wherever the
order is defined."""
import pytest
import torch

import ember
from oracle import check_error


def data(lib):
    return lib.utils.data


def test_sequential_sampler():
    assert list(data(ember).SequentialSampler(range(7))) == \
        list(data(torch).SequentialSampler(range(7)))
    assert len(data(ember).SequentialSampler(range(7))) == 7


@pytest.mark.parametrize("n,batch,drop_last", [(10, 3, False), (10, 3, True), (9, 3, True),
                                               (2, 5, False), (2, 5, True), (0, 2, False)])
def test_batch_sampler_as_torch(n, batch, drop_last):
    def run(lib):
        sampler = data(lib).BatchSampler(data(lib).SequentialSampler(range(n)), batch,
                                         drop_last)
        return list(sampler), len(sampler)
    assert run(ember) == run(torch)


def test_batch_sampler_over_any_iterable():
    assert list(data(ember).BatchSampler([5, 3, 1, 4], 3, False)) == [[5, 3, 1], [4]]


@pytest.mark.parametrize("batch_size,drop_last,error", [
    (0, False, "batch_size should be a positive integer value, but got batch_size=0"),
    (True, False, "batch_size should be a positive integer value"),
    (2.0, False, "batch_size should be a positive integer value"),
    (2, 1, "drop_last should be a boolean value, but got drop_last=1")])
def test_batch_sampler_errors(batch_size, drop_last, error):
    check_error(lambda lib: data(lib).BatchSampler(range(3), batch_size, drop_last),
                ValueError, error)


def test_random_sampler_is_a_permutation():
    assert sorted(data(ember).RandomSampler(range(50))) == list(range(50))
    assert len(data(ember).RandomSampler(range(50))) == 50


@pytest.mark.parametrize("replacement", [False, True])
def test_random_sampler_num_samples(replacement):
    drawn = list(data(ember).RandomSampler(range(7), replacement, num_samples=23))
    assert len(drawn) == 23 and all(0 <= i < 7 for i in drawn)
    if not replacement:  # whole permutations, then the start of another
        assert sorted(drawn[:7]) == sorted(drawn[7:14]) == list(range(7))
        assert len(set(drawn[21:])) == 2


def test_random_sampler_reproducible():
    def draw(seed=None):
        if seed is None:
            return list(data(ember).RandomSampler(range(30)))
        gen = ember.Generator().manual_seed(seed)
        return list(data(ember).RandomSampler(range(30), generator=gen))
    assert draw(5) == draw(5) and draw(5) != draw(6)
    ember.manual_seed(0)
    first = draw()
    ember.manual_seed(0)
    assert draw() == first
    assert draw() != first  # the default generator moved on


@pytest.mark.parametrize("kwargs,error,match", [
    ({"replacement": 1}, TypeError, "replacement should be a boolean value, but got "
                                    "replacement=1"),
    ({"num_samples": 0}, ValueError, "num_samples should be a positive integer value, "
                                     "but got num_samples=0"),
    ({"num_samples": 2.5}, ValueError, "num_samples should be a positive integer value")])
def test_random_sampler_errors(kwargs, error, match):
    check_error(lambda lib: data(lib).RandomSampler(range(3), **kwargs), error, match)


def test_subset_random_sampler():
    indices = [10, 4, 8, 2]
    drawn = list(data(ember).SubsetRandomSampler(indices))
    assert sorted(drawn) == sorted(indices) and len(data(ember).SubsetRandomSampler(indices)) == 4
    gen = ember.Generator()
    assert list(data(ember).SubsetRandomSampler(indices, gen.manual_seed(1))) == \
        list(data(ember).SubsetRandomSampler(indices, gen.manual_seed(1)))


def test_weighted_random_sampler():
    weights = [0.0, 1.0, 0.0, 3.0]
    drawn = list(data(ember).WeightedRandomSampler(weights, 200))
    assert len(drawn) == 200 and set(drawn) == {1, 3}
    assert drawn.count(3) > drawn.count(1)
    without = list(data(ember).WeightedRandomSampler([1, 2, 3, 4], 4, replacement=False))
    assert sorted(without) == [0, 1, 2, 3]
    assert isinstance(data(ember).WeightedRandomSampler(weights, 2).weights, ember.Tensor)


@pytest.mark.parametrize("args,match", [
    (([1.0, 2.0], 0), "num_samples should be a positive integer value, but got num_samples=0"),
    (([1.0, 2.0], True), "num_samples should be a positive integer value"),
    (([1.0, 2.0], 2, 1), "replacement should be a boolean value, but got replacement=1"),
    (([[1.0, 2.0]], 2), r"weights should be a 1d sequence but given weights have shape "
                        r"\(1, 2\)")])
def test_weighted_random_sampler_errors(args, match):
    check_error(lambda lib: data(lib).WeightedRandomSampler(*args), ValueError, match)


def ranks(lib, n, replicas, **kwargs):
    return [list(data(lib).DistributedSampler(range(n), replicas, rank, **kwargs))
            for rank in range(replicas)]


@pytest.mark.parametrize("n,replicas", [(10, 3), (10, 5), (2, 4), (7, 2), (1, 3), (12, 4)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_unshuffled_as_torch(n, replicas, drop_last):
    assert ranks(ember, n, replicas, shuffle=False, drop_last=drop_last) == \
        ranks(torch, n, replicas, shuffle=False, drop_last=drop_last)
    assert len(data(ember).DistributedSampler(range(n), replicas, 0, drop_last=drop_last)) == \
        len(data(torch).DistributedSampler(range(n), replicas, 0, drop_last=drop_last))


def test_distributed_sampler_shuffled_structure():
    """Shuffled: every rank gets the interleaved share of one permutation padded from its
    start, as torch does for the permutation it draws."""
    n, replicas = 10, 4
    parts = ranks(ember, n, replicas, seed=3)
    order = [parts[r][i] for i in range(3) for r in range(replicas)]
    assert sorted(order[:n]) == list(range(n)) and order[n:] == order[:2]
    assert ranks(ember, n, replicas, seed=3) == parts  # same on every process
    assert ranks(ember, n, replicas, seed=4) != parts
    sampler = data(ember).DistributedSampler(range(n), replicas, 1, seed=3)
    sampler.set_epoch(1)
    assert list(sampler) != parts[1]


@pytest.mark.parametrize("rank", [3, -1])
def test_distributed_sampler_invalid_rank(rank):
    check_error(lambda lib: data(lib).DistributedSampler(range(5), 3, rank), ValueError,
                r"Invalid rank %d, rank should be in the interval \[0, 2\]" % rank)


@pytest.mark.parametrize("name", ["Dataset", "IterableDataset", "Subset", "ConcatDataset",
                                  "StackDataset", "Sampler", "DistributedSampler",
                                  "DataLoader"])
def test_generic_classes_take_a_type_parameter_as_torch(name):
    # timm's `class ScheduledBatchSampler(Sampler[List[Tuple[Any, int]]])` at import time.
    for lib in (torch, ember):
        cls = getattr(data(lib), name)
        assert cls[int].__origin__ is cls and len(cls.__parameters__) == 1

        class Typed(cls[list]):
            pass
        assert issubclass(Typed, cls)


@pytest.mark.parametrize("name", ["TensorDataset", "ChainDataset", "SequentialSampler",
                                  "RandomSampler", "BatchSampler"])
def test_concrete_classes_have_no_type_parameter_as_torch(name):
    for lib in (torch, ember):
        assert getattr(data(lib), name).__parameters__ == ()
