"""FusedBackward (Chainer's pattern): a fused op's gradient kernel as a Function of its own.
First derivatives come from the kernel; higher ones from `derivative`, against torch."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd.function import Function
from ember.autograd.fused_backward import FusedBackward


class _MatmulGrads(FusedBackward):
    """Gradients of y = x @ w.T: (g @ w, g.T @ x)."""

    calls = {"kernel": 0, "derivative": 0}

    @staticmethod
    def forward(ctx, g, x, w):
        ctx.save_for_backward(g, x, w)
        _MatmulGrads.calls["kernel"] += 1
        return g @ w, g.T @ x

    @staticmethod
    def derivative(ctx, g, x, w):
        _MatmulGrads.calls["derivative"] += 1
        return g.matmul(w), g.mT.matmul(x)


class _Linear(Function):
    _converted = True

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.T

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return _MatmulGrads.apply(g, x, w)


def _three_orders(lib, linear, x, w):
    """First, second and third derivatives through a tanh, a sine and powers."""
    x = lib.tensor(x, requires_grad=True)
    w = lib.tensor(w, requires_grad=True)
    loss = (linear(x, w).tanh() ** 2).sum()
    gx, gw = lib.autograd.grad(loss, (x, w), create_graph=True)
    hx, hw = lib.autograd.grad(gx.sin().sum() + (gw ** 3).sum(), (x, w), create_graph=True)
    kx, kw = lib.autograd.grad((hx * hx).sum() + hw.sum(), (x, w))
    return [t.detach().numpy() for t in (gx, gw, hx, hw, kx, kw)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_higher_derivatives_match_torch(dtype):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal((5, 3)).astype(dtype)
    expected = _three_orders(torch, lambda x, w: x @ w.T, x, w)
    tol = 1e-4 if dtype == "float32" else 1e-10
    for e, t in zip(_three_orders(ember, _Linear.apply, x, w), expected):
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)


def test_plain_backward_runs_only_the_kernel():
    _MatmulGrads.calls.update(kernel=0, derivative=0)
    x = ember.randn(4, 3, requires_grad=True)
    w = ember.randn(5, 3, requires_grad=True)
    _Linear.apply(x, w).sum().backward()
    assert _MatmulGrads.calls == {"kernel": 1, "derivative": 0}
    np.testing.assert_allclose(x.grad.numpy(), np.ones((4, 5)) @ w.detach().numpy(), rtol=1e-6)


def test_recorded_backward_takes_first_derivative_from_the_kernel():
    _MatmulGrads.calls.update(kernel=0, derivative=0)
    x = ember.randn(4, 3, requires_grad=True)
    w = ember.randn(5, 3, requires_grad=True)
    gx, = ember.autograd.grad(_Linear.apply(x, w).sum(), x, create_graph=True)
    assert _MatmulGrads.calls == {"kernel": 1, "derivative": 0}
    assert gx.grad_fn is not None
    gx.sum().backward()
    assert _MatmulGrads.calls == {"kernel": 1, "derivative": 1}
