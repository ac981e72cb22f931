"""ember.utils.data datasets against torch.utils.data."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

X = np.arange(24, dtype=np.float32).reshape(6, 4)
Y = np.arange(6)


def tensors(lib):
    return lib.tensor(X), lib.tensor(Y)


class Squares:
    """A map-style dataset for either library (it only needs __getitem__/__len__)."""

    def __init__(self, n, start=0):
        self.n, self.start = n, start

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return (self.start + i) ** 2

    def __len__(self):
        return self.n


def make_squares(lib, n, start=0):
    return type("Sq", (Squares, lib.utils.data.Dataset), {})(n, start)


def make_stream(lib, values):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(values)

        def __len__(self):
            return len(values)
    return Stream()


def as_plain(x):
    if isinstance(x, (torch.Tensor, ember.Tensor)):
        return x.numpy().tolist()
    if isinstance(x, (tuple, list)):
        return type(x)(as_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: as_plain(v) for k, v in x.items()}
    return x


def same(fn):
    """fn(lib) gives equal plain-Python results for torch and ember."""
    assert as_plain(fn(ember)) == as_plain(fn(torch))


@pytest.mark.parametrize("index", [0, 5, -1, slice(1, 4)])
def test_tensor_dataset_getitem(index):
    same(lambda lib: lib.utils.data.TensorDataset(*tensors(lib))[index])


def test_tensor_dataset_len_and_mismatch():
    same(lambda lib: len(lib.utils.data.TensorDataset(*tensors(lib))))
    check_error(lambda lib: lib.utils.data.TensorDataset(lib.zeros(3), lib.zeros(4)),
                AssertionError, "Size mismatch between tensors")


def test_tensor_dataset_getitems_is_list_of_samples():
    ds = ember.utils.data.TensorDataset(*tensors(ember))
    tds = torch.utils.data.TensorDataset(*tensors(torch))
    got = ds.__getitems__([4, 0, 2])
    assert len(got) == 3
    assert as_plain(list(got)) == as_plain([tds[i] for i in [4, 0, 2]])
    assert as_plain(got[1]) == as_plain(tds[0])


@pytest.mark.parametrize("index", [0, 3, 4, 8, -1, -9])
def test_concat_dataset(index):
    same(lambda lib: (make_squares(lib, 4) + make_squares(lib, 5, 10))[index])


def test_concat_dataset_structure_and_errors():
    same(lambda lib: (make_squares(lib, 4) + make_squares(lib, 5)).cumulative_sizes)
    same(lambda lib: len(lib.utils.data.ConcatDataset([make_squares(lib, 2)] * 3)))
    assert isinstance(make_squares(ember, 2) + make_squares(ember, 2),
                      ember.utils.data.ConcatDataset)
    check_error(lambda lib: (make_squares(lib, 2) + make_squares(lib, 2))[-5], ValueError,
                "absolute value of index should not exceed dataset length")
    check_error(lambda lib: lib.utils.data.ConcatDataset([]), AssertionError,
                "datasets should not be an empty iterable")
    check_error(lambda lib: lib.utils.data.ConcatDataset([make_stream(lib, [1])]),
                AssertionError, "ConcatDataset does not support IterableDataset")


def test_chain_dataset():
    same(lambda lib: list(make_stream(lib, [1, 2]) + make_stream(lib, [3])))
    same(lambda lib: len(make_stream(lib, [1, 2]) + make_stream(lib, [3])))
    assert isinstance(make_stream(ember, [1]) + make_stream(ember, [2]),
                      ember.utils.data.ChainDataset)
    check_error(lambda lib: list(lib.utils.data.ChainDataset([make_squares(lib, 2)])),
                AssertionError, "ChainDataset only supports IterableDataset")


def test_dataset_base_errors():
    check_error(lambda lib: lib.utils.data.Dataset()[0], NotImplementedError,
                "Subclasses of Dataset should implement __getitem__.")


def test_subset():
    same(lambda lib: [lib.utils.data.Subset(make_squares(lib, 10), [7, 2, 5])[i]
                      for i in range(3)])
    same(lambda lib: len(lib.utils.data.Subset(make_squares(lib, 10), [7, 2, 5])))
    same(lambda lib: lib.utils.data.Subset(make_squares(lib, 10), [7, 2, 5]).__getitems__([2, 0]))
    same(lambda lib: lib.utils.data.Subset(lib.utils.data.TensorDataset(*tensors(lib)),
                                           [5, 1, 3]).__getitems__([2, 0])[1])


def test_subset_subclass_overriding_getitem_only():
    def make(lib):
        class Mine(lib.utils.data.Subset):
            def __getitem__(self, i):
                return 0
        return Mine(make_squares(lib, 3), [0])
    check_error(make, NotImplementedError, "Mine overrides __getitem__ but not __getitems__")


@pytest.mark.parametrize("kind", ["tuple", "dict"])
def test_stack_dataset(kind):
    def build(lib):
        a, b = lib.utils.data.TensorDataset(lib.tensor(X)), make_squares(lib, 6)
        if kind == "tuple":
            return lib.utils.data.StackDataset(a, b)
        return lib.utils.data.StackDataset(img=a, sq=b)
    same(lambda lib: build(lib)[3])
    same(lambda lib: list(build(lib).__getitems__([1, 4])))
    same(lambda lib: len(build(lib)))


def test_stack_dataset_errors():
    check_error(lambda lib: lib.utils.data.StackDataset(make_squares(lib, 2),
                                                        make_squares(lib, 3)),
                ValueError, "Size mismatch between datasets")
    check_error(lambda lib: lib.utils.data.StackDataset(), ValueError,
                "At least one dataset should be passed")
    check_error(lambda lib: lib.utils.data.StackDataset(make_squares(lib, 2),
                                                        a=make_squares(lib, 2)),
                ValueError, "Supported either")


@pytest.mark.parametrize("n,lengths", [(10, [0.3, 0.7]), (11, [0.5, 0.5]), (7, [0.2] * 5),
                                       (10, [3, 7]), (5, [1.0]), (3, [0.1, 0.9])])
def test_random_split_lengths_as_torch(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda lib: [len(s) for s in lib.utils.data.random_split(range(n), lengths)])


def test_random_split_partition_and_reproducible():
    def split(seed):
        return ember.utils.data.random_split(range(20), [0.25, 0.75],
                                             generator=ember.Generator().manual_seed(seed))
    parts = split(3)
    assert sorted(parts[0].indices + parts[1].indices) == list(range(20))
    assert [p.indices for p in split(3)] == [p.indices for p in parts]
    assert [p.indices for p in split(4)] != [p.indices for p in parts]
    ember.manual_seed(1)
    first = ember.utils.data.random_split(range(20), [10, 10])[0].indices
    ember.manual_seed(1)
    assert ember.utils.data.random_split(range(20), [10, 10])[0].indices == first


def test_random_split_errors_and_warning():
    check_error(lambda lib: lib.utils.data.random_split(range(10), [3, 4]), ValueError,
                "Sum of input lengths does not equal the length of the input dataset!")
    check_error(lambda lib: lib.utils.data.random_split(range(10), [1.5, -0.5]), ValueError,
                "Fraction at index 0 is not between 0 and 1")
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        ember.utils.data.random_split(range(2), [1.0, 0.0])
