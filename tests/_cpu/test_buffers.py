"""ember/_cpu/buffers.py: large kernel results reused only once nothing refers to them."""
import threading

import numpy as np
import pytest
import torch

import ember
from ember._cpu import buffers

BIG = (512, 512)        # 1 MiB of float32: above MIN_BYTES
MIB = 1 << 20


@pytest.fixture(autouse=True)
def own_cache(monkeypatch):
    monkeypatch.setattr(buffers, "_CACHE", buffers._Cache())


def test_a_released_array_is_lent_again():
    a = buffers.empty(BIG, np.float32)
    address = a.ctypes.data
    del a
    b = buffers.empty(BIG, np.float32)
    assert b.ctypes.data == address and b.shape == BIG and b.dtype == np.float32
    assert b.flags.c_contiguous and b.flags.writeable


@pytest.mark.parametrize("holder", ["array", "view", "tensor", "memoryview"])
def test_an_array_still_referred_to_is_not_lent(holder):
    a = buffers.empty(BIG, np.float32)
    a[...] = 7
    kept = {"array": lambda: a, "view": lambda: a[1:].T, "tensor": lambda: ember.from_numpy(a),
            "memoryview": lambda: memoryview(a)}[holder]()
    del a
    b = buffers.empty(BIG, np.float32)
    b[...] = 0
    assert not np.shares_memory(b, np.asarray(kept))
    assert (np.asarray(kept) == 7).all()


def test_shape_and_dtype_are_the_key():
    a = buffers.empty(BIG, np.float32)
    address = a.ctypes.data
    del a
    for shape, dtype in [((256, 1024), np.float32), (BIG, np.int32)]:
        assert buffers.empty(shape, dtype).ctypes.data != address


def test_small_arrays_are_not_cached():
    a = buffers.empty((4, 4), np.float64)
    assert a.shape == (4, 4) and not buffers.held(a)
    assert buffers._CACHE.nbytes == 0


def test_arrays_reshaped_in_place_or_made_read_only_are_not_lent():
    a = buffers.empty(BIG, np.float32)
    a.shape = (256, 1024)
    del a
    b = buffers.empty(BIG, np.float32)
    assert b.shape == BIG
    b.flags.writeable = False
    del b
    c = buffers.empty(BIG, np.float32)
    assert c.flags.writeable


def test_held_counts_the_cache_reference():
    a = buffers.empty(BIG, np.float32)
    assert buffers.held(a) == 1
    assert buffers.held(np.empty(BIG, np.float32)) == 0


def test_over_the_limit_unused_arrays_are_dropped(monkeypatch):
    monkeypatch.setattr(buffers, "LIMIT_BYTES", 3 * MIB)
    kept = buffers.empty(BIG, np.float32)
    unused = buffers.empty((1024, 256), np.float32)
    del unused
    third = buffers.empty((128, 2048), np.float32)
    fourth = buffers.empty((64, 4096), np.float32)      # drops the unused (1024, 256)
    assert buffers._CACHE.nbytes == 3 * MIB
    assert buffers.held(kept) and buffers.held(third) and buffers.held(fourth)
    assert (1024, 256) not in {key[0] for key in buffers._CACHE.arrays}
    fifth = buffers.empty((32, 8192), np.float32)      # nothing to drop: not cached
    assert not buffers.held(fifth) and buffers._CACHE.nbytes == 3 * MIB


def test_each_thread_has_its_own_arrays():
    a = buffers.empty(BIG, np.float32)
    address = a.ctypes.data
    del a
    seen = []
    thread = threading.Thread(target=lambda: seen.append(buffers.empty(BIG, np.float32)))
    thread.start()
    thread.join()
    assert seen[0].ctypes.data != address


def test_linear_results_in_use_keep_their_values():
    torch.manual_seed(0)
    t_lin = torch.nn.Linear(300, 400)
    lin = ember.nn.Linear(300, 400)
    lin.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                         t_lin.state_dict().items()})
    x1, x2 = (np.random.default_rng(i).standard_normal((500, 300), np.float32) for i in (1, 2))
    y1 = lin(ember.tensor(x1))
    first = y1.detach().numpy().copy()
    y2 = lin(ember.tensor(x2))
    del y2
    y3 = lin(ember.tensor(x2))              # takes y2's memory, not y1's
    np.testing.assert_array_equal(y1.detach().numpy(), first)
    with torch.no_grad():
        for y, x in [(y1, x1), (y3, x2)]:
            np.testing.assert_allclose(y.detach().numpy(), t_lin(torch.tensor(x)).numpy(),
                                       rtol=1e-5, atol=1e-5)


def test_a_weight_gradient_becomes_grad_without_a_copy_and_returns_each_step():
    lin = ember.nn.Linear(512, 512)
    x = ember.randn(256, 512)
    arrays = []
    for _ in range(3):
        lin.zero_grad()
        lin(x).sum().backward()
        arrays.append(lin.weight.grad._data)
        assert buffers.held(arrays[-1])
        del arrays[-1]
        arrays.append(lin.weight.grad._data.ctypes.data)
    assert arrays[0] == arrays[1] == arrays[2]
    expected = x.numpy().sum(0)[None, :].repeat(512, 0)
    np.testing.assert_allclose(lin.weight.grad.numpy(), expected, rtol=1e-5)


def test_a_gradient_kept_by_the_user_is_not_overwritten():
    lin = ember.nn.Linear(512, 512)
    x = ember.randn(256, 512)
    lin(x).sum().backward()
    old = lin.weight.grad
    before = old.numpy().copy()
    lin.zero_grad()
    (2 * lin(x)).sum().backward()
    np.testing.assert_array_equal(old.numpy(), before)
    np.testing.assert_allclose(lin.weight.grad.numpy(), 2 * before, rtol=1e-6)


def test_empty_like_keeps_the_layout():
    c = np.empty(BIG, np.float32)
    reused = buffers.empty_like(c, np.float64)
    assert reused.dtype == np.float64 and reused.flags.c_contiguous and buffers.held(reused)
    f = np.empty(BIG, np.float32, order="F")
    other = buffers.empty_like(f)
    assert other.flags.f_contiguous and not other.flags.c_contiguous and not buffers.held(other)


def test_a_shape_given_as_a_list_is_a_tuple_key():
    a = buffers.empty(list(BIG), np.float32)
    address = a.ctypes.data
    del a
    assert buffers.empty(list(BIG), np.float32).ctypes.data == address


def test_copy_and_matmul_write_into_reused_arrays():
    a = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    c = buffers.copy(a.T)
    assert c.flags.c_contiguous and buffers.held(c)
    np.testing.assert_array_equal(c, a.T)
    stacks = np.stack([a, a.T])
    product = buffers.matmul(stacks, a)
    assert product.shape == (2, 512, 512) and buffers.held(product)
    np.testing.assert_array_equal(product, np.matmul(stacks, a))
