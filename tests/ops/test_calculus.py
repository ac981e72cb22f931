"""Finite differences and integration (ember/ops/calculus.py) against torch."""
import numpy as np
import pytest

import ember
from oracle import check, check_error

DTYPES = ["float32", "float64"]

COORDS = np.array([0.0, 0.5, 1.75, 2.0, 3.5])
INTS = np.array([[1, 4, 9, 16, 30], [2, -3, 5, 0, 7]])

CASES = [
    # diff
    (lambda lib, x: lib.diff(x), (3, 5)),
    (lambda lib, x: x.diff(), (5,)),
    (lambda lib, x: x.diff(n=2, dim=0), (4, 3)),
    (lambda lib, x: lib.diff(x, 3, -2), (2, 5, 3)),
    (lambda lib, x: lib.diff(x, n=0), (3, 4)),
    (lambda lib, x: lib.diff(x, n=7), (3, 4)),
    (lambda lib, x, p, a: lib.diff(x, prepend=p, append=a), (3, 4), (3, 1), (3, 2)),
    (lambda lib, x, p: lib.diff(x, 2, 0, prepend=p), (3, 4), (2, 4)),
    (lambda lib, x, a: lib.diff(x, 1, -1, append=a), (3, 0), (3, 2)),
    (lambda lib, x: lib.diff(x), (0, 3)),
    (lambda lib, x, p, a: lib.diff(x, 0, 0, p, a), (5, 5), (1, 5), (2, 5)),  # n=0: no extension
    (lambda lib, x, p, a: lib.diff(x, 3, 1, prepend=p, append=a), (3, 3, 3), (3, 1, 3), (3, 2, 3)),
    (lambda lib, x, a: lib.diff(x, 4, 0, append=a), (2, 3), (3, 3)),
    (lambda lib, x, p: lib.diff(x, 9, -1, prepend=p), (2, 3), (2, 2)),
    (lambda lib, x: lib.diff(x.detach(), out=lib.empty(0, dtype=x.dtype)), (3, 4)),
    (lambda lib, x: lib.diff(x, dim=1), (3, 0)),
    # gradient
    (lambda lib, x: lib.gradient(x), (6,)),
    (lambda lib, x: lib.gradient(x), (4, 5)),
    (lambda lib, x: lib.gradient(x, edge_order=2), (4, 5)),
    (lambda lib, x: lib.gradient(x, spacing=2.5), (4, 5)),
    (lambda lib, x: lib.gradient(x, spacing=None, dim=None, edge_order=2), (4, 5)),
    (lambda lib, x: lib.gradient(x, spacing=[0.5, 3], edge_order=2), (4, 5)),
    (lambda lib, x: lib.gradient(x, dim=-1), (3, 4, 5)),
    (lambda lib, x: lib.gradient(x, dim=[2, 0], spacing=[2.0, 0.5]), (3, 4, 5)),
    (lambda lib, x: lib.gradient(x, spacing=[2.0], dim=1), (3, 2)),
    (lambda lib, x: lib.gradient(x, dim=0), (3, 1)),
    (lambda lib, x, c: lib.gradient(x, spacing=[c]), (5,), COORDS),
    (lambda lib, x, c: lib.gradient(x, spacing=(c,), dim=1, edge_order=2), (3, 5), COORDS),
    (lambda lib, x, c, d: lib.gradient(x, spacing=[d, c]), (3, 5), COORDS,
     np.array([1.0, 3.0, 3.5])),
    (lambda lib, x, c, d: lib.gradient(x, spacing=[d, c], edge_order=2), (3, 5), COORDS,
     np.array([1.0, 3.0, 3.5])),
    (lambda lib, x: lib.gradient(x), ()),
    # trapezoid, trapz, cumulative_trapezoid
    (lambda lib, y: lib.trapezoid(y), (6,)),
    (lambda lib, y: lib.trapezoid(y, dx=0.5), (3, 4)),
    (lambda lib, y: lib.trapezoid(y, dim=0, dx=2), (3, 4)),
    (lambda lib, y, x: lib.trapezoid(y, x), (3, 5), COORDS),
    (lambda lib, y, x: lib.trapezoid(y, x, dim=-2), (5, 3), COORDS),
    (lambda lib, y, x: lib.trapezoid(y, x), (2, 3, 4), (3, 4)),
    (lambda lib, y, x: lib.trapezoid(y, x, dim=1), (3, 4), (3, 4)),
    (lambda lib, y: lib.trapezoid(y), (3, 1)),
    (lambda lib, y: lib.trapezoid(y), (3, 0)),
    (lambda lib, y: lib.trapezoid(y, dim=0), (0, 2)),
    (lambda lib, y, x: lib.trapz(y, x), (3, 5), COORDS),
    (lambda lib, y: lib.trapz(y, dx=3, dim=0), (3, 5)),
    (lambda lib, y: lib.cumulative_trapezoid(y), (6,)),
    (lambda lib, y: lib.cumulative_trapezoid(y, dx=0.25, dim=0), (4, 3)),
    (lambda lib, y, x: lib.cumulative_trapezoid(y, x), (3, 5), COORDS),
    (lambda lib, y, x: lib.cumulative_trapezoid(y, x, dim=0), (3, 4), (3, 4)),
    (lambda lib, y, x: lib.cumulative_trapezoid(y, x), (2, 3, 4), (3, 4)),
    (lambda lib, y: lib.cumulative_trapezoid(y), (3, 1)),
    (lambda lib, y: lib.cumulative_trapezoid(y), (3, 0)),
]


