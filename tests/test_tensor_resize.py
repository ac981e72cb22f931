"""Tensor.resize_, resize_as_, set_, as_strided_, new_empty_strided and nonzero_static
against torch: values, shapes, strides, storage offsets, memory sharing, versions, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember._storage as es
from tests.oracle import check, check_error


def both(fn):
    """fn(lib) run with torch and with ember."""
    return fn(torch), fn(ember)


def assert_same_layout(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    assert e.untyped_storage().size() == t.untyped_storage().size()
    np.testing.assert_array_equal(e.numpy(), t.numpy())


# ---------------------------------------------------------------- resize_
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("size", [(2, 2), (6,), [3, 2], (1, 2, 3), (0,), ()])
def test_resize_shrink_or_same_numel_keeps_prefix(dtype, size):
    def run(lib):
        x = lib.arange(6).to(getattr(lib, dtype))
        version = x._version
        out = x.resize_(size)
        return x, out is x, x._version - version
    (t, t_same, t_bump), (e, e_same, e_bump) = both(run)
    assert_same_layout(e, t)
    assert e_same and t_same and e_bump == t_bump


def test_resize_varargs_and_torch_size():
    t, e = both(lambda lib: lib.arange(6.0).resize_(2, 3))
    assert_same_layout(e, t)
    t, e = both(lambda lib: lib.arange(6.0).resize_(lib.Size([3, 1])))
    assert_same_layout(e, t)


def test_resize_to_same_shape_is_a_no_op():
    # Non-contiguous strides survive and the version does not move, as in torch.
    def run(lib):
        x = lib.arange(6.0).view(2, 3).t()
        version = x._version
        x.resize_(3, 2)
        return x, x._version - version
    (t, tv), (e, ev) = both(run)
    assert_same_layout(e, t)
    assert tv == ev == 0


def test_resize_non_contiguous_to_new_shape_is_contiguous():
    t, e = both(lambda lib: lib.arange(6.0).view(2, 3).t().resize_(2, 3))
    assert_same_layout(e, t)


def test_resize_grow_copies_old_elements():
    def run(lib):
        x = lib.arange(6.0)
        x.resize_(3, 3)
        return x
    t, e = both(run)
    assert tuple(e.shape) == (3, 3) and e.stride() == t.stride()
    assert e.untyped_storage().size() == t.untyped_storage().size() == 36
    # Elements past the old storage are uninitialised in torch: compare the old part only.
    np.testing.assert_array_equal(e.numpy().ravel()[:6], t.numpy().ravel()[:6])


def test_resize_shrink_keeps_sharing_memory_with_views():
    for lib in (torch, ember):
        x = lib.arange(6.0)
        view = x[3:]
        x.resize_(2)
        x.resize_(5)          # back within the storage: the old elements are still there
        x[4] = 40.0
        assert view.tolist() == [3.0, 40.0, 5.0]
        assert x.untyped_storage().data_ptr() == view.untyped_storage().data_ptr()


def test_resize_of_a_view_uses_its_storage_offset():
    def run(lib):
        base = lib.arange(6.0)
        view = base[1:4]
        view.resize_(2)
        return base, view
    (tb, tv), (eb, ev) = both(run)
    assert_same_layout(ev, tv)
    ev[0] = -1.0
    tv[0] = -1.0
    assert eb.tolist() == tb.tolist()


def test_resize_of_a_view_grows_past_the_storage():
    def run(lib):
        view = lib.arange(6.0)[1:]
        view.resize_(8)
        return view
    t, e = both(run)
    assert e.storage_offset() == t.storage_offset() == 1
    assert e.untyped_storage().size() == t.untyped_storage().size() == 36
    np.testing.assert_array_equal(e.numpy()[:5], t.numpy()[:5])


def test_resize_as():
    t, e = both(lambda lib: lib.arange(4.0).resize_as_(lib.ones(2, 2, dtype=lib.int64)))
    assert_same_layout(e, t)
    assert e.dtype == ember.float32
    t, e = both(lambda lib: lib.arange(8.0).resize_as_(lib.ones(3, 2).t()))
    assert_same_layout(e, t)


def test_resize_errors():
    for make in (lambda lib: lib.ones(3, requires_grad=True),
                 lambda lib: lib.ones(3, requires_grad=True) * 2):
        check_error(lambda lib: make(lib).resize_(2), RuntimeError,
                    "cannot resize variables that require grad")
        check_error(lambda lib: make(lib).resize_as_(lib.ones(3)), RuntimeError,
                    "cannot resize variables that require grad")

    def under_no_grad(lib):
        with lib.no_grad():
            lib.ones(3, requires_grad=True).resize_(2)
    check_error(under_no_grad, RuntimeError, "cannot resize variables that require grad")
    check_error(lambda lib: lib.ones(3).resize_(2, -3), RuntimeError,
                "numel: integer multiplication overflow")
    check_error(lambda lib: lib.ones(3).resize_(2, 3.5), TypeError,
                "argument 'size' failed to unpack the object at pos 2")


def test_resize_channels_last_is_not_supported():
    with pytest.raises(NotImplementedError, match="memory_format"):
        ember.ones(2).resize_(1, 2, 2, 2, memory_format=ember.channels_last)


# ---------------------------------------------------------------- set_
def test_set_to_a_tensor_shares_its_memory_not_its_version():
    def run(lib):
        a = lib.zeros(2)
        b = lib.arange(6.0).view(2, 3)[:, 1:]
        va, vb = a._version, b._version
        out = a.set_(b)
        bumps = (a._version - va, b._version - vb)
        a.add_(1)
        return a, b, out is a, bumps, b._version - vb, a._is_view()
    (ta, tb, *t_rest), (ea, eb, *e_rest) = both(run)
    assert_same_layout(ea, ta)
    assert eb.tolist() == tb.tolist() == [[2.0, 3.0], [5.0, 6.0]]
    assert e_rest == t_rest
    assert ea.untyped_storage().data_ptr() == eb.untyped_storage().data_ptr()


@pytest.mark.parametrize("args", [(1, (2, 2), (2, 1)), (1, (2, 2)), (2, (3,), (1,)), (0, (0,))])
def test_set_to_a_tensor_with_geometry(args):
    t, e = both(lambda lib: lib.zeros(1).set_(lib.arange(6.0), *args))
    assert_same_layout(e, t)


@pytest.mark.parametrize("typed", [False, True])
def test_set_to_a_storage(typed):
    def run(lib):
        source = lib.arange(6.0)
        storage = source.storage() if typed else source.untyped_storage()
        whole = lib.zeros(1).set_(storage)
        part = lib.empty(0).set_(storage, 2, (2, 2))
        part[0, 0] = 20.0
        return whole, part, source
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        (tw, tp, ts), (ew, ep, esrc) = both(run)
    assert_same_layout(ew, tw)
    assert_same_layout(ep, tp)
    assert esrc.tolist() == ts.tolist()


def test_set_to_a_storage_of_another_dtype_reinterprets_bytes():
    t, e = both(lambda lib: lib.empty(0, dtype=lib.int32).set_(lib.arange(3.0).untyped_storage()))
    assert_same_layout(e, t)


def test_set_empty():
    def run(lib):
        x = lib.ones(3)
        version = x._version
        x.set_()
        return x, x._version - version
    (t, tv), (e, ev) = both(run)
    assert_same_layout(e, t)
    assert tv == ev == 1


def test_set_errors():
    check_error(lambda lib: lib.zeros(2).set_(lib.zeros(2, dtype=lib.int64)), RuntimeError,
                "Could not set tensor of type long int to a tensor of type float")
    check_error(lambda lib: lib.zeros(2, dtype=lib.float64).set_(lib.zeros(2).storage()),
                RuntimeError, "Expected a Storage of type double or an UntypedStorage, but got "
                "type Float for argument 1 'storage'")
    check_error(lambda lib: lib.zeros(2, requires_grad=True).set_(lib.zeros(2)), RuntimeError,
                "a leaf Variable that requires grad is being used in an in-place operation.")
    check_error(lambda lib: lib.zeros(2).set_(lib.zeros(4).untyped_storage(), -1, (2,), (1,)),
                RuntimeError, "Tensor: invalid storage offset -1")
    check_error(lambda lib: lib.zeros(2).set_(5), TypeError,
                r"set_\(\) received an invalid combination of arguments")


def test_set_beyond_the_storage_is_not_supported():
    # torch grows the shared storage in place; ember cannot grow memory it does not own.
    with pytest.raises(NotImplementedError, match="set_"):
        ember.zeros(2).set_(ember.zeros(4).untyped_storage(), 1, (5,), (1,))


# ---------------------------------------------------------------- as_strided_
def test_as_strided_in_place():
    def run(lib):
        x = lib.arange(6.0)
        version = x._version
        out = x.as_strided_((2, 2), (1, 2), 1)
        return x, out is x, x._version - version
    (t, *t_rest), (e, *e_rest) = both(run)
    assert_same_layout(e, t)
    assert e_rest == t_rest


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_as_strided_in_place_gradient(dtype):
    def fn(lib, a):
        x = a.clone()
        x.as_strided_((2, 2), (1, 2), 1)
        assert x.grad_fn.name() == "AsStridedBackward1"
        return x * 3
    check(fn, (6,), dtype=dtype)


def test_as_strided_in_place_errors():
    check_error(lambda lib: lib.arange(6.0, requires_grad=True).as_strided_((2, 2), (1, 2)),
                RuntimeError, "a leaf Variable that requires grad is being used in an in-place "
                "operation.")
    check_error(lambda lib: lib.arange(6.0).as_strided_((4, 4), (1, 2)), RuntimeError,
                r"setStorage: sizes \[4, 4\], strides \[1, 2\], storage offset 0, and itemsize 4 "
                "requiring a storage size of 40 are out of bounds for storage of size 24")


# ---------------------------------------------------------------- new_empty_strided
# Not ((2, 0), (5, 1)): ember reports canonical strides for every empty tensor.
@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (0, 0)), ((), ()),
                                          ((4,), (3,))])
def test_new_empty_strided(size, stride):
    t, e = both(lambda lib: lib.ones(2, dtype=lib.int32).new_empty_strided(size, stride))
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    assert e.dtype == ember.int32 and not e.requires_grad
    assert e.untyped_storage().size() == t.untyped_storage().size()


def test_new_empty_strided_dtype_and_grad():
    t, e = both(lambda lib: lib.ones(2).new_empty_strided((2, 2), (2, 1), dtype=lib.float64,
                                                          requires_grad=True))
    assert e.dtype == ember.float64 and e.requires_grad and e.is_leaf


def test_new_empty_strided_errors():
    check_error(lambda lib: lib.ones(2).new_empty_strided((2, -3), (1, 1)), RuntimeError,
                r"Trying to create tensor with negative dimension -3: \[2, -3\]")
    check_error(lambda lib: lib.ones(2).new_empty_strided((2, 3), (1,)), RuntimeError,
                r"dimensionality of sizes \(2\) must match dimensionality of strides \(1\)")
    check_error(lambda lib: lib.ones(2).new_empty_strided((2, 3), (1, -1)), RuntimeError,
                "Storage size calculation overflowed with sizes")


# ---------------------------------------------------------------- nonzero_static
NONZERO_INPUTS = [np.array([[0, 1.5], [2, 0]]), np.array([True, False, True]),
                  np.array([0, 3, 0, 4], dtype=np.int64), np.array(5.0), np.array(0.0),
                  np.zeros((0, 3)), np.array([[0.0, 0.0]])]


@pytest.mark.parametrize("array", NONZERO_INPUTS)
@pytest.mark.parametrize("size, fill", [(0, -1), (1, -1), (4, -1), (3, 7)])
def test_nonzero_static(array, size, fill):
    check(lambda lib, a: a.nonzero_static(size=size, fill_value=fill), array, grad=False)


def test_nonzero_static_non_contiguous_and_grad():
    check(lambda lib, a: a.gt(0).nonzero_static(size=5), (3, 4), grad=False,
          non_contiguous=True)
    t, e = both(lambda lib: lib.ones(3, requires_grad=True).nonzero_static(size=2))
    assert not e.requires_grad and not t.requires_grad


def test_nonzero_static_errors():
    x = np.array([1.0, 0.0])
    check_error(lambda lib: lib.from_numpy(x).nonzero_static(size=-1), RuntimeError,
                "nonzero_static: 'size' must be an non-negative integer")
    check_error(lambda lib: lib.from_numpy(x).nonzero_static(size=2, fill_value=2.5), TypeError,
                "nonzero_static\\(\\): argument 'fill_value' must be int, not float")
    check_error(lambda lib: lib.from_numpy(x).nonzero_static(2), TypeError, "nonzero_static")


def test_storage_module_is_used_by_tensor():
    assert issubclass(ember.Tensor, es.StorageMethods)
