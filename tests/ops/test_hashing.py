"""torch.hash_tensor against torch: the xor of each element's 64-bit pattern, as uint64."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error, same

VALUES = [[1.5, -2.0, 3.25], [4.0, float("nan"), -0.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                   "int16", "int8", "uint8", "bool"])
def test_every_element_widened_to_64_bits_then_xored(dtype):
    same(lambda lib: lib.hash_tensor(lib.tensor(VALUES).nan_to_num(7.0).to(getattr(lib, dtype))))


@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          (-1, False), ((0, 1), True), ([], False)])
def test_dim_and_keepdim(dim, keepdim):
    same(lambda lib: lib.hash_tensor(lib.tensor(VALUES), dim, keepdim=keepdim))


def test_nan_signed_zero_views_and_methods():
    same(lambda lib: lib.tensor(VALUES)[:, ::2].hash_tensor(0))
    same(lambda lib: lib.hash_tensor(lib.tensor(3.0), 0))
    same(lambda lib: lib.hash_tensor(lib.zeros(2, 0), 0))


def test_result_is_uint64_without_grad_and_fills_out():
    for lib in (torch, ember):
        x = lib.tensor(VALUES, requires_grad=True)
        h = lib.hash_tensor(x, 1)
        assert h.dtype is lib.uint64 and not h.requires_grad and h.grad_fn is None
    same(lambda lib: lib.hash_tensor(lib.tensor(VALUES), 1,
                                     out=lib.zeros(5, dtype=lib.uint64)))


@pytest.mark.parametrize("case, error, match", [
    (lambda lib: lib.hash_tensor(lib.zeros(0)), RuntimeError,
     r"^hash_tensor: Expected reduction dim to be specified for input.numel\(\) == 0"),
    (lambda lib: lib.hash_tensor(lib.zeros(2, 0), 1), IndexError,
     "^hash_tensor: Expected reduction dim 1 to have non-zero size"),
    (lambda lib: lib.hash_tensor(lib.ones(2), mode=1), RuntimeError,
     "^Unknown hash_tensor mode: 1"),
    (lambda lib: lib.hash_tensor(lib.ones(2, 2), (0, 0)), RuntimeError,
     "^dim 0 appears multiple times"),
    (lambda lib: lib.hash_tensor(lib.ones(2, dtype=lib.complex64)), NotImplementedError,
     "^\"xor_sum_cpu\" not implemented for 'ComplexFloat'"),
    (lambda lib: lib.hash_tensor(lib.ones(2, dtype=lib.uint32)), NotImplementedError,
     "^\"xor_sum_cpu\" not implemented for 'UInt32'"),
])
def test_errors(case, error, match):
    check_error(case, error, match)


def test_bit_patterns_by_hand():
    x = np.array([1.5, -2.0], dtype=np.float32)
    expected = np.bitwise_xor.reduce(x.astype(np.float64).view(np.uint64))
    assert ember.hash_tensor(ember.from_numpy(x)).item() == int(expected)
