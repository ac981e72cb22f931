"""Tensor.untyped_storage() / storage() and the storage classes, against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember._storage as es
from tests.oracle import check_error

DTYPES = ["float32", "float64", "int64", "bool"]


def storages(lib):
    """Where the storage classes live (ember's are bound to the top-level namespace at
    registration; until then they are in ember._storage)."""
    return torch if lib is torch else es


def pair(array):
    """The same data as a torch and an ember tensor."""
    return torch.from_numpy(array.copy()), ember.from_numpy(array.copy())


@pytest.fixture(autouse=True)
def quiet_typed_storage():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("dtype", DTYPES)
def test_untyped_storage_bytes_and_size(dtype):
    t, e = pair(np.arange(6).astype(dtype))
    ts, es_ = t.untyped_storage(), e.untyped_storage()
    assert es_.size() == ts.size() == len(es_) and es_.nbytes() == ts.nbytes()
    assert es_.element_size() == 1
    assert es_.tolist() == ts.tolist()
    assert es_[3] == ts[3] and es_[-1] == ts[-1]
    assert es_.device.type == "cpu" and not es_.is_shared()


@pytest.mark.parametrize("dtype", DTYPES)
def test_typed_storage_matches_torch(dtype):
    t, e = pair(np.arange(6).astype(dtype))
    ts, es_ = t.storage(), e.storage()
    assert (es_.size(), len(es_), es_.nbytes(), es_.element_size()) == \
        (ts.size(), len(ts), ts.nbytes(), ts.element_size())
    assert str(es_.dtype) == str(ts.dtype)
    assert es_.tolist() == ts.tolist() and es_[-1] == ts[-1]
    assert es_.type() == ts.type()
    assert repr(es_) == repr(ts)
    assert es_.data_ptr() == e.untyped_storage().data_ptr() == e.data_ptr()


def test_untyped_repr_and_empty_storage():
    t, e = pair(np.arange(2, dtype=np.int16))
    assert repr(e.untyped_storage()) == repr(t.untyped_storage())
    t, e = pair(np.zeros(0, dtype=np.float32))
    assert repr(e.untyped_storage()) == repr(t.untyped_storage())
    assert e.untyped_storage().size() == 0 and e.untyped_storage().data_ptr() == 0
    assert repr(e.storage()) == repr(t.storage())


def test_zero_dim_storage():
    t, e = torch.tensor(3.0), ember.tensor(3.0)
    assert e.untyped_storage().size() == t.untyped_storage().size() == 4
    assert e.storage().tolist() == t.storage().tolist()
    assert e.storage_offset() == 0
    assert e.untyped_storage().data_ptr() == e.data_ptr()
    assert ember.arange(3.0)[1].storage_offset() == torch.arange(3.0)[1].storage_offset()


def test_storage_warns_once_like_torch():
    es._warned_typed_storage = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.ones(2).storage()
        ember.ones(2).storage()
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert len(messages) == 1 and messages[0].startswith("TypedStorage is deprecated.")


@pytest.mark.parametrize("make_view", [
    lambda x: x[2:], lambda x: x.view(2, 3).t(), lambda x: x.view(2, 3)[:, 1],
    lambda x: x.view(3, 2).select(1, 1), lambda x: x.detach()[1:].unsqueeze(0)])
def test_views_share_the_base_storage(make_view):
    t, e = pair(np.arange(6, dtype=np.float32))
    tv, ev = make_view(t), make_view(e)
    assert ev.untyped_storage().data_ptr() == e.untyped_storage().data_ptr()
    assert ev.untyped_storage().size() == tv.untyped_storage().size()
    assert ev.storage_offset() == tv.storage_offset()
    assert ev.stride() == tv.stride()


def test_copies_do_not_share_storage():
    e = ember.arange(6.0)
    for other in (e.clone(), e + 0, e.view(2, 3).t().contiguous()):
        assert other.untyped_storage().data_ptr() != e.untyped_storage().data_ptr()


def test_non_contiguous_root_storage():
    # from_numpy of a transposed array: the storage is the whole buffer underneath.
    a = np.arange(12.0).reshape(3, 4).T
    t, e = torch.from_numpy(a), ember.from_numpy(a)
    assert e.untyped_storage().size() == t.untyped_storage().size() == 96
    assert e.storage().tolist() == t.storage().tolist()


def test_writes_through_storage_reach_the_tensor():
    for lib in (torch, ember):
        x = lib.arange(6.0)
        x[1:].storage()[0] = 10.0            # element 0 of the whole storage
        x.storage()[2:4] = 7.0
        x.untyped_storage()[20:24][0] = 0     # low byte of element 5
        sliced = x.untyped_storage()[4:8]     # shares memory
        sliced.fill_(0)
        assert x.tolist() == [10.0, 0.0, 7.0, 7.0, 4.0, 5.0]
    t, e = pair(np.arange(4, dtype=np.int32))
    t.untyped_storage()[0] = 300             # bytes wrap modulo 256, as in torch
    e.untyped_storage()[0] = 300
    assert e.tolist() == t.tolist()


def test_storage_fill_copy_clone():
    for lib in (torch, ember):
        x = lib.zeros(3)
        s = x.storage()
        s.fill_(2.0)
        assert x.tolist() == [2.0, 2.0, 2.0]
        c = s.clone()
        c[0] = 5.0
        assert x.tolist() == [2.0, 2.0, 2.0] and c.data_ptr() != s.data_ptr()
        s.copy_(c)
        assert x.tolist() == [5.0, 2.0, 2.0]


def test_storage_constructors_and_legacy_types():
    for lib in (torch, ember):
        st = storages(lib)
        assert st.FloatStorage(3).size() == 3 and st.UntypedStorage(5).size() == 5
        assert st.FloatStorage([1, 2]).tolist() == [1.0, 2.0]
        assert st.UntypedStorage([1, 2, 3]).tolist() == [1, 2, 3]
        assert st.TypedStorage([1.5, 2], dtype=lib.int64).tolist() == [1, 2]
        assert str(st.TypedStorage(3, dtype=lib.float64).dtype) == "torch.float64"
        s = lib.ones(2).storage()
        assert isinstance(s, st.FloatStorage) and isinstance(s, st.TypedStorage)
        assert not isinstance(s, st.DoubleStorage)
        assert st.DoubleStorage.dtype == lib.float64
        assert st.FloatStorage(2).type() == "torch.FloatStorage"
    wrapped = [storages(lib).TypedStorage(wrap_storage=lib.arange(2.0).untyped_storage(),
                                          dtype=lib.int32).tolist() for lib in (torch, ember)]
    assert wrapped[0] == wrapped[1]


def test_bfloat16_storage_tolist():
    t = torch.tensor([1.5, 2.0], dtype=torch.bfloat16)
    e = ember.tensor([1.5, 2.0], dtype=ember.bfloat16)
    assert e.storage().tolist() == t.storage().tolist()


def test_storage_index_errors():
    check_error(lambda lib: lib.arange(6.0).untyped_storage()[100], IndexError,
                "index 100 out of range for storage of size 24")
    check_error(lambda lib: lib.arange(6.0).storage()[-7], IndexError,
                "index -7 out of range for storage of size 6")
    check_error(lambda lib: lib.arange(6.0).storage()[1:3], RuntimeError,
                "slices are only supported in UntypedStorage.__getitem__")
    check_error(lambda lib: lib.arange(6.0).untyped_storage()[0:8:2], RuntimeError,
                "Trying to slice with a step of 2, but only a step of 1 is supported")
    check_error(lambda lib: lib.arange(6.0).untyped_storage()[1.5], TypeError,
                "can't index a torch.UntypedStorage with float")


@pytest.mark.parametrize("make", [
    lambda lib: lib.arange(6.)[2:],
    lambda lib: lib.arange(12.).reshape(3, 4)[1:, 1:],
    lambda lib: lib.arange(12.).reshape(3, 4).t()[1],
    lambda lib: lib.arange(6.),
])
def test_data_of_a_view_sits_in_the_views_storage(make):
    """x.data is not an autograd view, but it shares x's storage at x's offset."""
    for lib in (torch, ember):
        x = make(lib)
        data = x.data
        assert data.storage_offset() == x.storage_offset()
        assert data.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert data.untyped_storage().nbytes() == x.untyped_storage().nbytes()
    assert make(ember).data.storage_offset() == make(torch).data.storage_offset()


def test_storage_from_file_and_asarray_share_memory_as_torch(tmp_path):
    """safetensors' torch backend (transformers' from_pretrained) maps the file with
    UntypedStorage.from_file and reads each tensor as asarray(storage[a:b], dtype=uint8)."""
    path = str(tmp_path / "weights.bin")
    np.arange(6, dtype=np.float32).tofile(path)

    def run(lib):
        private = lib.UntypedStorage.from_file(path, shared=False, nbytes=24)
        values = lib.asarray(private[4:16], dtype=lib.uint8).view(dtype=lib.float32)
        values[0] = 9.0                         # copy on write: the file keeps its bytes
        shared = lib.UntypedStorage.from_file(path, shared=True, nbytes=24)
        lib.asarray(shared, dtype=lib.float32)[5] = 7.0
        return (values.tolist(), np.fromfile(path, dtype=np.float32).tolist(),
                lib.UntypedStorage.from_file(path).nbytes())
    assert run(ember) == run(torch)
    np.arange(6, dtype=np.float32).tofile(path)
    check_error(lambda lib: lib.UntypedStorage.from_file(path, nbytes=100), RuntimeError,
                r"size <24> is smaller than the required mapping size <100>")


@pytest.mark.parametrize("dtype", [None, "uint8", "float32"])
def test_asarray_of_storage_and_buffer_shares_memory(dtype):
    raw = np.arange(8, dtype=np.float32).tobytes()

    def run(lib):
        kwargs = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        storage = lib.UntypedStorage.from_buffer(raw, dtype=lib.uint8)
        t = lib.asarray(storage, **kwargs)
        buffer = bytearray(raw)
        b = lib.asarray(buffer, **kwargs)
        b[1] = 3
        return (str(t.dtype), t.tolist(), t.data_ptr() == storage.data_ptr(), str(b.dtype),
                bytes(buffer) == bytes(b.numpy().tobytes()))
    assert run(ember) == run(torch)
