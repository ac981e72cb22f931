"""Window functions (ember/ops/windows.py) against torch."""
import numpy as np
import pytest

import ember
import ember.ops.windows as windows
from oracle import check, check_error

NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
LENGTHS = [0, 1, 2, 3, 5, 8, 51]


def window(lib, name: str):
    """torch.<name>, or ember's (not yet bound as ember.<name>)."""
    return getattr(lib if lib is not ember else windows, name)


@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("name", NAMES)
def test_windows(name, length, periodic):
    check(lambda lib: window(lib, name)(length, periodic), grad=False)
    check(lambda lib: window(lib, name)(length, periodic, dtype=lib.float64), grad=False,
          dtype="float64")


@pytest.mark.parametrize("name", NAMES)
def test_default_is_periodic(name):
    check(lambda lib: window(lib, name)(6), grad=False)
    np.testing.assert_allclose(window(ember, name)(6).numpy(),
                               window(ember, name)(7, periodic=False).numpy()[:6], atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision(name, dtype):
    check(lambda lib: window(lib, name)(9, dtype=getattr(lib, dtype)), grad=False, dtype=dtype)


def test_window_parameters():
    check(lambda lib: window(lib, "hamming_window")(7, True, 0.5), grad=False)
    check(lambda lib: window(lib, "hamming_window")(7, False, 0.6, 0.3), grad=False)
    for beta in [0.0, 3.0, 14.5]:
        check(lambda lib: window(lib, "kaiser_window")(7, False, beta), grad=False)
        check(lambda lib: window(lib, "kaiser_window")(8, True, beta, dtype=lib.float64),
              grad=False, dtype="float64")


def test_default_dtype():
    ember.set_default_dtype(ember.float64)
    try:
        assert windows.hann_window(4).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("name", NAMES)
def test_requires_grad(name):
    w = check(lambda lib: window(lib, name)(5, requires_grad=True), grad=False)
    assert w.requires_grad and w.is_leaf
    x = ember.ones(5, requires_grad=True)
    (w * x).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.ones(5))
    np.testing.assert_allclose(x.grad.numpy(), w.detach().numpy())


@pytest.mark.parametrize("name", NAMES)
def test_errors(name):
    check_error(lambda lib: window(lib, name)(-1), RuntimeError,
                f"^{name} requires non-negative window_length, got window_length=-1")
    check_error(lambda lib: window(lib, name)(4, dtype=lib.int64), RuntimeError,
                f"^{name} expects floating point dtypes, got: ")
    check_error(lambda lib: window(lib, name)(4, dtype=lib.complex64), NotImplementedError,
                "not implemented for 'ComplexFloat'")
    check_error(lambda lib: window(lib, name)(2.5), TypeError,
                rf"^{name}\(\): argument 'window_length' \(position 1\) must be int, not float")
