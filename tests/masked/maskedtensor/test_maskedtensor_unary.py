"""Elementwise functions of one MaskedTensor (ember/masked/maskedtensor/unary.py) against
torch: values, masks, reprs, in-place forms, operators and gradients."""
import numpy as np
import pytest

DATA = np.array([[0.5, -0.25, 0.75], [0.1, 0.9, -0.6]], dtype=np.float32)
MASK = np.array([[True, False, True], [False, True, True]])


def mt(lib, **kwargs):
    return lib.masked.masked_tensor(lib.tensor(DATA), lib.tensor(MASK), **kwargs)


@pytest.mark.parametrize("call", [
    lambda m: m.exp(), lambda m: m.abs(), lambda m: m.sin(), lambda m: m.tanh(),
    lambda m: m.sigmoid(), lambda m: m.square(), lambda m: m.pow(3), lambda m: m.clamp(0, 0.6),
    lambda m: m.clamp(min=0), lambda m: m.isnan(), lambda m: m.signbit(), lambda m: m.asin(),
    lambda m: m.neg(), lambda m: -m, lambda m: abs(m), lambda m: m ** 2, lambda m: +m,
    lambda m: m.nan_to_num(), lambda m: m.round(), lambda m: m.logit(),
])
def test_unary_ops(same_masked, call):
    same_masked(lambda lib: call(mt(lib)))


@pytest.mark.parametrize("call", [lambda m: m.exp_(), lambda m: m.clamp_(0, 0.6),
                                  lambda m: m.neg_(), lambda m: m.sqrt_()])
def test_in_place_forms_change_the_data_and_return_the_masked_tensor(same_masked, call):
    def run(lib):
        m = mt(lib)
        return call(m) is m, m
    same_masked(run)


def test_bitwise_not_of_a_bool_masked_tensor(same_masked):
    same_masked(lambda lib: ~lib.masked.masked_tensor(lib.tensor(MASK), lib.tensor(MASK)))


def test_gradients_through_unary_ops(same_masked):
    def run(lib):
        leaf = mt(lib, requires_grad=True)
        leaf.exp().sin().sum().backward()
        return leaf.grad
    same_masked(run)


def test_a_tensor_argument_is_refused(same_masked):
    def run(lib):
        with pytest.raises(TypeError, match="MaskedTensor unary ops do not support additional "
                                            "Tensor arguments"):
            mt(lib).clamp(lib.zeros(2, 3))
        return True
    same_masked(run)
