"""default_collate / default_convert against torch's: values, types, dtypes, nesting."""
import collections

import numpy as np
import pytest
import torch

import ember
from ember.utils.data._utils import shared_memory
from oracle import check_error

Point = collections.namedtuple("Point", ["x", "y"])


def assert_same_structure(e, t):
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), type(e)
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
        return
    assert type(e) is type(t), (type(e), type(t))
    if isinstance(t, dict):
        assert list(e) == list(t)
        for key in t:
            assert_same_structure(e[key], t[key])
    elif isinstance(t, (list, tuple)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            assert_same_structure(a, b)
    elif isinstance(t, np.ndarray):
        np.testing.assert_array_equal(e, t)
    else:
        assert e == t


def same(fn, make_batch):
    """fn(lib)(batch) built by make_batch(lib) agrees between torch and ember."""
    assert_same_structure(fn(ember)(make_batch(ember)), fn(torch)(make_batch(torch)))


def collate(lib):
    return lib.utils.data.default_collate


def convert(lib):
    return lib.utils.data.default_convert


rng = np.random.default_rng(0)
A = rng.standard_normal((4, 3)).astype(np.float32)
I = rng.integers(0, 9, (4, 2))

BATCHES = {
    "ints": lambda lib: [0, 1, 2],
    "bools": lambda lib: [True, False],
    "floats": lambda lib: [0.5, 1.5],
    "strings": lambda lib: ["a", "b"],
    "bytes": lambda lib: [b"a", b"b"],
    "float32 tensors": lambda lib: [lib.tensor(a) for a in A],
    "int tensors": lambda lib: [lib.tensor(i) for i in I],
    "zero-dim tensors": lambda lib: [lib.tensor(1.5), lib.tensor(2.5)],
    "empty tensors": lambda lib: [lib.zeros(0, 3), lib.zeros(0, 3)],
    "non-contiguous tensors": lambda lib: list(lib.tensor(A).t()),
    "float64 tensors": lambda lib: [lib.tensor(a, dtype=lib.float64) for a in A],
    "mixed dtype tensors": lambda lib: [lib.ones(2), lib.ones(2, dtype=lib.float64),
                                        lib.ones(2, dtype=lib.int32)],
    "numpy arrays": lambda lib: list(A),
    "numpy int arrays": lambda lib: list(I),
    "numpy scalars": lambda lib: [np.float32(1), np.float32(2)],
    "numpy int64 scalars": lambda lib: [np.int64(1), np.int64(2)],
    "numpy bools": lambda lib: [np.bool_(True), np.bool_(False)],
    "pairs": lambda lib: [(lib.tensor(A[i]), int(I[i, 0])) for i in range(4)],
    "lists": lambda lib: [[1, 2.0, "s"], [3, 4.0, "t"]],
    "dicts": lambda lib: [{"img": lib.tensor(A[i]), "label": i, "name": str(i)}
                          for i in range(3)],
    "ordered dicts": lambda lib: [collections.OrderedDict(a=i, b=float(i)) for i in range(3)],
    "namedtuples": lambda lib: [Point(lib.tensor(A[i]), i) for i in range(3)],
    "nested": lambda lib: [{"p": Point(i, [np.float64(i), (i, "x")])} for i in range(2)],
}


@pytest.mark.parametrize("name", list(BATCHES))
def test_default_collate_as_torch(name):
    same(collate, BATCHES[name])


@pytest.mark.parametrize("name", list(BATCHES))
def test_default_convert_as_torch(name):
    same(convert, BATCHES[name])


@pytest.mark.parametrize("sample", [np.arange(3), np.float64(2.5), (np.arange(2), 1),
                                    {"a": np.ones(2)}, Point(np.zeros(1), "s"), "str",
                                    np.array(["a", "b"]), None])
def test_default_convert_samples(sample):
    assert_same_structure(convert(ember)(sample), convert(torch)(sample))


def test_default_convert_shares_numpy_memory():
    array = np.zeros(3)
    convert(ember)(array)[0] = 7
    assert array[0] == 7


def test_tensor_dataset_batch_collates_as_torch():
    """TensorDataset.__getitems__'s batched result collates to what torch gives for the
    list of samples."""
    images, labels = rng.standard_normal((10, 1, 4, 4)).astype(np.float32), np.arange(10)
    indices = [3, 1, 7]
    ds = ember.utils.data.TensorDataset(ember.tensor(images), ember.tensor(labels))
    tds = torch.utils.data.TensorDataset(torch.tensor(images), torch.tensor(labels))
    expected = torch.utils.data.default_collate([tds[i] for i in indices])
    assert_same_structure(collate(ember)(ds.__getitems__(indices)), expected)
    # a custom collate_fn still sees a list of sample tuples
    assert_same_structure(list(zip(*ds.__getitems__(indices)))[1],
                          tuple(tds[i][1] for i in indices))


def test_different_sizes_error():
    def batch(lib):
        return [lib.zeros(3, 28, 28)] * 5 + [lib.zeros(3, 32, 32)] + [lib.zeros(3, 28, 28)]
    err = check_error(lambda lib: collate(lib)(batch(lib)), RuntimeError,
                      r"^stack expects each tensor to be equal size, but got \[3, 28, 28\] at "
                      r"entry 0 and \[3, 32, 32\] at entry 5")
    message = str(err)
    assert "positions 0, 1, 2, 3, ..." in message and "[3, 32, 32] at position 5" in message
    assert "transforms.Resize" in message and "collate_fn" in message


def test_collate_errors():
    check_error(lambda lib: collate(lib)([[1, 2], [3]]), RuntimeError,
                "each element in list of batch should be of equal size")
    check_error(lambda lib: collate(lib)([object(), object()]), TypeError,
                "default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                "or lists; found <class 'object'>")
    check_error(lambda lib: collate(lib)([np.array(["a"]), np.array(["b"])]), TypeError,
                "default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                "or lists; found <U1")
    check_error(lambda lib: collate(lib)([None, None]), TypeError,
                "found <class 'NoneType'>")


def test_collating_sparse_tensors_is_refused():
    def batch(lib):
        return [lib.tensor([[0., 1.], [2., 0.]]).to_sparse()] * 2
    check_error(lambda lib: collate(lib)(batch(lib)), RuntimeError,
                "^Batches of sparse tensors are not currently supported by the default "
                "collate_fn; please provide a custom collate_fn")


def test_collate_with_custom_map():
    from ember.utils.data._utils.collate import collate as ember_collate
    from torch.utils.data._utils.collate import collate as torch_collate

    def fn(lib, collate_fn):
        def count(batch, *, collate_fn_map):
            return len(batch)
        return lambda batch: collate_fn(batch, collate_fn_map={int: count})
    batch = [(1, 2), (3, 4), (5, 6)]
    assert fn(ember, ember_collate)(batch) == fn(torch, torch_collate)(batch) == [3, 3]


def test_collated_tensors_are_a_new_tensor():
    samples = [ember.tensor(a) for a in A]
    batch = collate(ember)(samples)
    batch[0] = 0
    np.testing.assert_array_equal(samples[0].numpy(), A[0])
    assert batch.grad_fn is None and not batch.requires_grad


def test_collating_tensors_that_require_grad_records_the_stack():
    def batch(lib):
        leaf = lib.tensor(A[0], requires_grad=True)
        stacked = collate(lib)([leaf, lib.tensor(A[1]), leaf])
        stacked.sum().backward()
        return stacked, leaf.grad
    (e, e_grad), (t, t_grad) = batch(ember), batch(torch)
    assert e.grad_fn.name() == t.grad_fn.name() == "StackBackward0"
    np.testing.assert_array_equal(e_grad.numpy(), t_grad.numpy())


def test_collate_under_the_profiler_records_the_stack():
    samples = [ember.tensor(a) for a in A]
    keys = {}
    for name, fn in [("stack", lambda: ember.stack(samples)),
                     ("collate", lambda: collate(ember)(samples))]:
        with ember.profiler.profile() as prof:
            fn()
        keys[name] = sorted(event.key for event in prof.key_averages())
    assert keys["collate"] == keys["stack"] and keys["stack"]


def test_collate_in_a_worker_makes_the_batch_in_shared_memory(monkeypatch):
    pool = shared_memory.BlockPool()
    monkeypatch.setattr(shared_memory, "_current_pool", pool)
    samples = [ember.tensor(a) for a in A]
    try:
        pool.start_task()           # no block yet: the first batch is copied into one
        slot, _, _ = pool.pack(collate(ember)(samples))
        pool.release([slot])
        pool.start_task()
        batch = collate(ember)(samples)
        block = np.frombuffer(pool.blocks[slot].buf, np.uint8)
        assert np.shares_memory(batch.numpy(), block)
        np.testing.assert_array_equal(batch.numpy(), A)
        assert pool.pack(batch)[0] == slot
        del batch, block
    finally:
        pool.close()