@pytest.mark.parametrize("non_contiguous", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_torch(case, dtype, non_contiguous):
    fn, *specs = CASES[case]
    # Coordinate arrays follow the test dtype so they promote like the samples.
    specs = [s.astype(dtype) if isinstance(s, np.ndarray) else s for s in specs]
    check(fn, *specs, dtype=dtype, non_contiguous=non_contiguous)


INTEGER_CASES = [
    lambda lib, x: lib.diff(x),
    lambda lib, x: lib.diff(x.to(lib.uint8), dim=0),          # wraps around, as in torch
    lambda lib, x: lib.diff(x.to(lib.int32), prepend=x[:, :1]),  # int32 + int64 -> int64
    lambda lib, x: lib.diff(x > 3, n=2),                       # bool: xor
    lambda lib, x: lib.gradient(x),
    lambda lib, x: lib.gradient(x, spacing=2),
    lambda lib, x: lib.gradient(x, spacing=[x[:, 0], x[0]]),
    lambda lib, x: lib.gradient(x[0], spacing=[x[0].double()], edge_order=2),
    lambda lib, x: lib.trapezoid(x),
    lambda lib, x: lib.trapezoid(x, dx=2),
    lambda lib, x: lib.trapezoid(x, x[0]),
    lambda lib, x: lib.trapezoid(x[:, :0]),
    lambda lib, x: lib.cumulative_trapezoid(x),
    lambda lib, x: lib.cumulative_trapezoid(x, x[0]),
]


@pytest.mark.parametrize("fn", INTEGER_CASES)
def test_integer_inputs(fn):
    check(fn, INTS, grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_double_backward(dtype):
    def fn(lib, y, x):
        g = lib.gradient(y * y, spacing=[x], edge_order=2)[0]
        out = lib.trapezoid(g * y, x) + lib.cumulative_trapezoid(y ** 3).sum() + \
            lib.diff(y ** 2, n=2).sum()
        (grad_y,) = lib.autograd.grad(out, y, create_graph=True)
        return grad_y
    check(fn, (5,), COORDS.astype(dtype), dtype=dtype, grad_inputs=[0])


def test_grad_fn_names():
    x = ember.randn(3, 4, requires_grad=True)
    assert type(ember.diff(x).grad_fn).__name__ == "SubBackward0"
    assert type(ember.gradient(x)[0].grad_fn).__name__ == "CatBackward0"
    assert ember.diff(x.detach()).grad_fn is None


ERRORS = [
    (lambda lib: lib.diff(lib.tensor(3.0)), RuntimeError,
     "diff expects input to be at least one-dimensional"),
    (lambda lib: lib.diff(lib.ones(3), n=-1), RuntimeError,
     "order must be non-negative but got -1"),
    (lambda lib: lib.diff(lib.ones(3), append=[1.0]), TypeError,
     "argument 'append' must be Tensor"),
    (lambda lib: lib.diff(lib.ones(3), n=1.0), TypeError, "argument 'n' must be int"),
    (lambda lib: lib.diff(lib.ones(3), prepend=0), TypeError, "argument 'prepend' must be Tensor"),
    (lambda lib: lib.diff(lib.ones(3), append=lib.tensor(0.0)), RuntimeError,
     "diff expects prepend or append to be the same dimension as input"),
    (lambda lib: lib.diff(lib.ones(2, 4), dim=0, prepend=lib.ones(1, 3)), RuntimeError,
     r"input.size\(1\) = 4, but got tensor.size\(1\) = 3"),
    (lambda lib: lib.diff(lib.ones(2, 4), dim=2), IndexError, "Dimension out of range"),
    (lambda lib: lib.gradient(lib.ones(4), edge_order=3), RuntimeError,
     "torch.gradient only supports edge_order=1 and edge_order=2."),
    (lambda lib: lib.gradient(lib.ones(2), edge_order=2), RuntimeError,
     "expected each dimension size to be at least edge_order\\+1"),
    (lambda lib: lib.gradient(lib.ones(3, 1)), RuntimeError,
     "expected each dimension size to be at least edge_order\\+1"),
    (lambda lib: lib.gradient(lib.ones(0, 3)), RuntimeError,
     "expected each dimension size to be at least edge_order\\+1"),
    (lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1.0, 2.0, 3.0]), RuntimeError,
     "a list of length equal to 'self.dim\\(\\) = 2', since dim argument was not given"),
    (lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1.0, 2.0], dim=1), RuntimeError,
     "spacing argument of length 2 and a dim argument of length 1"),
    (lambda lib: lib.gradient(lib.ones(3, 4), spacing=[lib.tensor(2.0), lib.tensor(1.0)]),
     RuntimeError, "each element of spacing to have one dimension, but got an element with 0"),
    (lambda lib: lib.gradient(lib.ones(3), spacing=lib.arange(3.0)), TypeError,
     "gradient\\(\\) received an invalid combination of arguments"),
    (lambda lib: lib.gradient(lib.ones(3, 4), spacing=[2, lib.arange(4.0)]), TypeError,
     "expected Tensor as element 0 in argument 1, but got int"),
    (lambda lib: lib.gradient(lib.ones(3, 4), dim=(0, 0)), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    (lambda lib: lib.gradient(lib.ones(3, 4), dim=2), IndexError, "Dimension out of range"),
    (lambda lib: lib.gradient(lib.ones(3, dtype=lib.uint8)), RuntimeError,
     "torch.gradient does not support uint8 input."),
    (lambda lib: lib.trapezoid(lib.tensor(2.0)), IndexError,
     "Dimension specified as -1 but tensor has no dimensions"),
    (lambda lib: lib.trapezoid(lib.ones(3), lib.ones(2)), RuntimeError,
     "trapezoid: There must be one `x` value for each sample point"),
    (lambda lib: lib.trapezoid(lib.ones(3, 4), lib.ones(2, 4)), RuntimeError,
     "The size of tensor a \\(3\\) must match the size of tensor b \\(2\\)"),
    (lambda lib: lib.trapezoid(lib.ones(3), lib.ones(3), dx=2), TypeError,
     "trapezoid\\(\\) received an invalid combination of arguments"),
    (lambda lib: lib.trapezoid(lib.ones(3, dtype=lib.bool)), RuntimeError,
     "trapezoid: received a bool input for `y`, but bool is not supported"),
    (lambda lib: lib.trapezoid(lib.ones(3), lib.ones(3, dtype=lib.bool)), RuntimeError,
     "received a bool input for `x` or `y`, but bool is not supported"),
    (lambda lib: lib.trapezoid(lib.ones(3), dx=True), RuntimeError,
     "trapezoid: Currently, we only support dx as a real number."),
    (lambda lib: lib.cumulative_trapezoid(lib.ones(3), lib.ones(2)), RuntimeError,
     "cumulative_trapezoid: There must be one `x` value for each sample point"),
    (lambda lib: lib.cumulative_trapezoid(lib.tensor(2.0)), IndexError,
     "slice\\(\\) cannot be applied to a 0-dim tensor."),
    (lambda lib: lib.cumulative_trapezoid(lib.ones(3, dtype=lib.bool)), RuntimeError,
     "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"),
]


@pytest.mark.parametrize("fn, error, match", ERRORS)
def test_errors(fn, error, match):
    check_error(fn, error, match)


def test_gradient_coordinates_of_wrong_length():
    # torch 2.13 does not check the coordinate count and returns a meaningless result;
    # ember refuses.
    with pytest.raises(RuntimeError, match="have input.size\\(0\\) = 4 entries, but got 3"):
        ember.gradient(ember.ones(4), spacing=[ember.arange(3.0)])
