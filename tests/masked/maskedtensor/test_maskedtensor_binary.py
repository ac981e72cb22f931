"""Elementwise functions of two operands, one a MaskedTensor (ember/masked/maskedtensor/
binary.py) against torch: operators (reflected ones included), methods, plain tensors and
numbers, in-place forms, gradients, and torch's error for different masks."""
import numpy as np
import pytest

# No remainder is zero: ember's sign of a zero remainder differs from torch's (0.0, -0.0).
DATA = np.array([[1.0, -2.0, 3.5], [4.0, 0.5, -5.0]], dtype=np.float32)
OTHER = np.array([[2.0, 1.0, -1.0], [0.5, 3.0, 2.0]], dtype=np.float32)
MASK = np.array([[True, False, True], [False, True, True]])


def mt(lib, data=DATA, **kwargs):
    return lib.masked.masked_tensor(lib.tensor(data), lib.tensor(MASK), **kwargs)


@pytest.mark.parametrize("call", [
    lambda a, b, t: a + b, lambda a, b, t: a - b, lambda a, b, t: a * b, lambda a, b, t: a / b,
    lambda a, b, t: a // b, lambda a, b, t: a % b, lambda a, b, t: a > b,
    lambda a, b, t: a == b, lambda a, b, t: a != b, lambda a, b, t: a <= b,
    lambda a, b, t: a.maximum(b), lambda a, b, t: a.atan2(b),
    lambda a, b, t: a.logaddexp(b), lambda a, b, t: a.fmod(b), lambda a, b, t: a.mul(b),
    lambda a, b, t: a + t, lambda a, b, t: t + a, lambda a, b, t: t * a, lambda a, b, t: t / a,
    lambda a, b, t: a * 2, lambda a, b, t: 2 * a, lambda a, b, t: 3 + a, lambda a, b, t: 2 / a,
    lambda a, b, t: a - 1, lambda a, b, t: a > 0, lambda a, b, t: a + t[0],
])
def test_binary_ops(same_masked, call):
    same_masked(lambda lib: call(mt(lib), mt(lib, OTHER), lib.tensor(OTHER)))


@pytest.mark.parametrize("call", [lambda a, b: a.add_(b), lambda a, b: a.mul_(b),
                                  lambda a, b: a.div_(2), lambda a, b: a.sub_(b)])
def test_in_place_forms(same_masked, call):
    def run(lib):
        a = mt(lib)
        return call(a, mt(lib, OTHER)) is a, a
    same_masked(run)


def test_in_place_operators(same_masked):
    def run(lib):
        a = mt(lib)
        a += mt(lib, OTHER)
        a *= 2
        return a
    same_masked(run)


def test_gradients_of_both_operands(same_masked):
    def run(lib):
        a, b = mt(lib, requires_grad=True), mt(lib, OTHER, requires_grad=True)
        (a * b + a / b).sum().backward()
        return a.grad, b.grad
    same_masked(run)


def test_masks_must_match(same_masked):
    def run(lib):
        other = lib.masked.masked_tensor(lib.tensor(OTHER), lib.tensor(~MASK))
        with pytest.raises(ValueError, match="Input masks must match. If you need support for "
                                             "this, please open an issue on Github."):
            mt(lib) + other
        with pytest.raises(ValueError, match="Input masks must match"):
            mt(lib).add_(other)
        return True
    same_masked(run)
