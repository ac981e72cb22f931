"""Reductions of a MaskedTensor (ember/masked/maskedtensor/reductions.py) against torch:
each reduction over all dims and along each dim, with keepdim, values, result masks,
reprs and gradients."""
import numpy as np
import pytest

DATA = np.array([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0], [7.0, 8.0, -1.5]], dtype=np.float32)
MASK = np.array([[True, False, True], [False, False, False], [True, True, True]])
OPS = ["sum", "mean", "amax", "amin", "prod", "argmax", "argmin", "var", "std"]


def mt(lib, **kwargs):
    return lib.masked.masked_tensor(lib.tensor(DATA), lib.tensor(MASK), **kwargs)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("args", [(), (0,), (1,), (-1, True), (1, True)])
def test_reductions(same_masked, op, args):
    same_masked(lambda lib: getattr(mt(lib), op)(*args))


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod", "var", "std"])
@pytest.mark.parametrize("args", [(), (1,), (0, True)])
def test_gradients(same_masked, op, args):
    def run(lib):
        leaf = mt(lib, requires_grad=True)
        result = getattr(leaf, op)(*args)
        upstream = lib.masked.masked_tensor(lib.ones_like(result.get_data()), result.get_mask())
        result.backward(upstream)
        # torch's var and std grads hold other values where masked out ("undefined" there)
        return result, leaf.grad.to_tensor(0.0) if op in ("var", "std") else leaf.grad
    same_masked(run)


def test_keyword_dims_and_dtype(same_masked):
    same_masked(lambda lib: mt(lib).sum(dim=(0, 1), keepdim=True))
    same_masked(lambda lib: mt(lib).sum(1, dtype=lib.float64))


def test_masked_functions_accept_a_masked_tensor(same_masked):
    same_masked(lambda lib: (lib.masked.softmax(mt(lib), 1), lib.masked.var(mt(lib)),
                             lib.masked.cumsum(mt(lib), 0), lib.masked.norm(mt(lib))))
