"""Sorting and selection (ember/ops/sorting.py) against torch."""
import numpy as np
import pytest

import ember
from oracle import check, check_error

DTYPES = ["float32", "float64"]

CASES = [
    (lambda lib, x: x.sort(), (3, 4)),
    (lambda lib, x: lib.sort(x, 0, descending=True), (3, 4)),
    (lambda lib, x: lib.sort(x, dim=-2, stable=True), (2, 3, 4)),
    (lambda lib, x: x.sort(descending=True).values * 2, (3, 4)),
    (lambda lib, x: x.argsort(), (3, 4)),
    (lambda lib, x: lib.argsort(x, 1, True), (2, 3, 4)),
    (lambda lib, x: lib.msort(x), (3, 4)),
    (lambda lib, x: x.topk(2), (3, 4)),
    (lambda lib, x: lib.topk(x, 3, 0, largest=False), (3, 4)),
    (lambda lib, x: lib.topk(x, 1, dim=-2), (2, 3, 4)),
    (lambda lib, x: x.kthvalue(2), (3, 4)),
    (lambda lib, x: lib.kthvalue(x, 3, 0, True), (3, 4)),
    (lambda lib, x: x.median(), (3, 4)),
    (lambda lib, x: x.median(), (3, 5)),
    (lambda lib, x: x.median(1), (3, 4)),
    (lambda lib, x: lib.median(x, -2, keepdim=True), (2, 3, 4)),
    (lambda lib, x: x.nanmedian(0), (3, 4)),
    (lambda lib, x: x.mode(), (3, 4)),
]


@pytest.mark.parametrize("non_contiguous", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_torch(case, dtype, non_contiguous):
    fn, shape = CASES[case]
    check(fn, shape, dtype=dtype, non_contiguous=non_contiguous)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sort(0), lambda lib, x: x.sort(-1, True), lambda lib, x: x.topk(1),
    lambda lib, x: x.topk(0), lambda lib, x: x.kthvalue(1, 0), lambda lib, x: x.median(0),
    lambda lib, x: x.median(), lambda lib, x: x.mode(0), lambda lib, x: x.argsort(),
    lambda lib, x: lib.msort(x),
])
def test_zero_dim(fn):
    check(fn, (), dtype="float64")


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sort(0), lambda lib, x: x.sort(1), lambda lib, x: x.topk(2),
    lambda lib, x: x.topk(0, dim=0), lambda lib, x: x.kthvalue(1), lambda lib, x: x.median(1),
    lambda lib, x: x.median(), lambda lib, x: x.argsort(0),
])
def test_empty(fn):
    check(fn, (0, 3))


TIES = np.array([[3., 1., 2., 1., 3.], [0., 5., 5., -1., 5.], [2., 2., 2., 1., 2.]])
NANS = np.array([[1., np.nan, 0., np.nan, 2.], [3., 1., 4., 1., 5.]])


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sort(stable=True), lambda lib, x: x.sort(descending=True, stable=True),
    lambda lib, x: x.sort(dim=0, stable=True), lambda lib, x: x.argsort(stable=True),
    lambda lib, x: x.median(), lambda lib, x: x.median(1), lambda lib, x: x.mode(1),
    lambda lib, x: x.mode(0), lambda lib, x: x.nanmedian(1),
])
def test_ties(fn):
    """Stable order among equal values, torch's index choice, shared median gradient."""
    check(fn, TIES, dtype="float64")


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.topk(2).values, lambda lib, x: x.topk(3, largest=False).values,
    lambda lib, x: x.kthvalue(2).values, lambda lib, x: x.kthvalue(4).values,
])
def test_tie_values(fn):
    """torch leaves the index among equal values unspecified for topk and kthvalue."""
    check(fn, TIES, dtype="float64", grad=False)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sort(), lambda lib, x: x.sort(descending=True), lambda lib, x: x.topk(2),
    lambda lib, x: x.median(), lambda lib, x: x.median(1), lambda lib, x: x.nanmedian(1),
    lambda lib, x: x.nanmedian(), lambda lib, x: x.kthvalue(5),
])
def test_nan_sorts_last(fn):
    check(fn, NANS, dtype="float64")


INTS = np.array([[3, 1, 2, 1, 3], [0, 5, 5, -1, 5]])


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sort(), lambda lib, x: x.sort(descending=True),
    lambda lib, x: x.topk(2).values, lambda lib, x: x.median(), lambda lib, x: x.mode(),
    lambda lib, x: x.kthvalue(2, 0),
    lambda lib, x: (x > 1).sort(descending=True, stable=True), lambda lib, x: x.byte().sort(),
    lambda lib, x: (x > 1).argsort(stable=True),
])
def test_integer_and_bool(fn):
    check(fn, INTS, grad=False)


