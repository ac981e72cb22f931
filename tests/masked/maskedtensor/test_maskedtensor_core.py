"""MaskedTensor itself (ember/masked/maskedtensor/core.py, creation.py, _printing.py) against
torch: creation and its warnings, validation errors, repr, members, and autograd through
the data (grads as MaskedTensors)."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_error

DATA = np.array([[1.0, -2.5, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
MASK = np.array([[True, False, True], [False, False, False]])

pytestmark = [pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors"),
              pytest.mark.filterwarnings("ignore:It is not recommended to create a MaskedTensor")]


def mt(lib, data=DATA, mask=MASK, **kwargs):
    return lib.masked.masked_tensor(lib.tensor(data), lib.tensor(mask), **kwargs)


@pytest.mark.parametrize("lib", [torch, ember])
def test_creation_warns_that_the_api_is_a_prototype(lib):
    with pytest.warns(UserWarning, match="The PyTorch API of MaskedTensors is in prototype "
                                         "stage and will change in the near future"):
        mt(lib)
    with pytest.warns(UserWarning, match="It is not recommended to create a MaskedTensor with "
                                         "a tensor that requires_grad"):
        lib.masked.as_masked_tensor(lib.ones(2, requires_grad=True) * 2, lib.tensor([True, False]))


@pytest.mark.parametrize("data,mask", [
    (DATA, MASK),
    (np.float32(3.0), np.bool_(True)),
    (np.float32(3.0), np.bool_(False)),
    (np.array([1, 2, 300000]), np.array([True, False, True])),
    (np.array([1.123456, -2, 300000.0]), np.array([True, False, True])),
    (np.array([True, False]), np.array([True, False])),
    (np.arange(12.0).reshape(2, 3, 2), np.arange(12).reshape(2, 3, 2) % 3 == 0),
])
def test_repr_is_torchs(same_masked, data, mask):
    same_masked(lambda lib: mt(lib, data, mask))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert str(mt(ember, data, mask)) == str(mt(torch, data, mask))


def test_members(same_masked):
    same_masked(lambda lib: (mt(lib).get_data(), mt(lib).get_mask(), mt(lib).to_tensor(0),
                             mt(lib).to_tensor(float("nan"))))
    same_masked(lambda lib: (tuple(mt(lib).shape), str(mt(lib).dtype), mt(lib).requires_grad,
                             mt(lib).is_leaf, str(mt(lib).layout), mt(lib).is_sparse,
                             mt(lib).stride(), isinstance(mt(lib), lib.Tensor),
                             lib.masked.is_masked_tensor(mt(lib)),
                             lib.masked.is_masked_tensor(lib.ones(1))))
    same_masked(lambda lib: (mt(lib).detach(), mt(lib).clone(), mt(lib).to(lib.float64)))


def test_the_copies_are_independent():
    data, mask = ember.tensor(DATA), ember.tensor(MASK)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ember.masked.masked_tensor(data, mask)
    data.zero_()
    mask.fill_(True)
    assert_same(m.get_data(), torch.tensor(DATA), 0, 0)
    assert_same(m.get_mask(), torch.tensor(MASK), 0, 0)


@pytest.mark.parametrize("make,error,match", [
    (lambda lib: mt(lib, mask=MASK.astype(np.int32)), TypeError, "mask must have dtype bool"),
    (lambda lib: mt(lib, mask=MASK[0]), ValueError, r"data.dim\(\) must equal mask.dim\(\)"),
    (lambda lib: mt(lib, mask=MASK[:1]), ValueError, r"data.size\(\) must equal mask.size\(\)"),
    (lambda lib: lib.masked.masked_tensor(lib.ones(2, dtype=lib.bfloat16), lib.ones(2) > 0),
     TypeError, "torch.bfloat16 is not supported in MaskedTensor"),
    (lambda lib: lib.masked.masked_tensor([1.0], lib.tensor(True)), TypeError,
     "data must be a Tensor"),
    (lambda lib: lib.masked.masked_tensor(lib.tensor(1.0), True), TypeError,
     "mask must be a Tensor"),
    (lambda lib: mt(lib).numpy(), RuntimeError, "not supported for tensor subclasses"),
])
def test_bad_input_raises_torchs_error(make, error, match):
    check_error(make, error, match)


def test_torch_functions_on_a_masked_tensor_are_refused_by_name():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = mt(ember)
    with pytest.raises(NotImplementedError, match="exp on a MaskedTensor"):
        ember.exp(m)
    with pytest.raises(NotImplementedError, match="sum on a MaskedTensor"):
        ember.sum(m)


def _grad_data(lib, leaf):
    grad = leaf.grad
    return grad.get_data() if isinstance(grad, lib.masked.MaskedTensor) else grad


def test_a_leaf_gets_a_masked_tensor_grad(same_masked):
    def run(lib):
        leaf = mt(lib, requires_grad=True)
        result = (leaf * leaf).sum(1)
        result.backward(lib.masked.masked_tensor(lib.tensor([1.0, 2.0]),
                                                 lib.tensor([True, False])))
        return leaf.grad, leaf.is_leaf, leaf.requires_grad, result.requires_grad
    same_masked(run)


def test_as_masked_tensor_keeps_the_data_graph():
    # torch gives the plain data a MaskedTensor grad; ember a plain tensor of the same values
    grads = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = lib.tensor(DATA, requires_grad=True)
            wrapped = lib.masked.as_masked_tensor(data * 2, lib.tensor(MASK))
            assert wrapped.requires_grad and not wrapped.is_leaf
            wrapped.sum().backward()
        grads.append(_grad_data(lib, data))
    assert_same(grads[1], grads[0], 0, 0)


def test_get_data_is_differentiable(same_masked):
    def run(lib):
        leaf = mt(lib, requires_grad=True)
        (leaf.get_data() * 3).sum().backward()
        return leaf.grad
    same_masked(run)


def test_backward_of_a_non_scalar_needs_a_gradient():
    check_error(lambda lib: mt(lib, requires_grad=True).sum(1).backward(), RuntimeError,
                "grad can be implicitly created only for scalar outputs")


def test_requires_grad_and_grad_assignment(same_masked):
    def run(lib):
        leaf = mt(lib).requires_grad_()
        (leaf * 2).sum().backward()
        first = leaf.grad
        leaf.grad = None
        return first, leaf.grad is None, leaf.requires_grad
    same_masked(run)
