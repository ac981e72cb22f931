"""torch.signal.windows against torch: values, dtypes, gradients' presence, errors."""
import numpy as np
import pytest
import torch

import ember

WINDOWS = [("bartlett", {}), ("blackman", {}), ("cosine", {}), ("exponential", {}),
           ("exponential", {"tau": 2.5}), ("exponential", {"center": 1.5, "sym": False}),
           ("gaussian", {}), ("gaussian", {"std": 0.3}), ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
           ("general_hamming", {}), ("general_hamming", {"alpha": 0.6}), ("hamming", {}),
           ("hann", {}), ("kaiser", {}), ("kaiser", {"beta": 0.0}), ("kaiser", {"beta": 3.5}),
           ("nuttall", {})]


def _call(lib, name, M, **kw):
    return getattr(lib.signal.windows, name)(M, **kw)


@pytest.mark.parametrize("name, kw", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_values(name, kw, M, sym, dtype):
    kw = dict(kw)
    if "center" in kw and sym:
        return      # refused, see the errors below
    kw.setdefault("sym", sym)
    want = _call(torch, name, M, dtype=getattr(torch, dtype), **kw)
    got = _call(ember, name, M, dtype=getattr(ember, dtype), **kw)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name, kw", WINDOWS[:1] + WINDOWS[6:7] + WINDOWS[12:14])
def test_requires_grad_keeps_history(name, kw):
    want = _call(torch, name, 6, requires_grad=True, **kw)
    got = _call(ember, name, 6, requires_grad=True, **kw)
    assert got.requires_grad and want.requires_grad
    assert (got.grad_fn is None) == (want.grad_fn is None)
    assert got.grad_fn.name() == want.grad_fn.name()


def test_default_dtype_is_followed():
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.signal.windows.hann(4).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("call", [
    lambda lib: lib.signal.windows.hann(-1),
    lambda lib: lib.signal.windows.hann(3, dtype=lib.int64),
    lambda lib: lib.signal.windows.bartlett(3, dtype=lib.float16),
    lambda lib: lib.signal.windows.hann(3, layout=lib.sparse_coo),
    lambda lib: lib.signal.windows.general_cosine(3, a=[]),
    lambda lib: lib.signal.windows.general_cosine(3, a=5),
    lambda lib: lib.signal.windows.kaiser(3, beta=-1),
    lambda lib: lib.signal.windows.gaussian(3, std=0),
    lambda lib: lib.signal.windows.exponential(3, tau=0),
    lambda lib: lib.signal.windows.exponential(3, center=1.0),
])
def test_errors(call):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value), match=f"^{want.value}$".replace("(", r"\(")
                       .replace(")", r"\)").replace(".", r"\.").replace("[", r"\[")):
        call(ember)
