"""DLPack: torch.from_dlpack, torch.utils.dlpack and Tensor.__dlpack__ against torch,
sharing memory with NumPy and between the two libraries."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error, same


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool", "complex64"])
def test_from_numpy_shares_memory(dtype):
    def fn(lib):
        source = np.arange(6).reshape(2, 3).astype(dtype)
        t = lib.from_dlpack(source)
        source[0, 0] = 1
        return t, t.is_leaf, t.requires_grad
    same(fn)


def test_views_keep_their_strides():
    def fn(lib):
        base = np.arange(12.0).reshape(3, 4)
        t = lib.from_dlpack(base[:, ::2].T)
        back = np.from_dlpack(lib.arange(12.0).reshape(3, 4).t())
        return t, t.stride(), back.strides, back.tolist()
    same(fn)


def test_numpy_reads_a_tensor_in_place():
    def fn(lib):
        t = lib.zeros(3)
        np.from_dlpack(t)[1] = 5
        return t, t.__dlpack_device__()
    e = same(fn)
    assert e[1] == (1, 0) and e[1][0].name == "kDLCPU"


def test_capsule_round_trip_and_between_libraries():
    def fn(lib):
        capsule = lib.utils.dlpack.to_dlpack(lib.arange(4))
        return lib.utils.dlpack.from_dlpack(capsule)
    same(fn)
    shared = torch.from_dlpack(ember.arange(3.0))
    assert shared.tolist() == [0.0, 1.0, 2.0]
    back = ember.from_dlpack(torch.arange(3.0))
    assert back.tolist() == [0.0, 1.0, 2.0] and back.dtype == ember.float32


def test_copy_makes_new_memory():
    def fn(lib):
        source = np.ones(3)
        t = lib.from_dlpack(source, copy=True)
        source[0] = 7
        return t
    same(fn)


def test_refusals():
    check_error(lambda lib: np.from_dlpack(lib.ones(2, requires_grad=True)), BufferError,
                r"^Can't export tensors that require gradient, use tensor\.detach\(\)$")
    check_error(lambda lib: lib.from_dlpack(5), RuntimeError,
                "^from_dlpack received an invalid capsule")
    with pytest.raises(NotImplementedError, match="device"):
        ember.from_dlpack(np.ones(2), device="cuda")
