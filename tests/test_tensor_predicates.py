"""Tensor's is_* predicates and storage_type() against real torch: every one torch has,
a property where torch's is one and a method where torch's is one, with torch's CPU answers."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

PREDICATES = sorted(name for name in dir(torch.Tensor) if name.startswith("is_"))
SAMPLES = [np.ones((2, 3), np.float32), np.arange(4), np.array(True), np.zeros(0, np.float64),
           np.array([1 + 2j], np.complex64), np.array(3.5)]


def _outcome(tensor, name: str):
    """The predicate's value (called if a method) or the type of what it raised."""
    value = getattr(tensor, name)
    if not callable(value):
        return "property", value
    try:
        return "method", value()
    except (RuntimeError, TypeError) as error:
        return "method", type(error)


@pytest.mark.parametrize("name", PREDICATES)
def test_predicate_exists_with_torchs_kind_and_cpu_answer(name):
    for array in SAMPLES:
        expected = _outcome(torch.from_numpy(array), name)
        assert _outcome(ember.from_numpy(array), name) == expected, (name, array.dtype)


def test_is_coalesced_of_a_strided_tensor_fails_like_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="^is_coalesced expected sparse coordinate tensor "
                                               "layout but got Strided$"):
            lib.ones(2).is_coalesced()


def _pairs(lib):
    t = lib.arange(6.0).reshape(2, 3)
    return [(t, t), (t, t.view(2, 3)), (t, t.t()), (t, t.clone()), (t[0], t[0]),
            (t, t.view(6)), (t[1], t[0]), (t, lib.arange(6))]


def test_is_set_to_compares_storage_offset_sizes_and_strides():
    expected = [a.is_set_to(b) for a, b in _pairs(torch)]
    assert [a.is_set_to(b) for a, b in _pairs(ember)] == expected
    for lib in (torch, ember):
        with pytest.raises(TypeError, match=r"^is_set_to\(\): argument 'tensor' \(position 1\) "
                                            r"must be Tensor, not int$"):
            lib.ones(1).is_set_to(1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                   "int16", "int8", "uint8", "bool", "complex64", "complex128"])
def test_storage_type_names_the_legacy_storage_class(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        expected = torch.zeros(1, dtype=getattr(torch, dtype)).storage_type()
        got = ember.zeros(1, dtype=getattr(ember, dtype)).storage_type()
    assert got is getattr(ember, expected.__name__)
    assert (got.__module__, got.__name__) == (expected.__module__, expected.__name__)


# ---------------------------------------------------------------- identity queries
def test_identity_queries():
    def queries(lib, x):
        return (x.is_cpu, x.is_inference(), x.is_conj(), x.is_neg(),
                x.is_same_size(lib.ones(2, 3)), x.is_same_size(lib.ones(3, 2)),
                lib.is_same_size(x, x), lib.is_conj(x), lib.is_neg(x), lib.is_inference(x))
    check(queries, (2, 3), grad=False)


@pytest.mark.parametrize("value", [[2.0], [0.0], [[0.5]], 3, 0, True, False])
def test_is_nonzero(value):
    check(lambda lib: (lib.is_nonzero(lib.tensor(value)), lib.tensor(value).is_nonzero()),
          grad=False)


@pytest.mark.parametrize("value, words", [([], "no values"), ([1, 2], "more than one value")])
def test_is_nonzero_errors(value, words):
    check_error(lambda lib: lib.is_nonzero(lib.tensor(value)), RuntimeError,
                rf"^Boolean value of Tensor with {words} is ambiguous")


@pytest.mark.parametrize("other", ["int64", "float64", "float32", "int32", "bool"])
def test_type_as(other):
    check(lambda lib, x: x.type_as(lib.zeros(1, dtype=getattr(lib, other))), (2, 3))


def test_type_as_same_dtype_is_self():
    x = ember.ones(2)
    assert x.type_as(ember.zeros(3)) is x


def test_new():
    check(lambda lib, x: (x.new(2, 3).shape, x.new().shape, x.new([1, 2]), str(x.new().dtype),
                          x.new(lib.Size([4])).shape), (2,), dtype="float64", grad=False)
    check(lambda lib, x: x.new([[1, 2]]), np.arange(3), grad=False)
    check_error(lambda lib: lib.ones(2).new(lib.tensor([1, 2])), TypeError, r"^expected ")
