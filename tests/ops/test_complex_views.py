"""view_as_real, view_as_complex, complex and polar (ember/ops/complex.py) against torch."""
import numpy as np
import pytest

import ember
from tests.oracle import check, check_error

FLOATS = ["float32", "float64"]
COMPLEX_OF = {"float32": np.complex64, "float64": np.complex128}


def complex_array(shape, dtype, seed=0):
    r = np.random.default_rng(seed)
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(COMPLEX_OF[dtype])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4), (), (5,)])
def test_view_as_real(shape, dtype):
    z = complex_array(shape, dtype)
    # The gradient of a complex leaf is the complex number made of the real gradients.
    check(lambda L, z: L.view_as_real(z), z, dtype=dtype)
    check(lambda L, z: L.view_as_real(z) * 3, z, dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 4, 2), (2,)])
def test_view_as_complex(shape, dtype):
    check(lambda L, x: L.view_as_complex(x), shape, dtype=dtype, grad=False)
    check(lambda L, x: L.view_as_real(L.view_as_complex(x)) * 2, shape, dtype=dtype)


def test_empty_tensors():
    # Built inside each library: torch.from_numpy gives empty arrays NumPy's zero strides,
    # which its own view_as_complex then rejects (and so does its backward here).
    def round_trip(L):
        z = L.view_as_complex(L.zeros(0, 3, 2))
        return z, L.view_as_real(L.complex(L.view_as_real(z)[..., 0], L.ones(1)))
    check(round_trip, grad=False)
    x = ember.zeros(0, 3, 2, requires_grad=True)
    ember.view_as_real(ember.view_as_complex(x)).sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 2)


def test_view_as_complex_accepts_even_strides_and_offsets():
    check(lambda L, x: L.view_as_complex(x.transpose(0, 1)), (3, 4, 2), grad=False)
    check(lambda L, x: L.view_as_complex(x[1:]), (3, 2), grad=False)
    check(lambda L, x: L.view_as_complex(x[:, 2:4]), (3, 6), grad=False)


def test_views_share_memory():
    z = ember.zeros(3, dtype=ember.complex64)
    pairs = ember.view_as_real(z)
    pairs[1, 1] = 5.0
    assert z[1].item() == 5j
    assert pairs._base is z
    x = ember.zeros(2, 2)
    ember.view_as_complex(x)[0] = 1 + 2j
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [0, 0]])


def test_view_grad_fn_names():
    z = ember.zeros(2, dtype=ember.complex64, requires_grad=True)
    assert ember.view_as_real(z).grad_fn.name() == "ViewAsRealBackward0"
    x = ember.zeros(2, 2, requires_grad=True)
    assert ember.view_as_complex(x).grad_fn.name() == "ViewAsComplexBackward0"


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2, 1))])
def test_complex(shapes, dtype):
    check(lambda L, a, b: L.view_as_real(L.complex(a, b)), *shapes, dtype=dtype)
    check(lambda L, a, b: L.complex(a, b), *shapes, dtype=dtype, grad=False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((4,), (2, 4)), ((), ())])
def test_polar(shapes, dtype):
    # torch's gradient for a negative abs has the wrong sign (it differentiates through
    # sgn(result)); abs is an absolute value, so the test keeps it positive.
    check(lambda L, a, b: L.view_as_real(L.polar(a, b)), *shapes, dtype=dtype, positive=True)
    check(lambda L, a, b: L.polar(a, b), *shapes, dtype=dtype, grad=False)


def test_polar_of_a_negative_abs_differentiates_the_formula():
    a = ember.tensor([-2.0], requires_grad=True)
    angle = ember.tensor([0.5])
    ember.view_as_real(ember.polar(a, angle))[..., 0].sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cos([0.5]), rtol=1e-6)   # d(a cos t)/da


ERRORS = [
    (lambda L: L.view_as_real(L.ones(3)), RuntimeError,
     r"^view_as_real is only supported for complex tensors"),
    (lambda L: L.view_as_complex(L.ones(3, 3)), RuntimeError,
     r"^Tensor must have a last dimension of size 2"),
    (lambda L: L.view_as_complex(L.tensor(1.0)), RuntimeError,
     r"^Input tensor must have one or more dimensions"),
    (lambda L: L.view_as_complex(L.ones(2, 3).t()), RuntimeError,
     r"^Tensor must have a last dimension with stride 1"),
    (lambda L: L.view_as_complex(L.ones(3, 5)[:, 1:3]), RuntimeError,
     r"^Tensor must have a stride divisible by 2 for all but last dimension"),
    (lambda L: L.view_as_complex(L.ones(3, 4)[:, 1:3]), RuntimeError,
     r"^Tensor must have a storage_offset divisible by 2"),
    (lambda L: L.view_as_complex(L.ones(3, 2).long()), RuntimeError,
     r"^view_as_complex is only supported for half, float and double tensors, but got a "
     r"tensor of scalar type: Long"),
    (lambda L: L.complex(L.ones(3), L.ones(3).double()), RuntimeError,
     r"^Expected object of scalar type Float but got scalar type Double for second argument"),
    (lambda L: L.complex(L.ones(3).long(), L.ones(3).long()), RuntimeError,
     r"^Expected both inputs to be Half, Float or Double tensors but got Long and Long"),
    (lambda L: L.polar(L.ones(3).double(), L.ones(3)), RuntimeError,
     r"^Expected object of scalar type Double but got scalar type Float for second argument"),
    (lambda L: L.complex(L.ones(3), L.ones(2)), RuntimeError,
     r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton "
     r"dimension 0"),
]


@pytest.mark.parametrize("fn,error,match", ERRORS)
def test_errors(fn, error, match):
    check_error(fn, error, match)


def test_complex32_is_refused():
    with pytest.raises(NotImplementedError, match="float16"):
        ember.view_as_complex(ember.ones(3, 2).half())
