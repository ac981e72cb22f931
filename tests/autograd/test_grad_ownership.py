"""A leaf's .grad may be the very gradient tensor the backward computed (no copy) only
when nothing else holds it: hooks, retain_grad, a caller's gradient and other leaves must
never see later accumulation into .grad. Each case runs two backward passes on torch and
ember and compares every tensor the user kept."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
W = RNG.standard_normal((3, 4)).astype(np.float32)
X = RNG.standard_normal((5, 4)).astype(np.float32)
C = RNG.standard_normal((5, 3)).astype(np.float32)


def _linear_twice(lib):
    w = lib.tensor(W, requires_grad=True)
    for _ in range(2):
        (lib.nn.functional.linear(lib.tensor(X), w) * lib.tensor(C)).sum().backward()
    return [w.grad]


def _leaf_hook_keeps_gradient(lib):
    w = lib.tensor(W, requires_grad=True)
    kept = []
    w.register_hook(kept.append)
    for _ in range(2):
        (lib.nn.functional.linear(lib.tensor(X), w) * lib.tensor(C)).sum().backward()
    return [w.grad] + kept


def _intermediate_hook_keeps_gradient(lib):
    w = lib.tensor(W, requires_grad=True)
    kept = []
    for _ in range(2):
        y = w + 0                      # its backward hands the same gradient to w
        y.register_hook(kept.append)
        (y * lib.tensor(W)).sum().backward()
    return [w.grad] + kept


def _retained_gradient(lib):
    w = lib.tensor(W, requires_grad=True)
    retained = []
    for _ in range(2):
        y = w + 0
        y.retain_grad()
        (y * lib.tensor(W)).sum().backward()
        retained.append(y.grad)
    return [w.grad] + retained


def _caller_gradient(lib):
    w = lib.tensor(W, requires_grad=True)
    g = lib.tensor(C[:3, :3] @ W)
    w.backward(g)
    w.backward(g)
    return [w.grad, g]


def _two_leaves_one_gradient(lib):
    a = lib.tensor(W, requires_grad=True)
    b = lib.tensor(W, requires_grad=True)
    (a * lib.tensor(W) + b * 1).sum().backward()
    (a * 2).sum().backward()
    return [a.grad, b.grad]


@pytest.mark.parametrize("case", [_linear_twice, _leaf_hook_keeps_gradient,
                                  _intermediate_hook_keeps_gradient, _retained_gradient,
                                  _caller_gradient, _two_leaves_one_gradient])
def test_kept_gradients_never_change(case):
    expected, got = case(torch), case(ember)
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)


def test_module_gradient_is_not_copied():
    # The plain case keeps the backward's own tensor: .grad owns fresh memory.
    layer = ember.nn.Linear(4, 3)
    layer(ember.tensor(X)).sum().backward()
    assert layer.weight.grad._data.base is None
    assert not np.shares_memory(layer.weight.grad._data, layer.weight._data)


def test_gradient_requiring_grad_is_detached():
    # A custom backward may hand back a tensor that requires grad: .grad never does.
    def run(lib):
        class Fresh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return lib.ones(3, requires_grad=True)

        x = lib.zeros(3, requires_grad=True)
        Fresh.apply(x).sum().backward()
        return x.grad
    expected, got = run(torch), run(ember)
    assert got.requires_grad == expected.requires_grad is False
    assert got.grad_fn is None and expected.grad_fn is None
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