# ---------------------------------------------------------------- unique
@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.unique(x),
    lambda lib, x: x.unique(sorted=False),
    lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
    lambda lib, x: lib.unique(x, return_counts=True),
    lambda lib, x: lib.unique(x, dim=0, return_inverse=True, return_counts=True),
    lambda lib, x: lib.unique(x.t(), dim=1),
    lambda lib, x: lib.unique(x[0, 0], return_inverse=True),
    lambda lib, x: lib.unique(x[:0]),
    lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True),
    lambda lib, x: x.unique_consecutive(dim=0, return_counts=True),
    lambda lib, x: lib.unique_consecutive(x.t(), dim=1, return_inverse=True),
])
def test_unique(fn):
    check(fn, np.array([[1, 1, 2, 2], [1, 1, 2, 2], [3, 1, 1, 2], [1, 1, 2, 2]]), grad=False)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_unique_consecutive_dim_3d(dim):
    x = np.array([[[1, 1, 2], [1, 1, 2], [0, 0, 2]], [[1, 1, 2], [1, 1, 2], [0, 3, 2]]])
    check(lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True,
                                                dim=dim), x, grad=False)


@pytest.mark.parametrize("dim", [1, None])
def test_unique_consecutive_empty(dim):
    check(lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True,
                                                dim=dim), np.zeros((5, 0, 5)), grad=False)


def test_unique_consecutive_empty_unselected_dim():
    check_error(lambda lib: lib.unique_consecutive(lib.zeros(5, 0, 5), dim=2), RuntimeError,
                r"There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                r"applied")


def test_unique_floats_keeps_nans_distinct():
    check(lambda lib, x: lib.unique(x, return_counts=True), np.array([1., np.nan, 1., np.nan]),
          grad=False)


# ---------------------------------------------------------------- searchsorted, bucketize
SEQ = np.array([1., 3., 5., 7., 9.])
VALUES = np.array([[3., 6., 9.], [0., 10., 5.]])
ROWS = np.array([[1., 3., 5., 7., 9.], [2., 4., 6., 8., 10.]])


@pytest.mark.parametrize("fn", [
    lambda lib, s, v: lib.searchsorted(s, v),
    lambda lib, s, v: lib.searchsorted(s, v, right=True),
    lambda lib, s, v: lib.searchsorted(s, v, side="right", out_int32=True),
    lambda lib, s, v: lib.searchsorted(s, 5.0),
    lambda lib, s, v: lib.searchsorted(s, v[0, 0]),
    lambda lib, s, v: lib.bucketize(v, s),
    lambda lib, s, v: lib.bucketize(v, s, right=True, out_int32=True),
    lambda lib, s, v: lib.bucketize(4.0, s),
])
def test_searchsorted_1d(fn):
    check(fn, SEQ, VALUES, grad=False)


def test_searchsorted_batched_and_sorter():
    check(lambda lib, s, v: lib.searchsorted(s, v), ROWS, VALUES, grad=False)
    check(lambda lib, s, v: lib.searchsorted(s, v, right=True), ROWS, VALUES, grad=False)
    check(lambda lib, s, o, v: lib.searchsorted(s, v, sorter=o), np.array([5., 1., 3.]),
          np.array([1, 2, 0]), np.array([3., 6.]), grad=False)


def test_return_type_names():
    x = ember.tensor([[3., 1.], [0., 2.]])
    for name in ("sort", "topk", "kthvalue", "median", "mode"):
        result = getattr(x, name)(1) if name != "topk" else x.topk(1)
        assert type(result).__name__ == name
        values, indices = result
        assert result.values is values and result.indices is indices


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("fn, exc, match", [
    (lambda lib: lib.ones(2, 3).topk(4), RuntimeError, r"^selected index k out of range"),
    (lambda lib: lib.ones(2, 3).topk(-1), RuntimeError, r"^selected index k out of range"),
    (lambda lib: lib.tensor(3.).topk(2), RuntimeError, r"^selected index k out of range"),
    (lambda lib: lib.ones(2, 3).kthvalue(4), RuntimeError,
     r"^kthvalue\(\): selected number k out of range for dimension 1"),
    (lambda lib: lib.ones(2, 3).kthvalue(0, 0), RuntimeError,
     r"^kthvalue\(\): selected number k out of range for dimension 0"),
    (lambda lib: lib.zeros(0, 3).kthvalue(1, 0), IndexError,
     r"^kthvalue\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda lib: lib.zeros(0, 3).median(0), IndexError,
     r"^median\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda lib: lib.ones(2, 3).sort(2), IndexError, r"^Dimension out of range"),
    (lambda lib: lib.tensor([True, False]).median(), NotImplementedError,
     r"^\"median_cpu\" not implemented for 'Bool'"),
    (lambda lib: lib.searchsorted(lib.ones(5), lib.ones(2), side="left", right=True),
     RuntimeError, r"^torch.searchsorted\(\): side and right can't be set to opposites"),
    (lambda lib: lib.searchsorted(lib.ones(1, 5), lib.ones(2, 3)), RuntimeError,
     r"^torch.searchsorted\(\): boundaries tensor should be 1 dimension or the first N-1"),
    (lambda lib: lib.bucketize(lib.ones(2), lib.ones(1, 5)), RuntimeError,
     r"^boundaries tensor must be 1 dimension, but got dim\(2\)"),
])
def test_errors(fn, exc, match):
    check_error(fn, exc, match)
