"""F.rrelu/rrelu_ and nn.RReLU, nn.Softmax2d, F.gumbel_softmax against torch.

RReLU's training mode and gumbel_softmax are random: the random streams of torch and
ember differ, so they are compared through their deterministic cases (eval mode,
lower == upper, a shared noise tensor) and through statistical properties.
"""
import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from module_oracle import check_module
from oracle import check, check_error

DTYPES = ["float32", "float64"]


# ---------------------------------------------------------------- rrelu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4, 5), (), (0, 3), (7,)])
def test_rrelu_eval_matches_torch(dtype, shape):
    check(lambda lib, x: lib.nn.functional.rrelu(x), shape, dtype=dtype)
    check(lambda lib, x: lib.nn.functional.rrelu(x, 0.05, 0.4, training=False), shape,
          dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rrelu_training_with_fixed_slope_matches_torch(dtype):
    # lower == upper makes training mode deterministic.
    check(lambda lib, x: lib.nn.functional.rrelu(x, 0.2, 0.2, training=True), (4, 6),
          dtype=dtype, non_contiguous=True)


def test_rrelu_non_contiguous_and_nan():
    check(lambda lib, x: lib.nn.functional.rrelu(x, 0.1, 0.3), (5, 4), non_contiguous=True)
    x = np.array([-1.0, np.nan, 2.0, 0.0], dtype=np.float32)
    check(lambda lib, x: lib.nn.functional.rrelu(x), x)
    y = ember.nn.functional.rrelu(ember.tensor(x), training=True)
    assert np.isnan(y[1].item()) and y[2].item() == 2.0 and y[3].item() == 0.0


@pytest.mark.parametrize("dtype", DTYPES)
def test_rrelu_training_slopes_and_gradient(dtype):
    lower, upper = 0.1, 0.4
    data = np.random.default_rng(0).standard_normal(20000).astype(dtype)
    x = ember.tensor(data, requires_grad=True)
    y = ember.nn.functional.rrelu(x, lower, upper, training=True)
    assert y.dtype == x.dtype and y.grad_fn.name() == "RreluWithNoiseBackward0"
    y.sum().backward()
    out, grad = y.detach().numpy(), x.grad.numpy()
    positive = data > 0
    np.testing.assert_array_equal(out[positive], data[positive])
    np.testing.assert_array_equal(grad[positive], 1)
    slopes = out[~positive] / data[~positive]
    assert slopes.min() >= lower and slopes.max() <= upper
    # The gradient uses the same sampled slopes as the forward pass.
    np.testing.assert_allclose(grad[~positive], slopes, rtol=1e-5)
    # U(lower, upper): mean (l + u) / 2, variance (u - l)^2 / 12, and not all equal.
    assert abs(slopes.mean() - (lower + upper) / 2) < 0.01
    assert abs(slopes.var() - (upper - lower) ** 2 / 12) < 0.001
    # torch's slopes follow the same distribution.
    t = torch.tensor(data)
    t_slopes = (torch.nn.functional.rrelu(t, lower, upper, training=True) / t)[t <= 0].numpy()
    assert abs(slopes.mean() - t_slopes.mean()) < 0.01


def test_rrelu_draws_new_slopes_each_call():
    x = -ember.ones(100)
    a = ember.nn.functional.rrelu(x, training=True)
    b = ember.nn.functional.rrelu(x, training=True)
    assert not ember.equal(a, b)


def test_rrelu_inplace():
    def fn(lib, x):
        y = x * 1
        out = lib.nn.functional.rrelu_(y, 0.3, 0.3, training=True)
        assert out is y and out.grad_fn.name() == "RreluWithNoiseBackward1"
        return y
    check(fn, (3, 5))
    check(lambda lib, x: lib.nn.functional.rrelu(x * 1, inplace=True), (3, 5))
    x = ember.tensor([-2.0, 3.0])
    ember.nn.functional.rrelu_(x)
    assert x.tolist() == pytest.approx([-2.0 * (1 / 8 + 1 / 3) / 2, 3.0])


def test_rrelu_double_backward_eval():
    def second(lib, x):
        y = lib.nn.functional.rrelu(x)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (4, 5), dtype="float64")


def test_rrelu_errors():
    check_error(lambda lib: lib.nn.functional.rrelu(lib.randn(3), 0.5, 0.2), RuntimeError,
                "^Lower bound should be less than or equal to the upper bound")
    check_error(lambda lib: lib.nn.functional.rrelu(lib.randn(3), 0.5, 0.2, training=True),
                RuntimeError, "^Lower bound should be less")
    check_error(lambda lib: lib.nn.functional.rrelu(lib.tensor([1, -2])), NotImplementedError,
                "^\"leaky_relu_cpu\" not implemented for 'Long'")
    check_error(lambda lib: lib.nn.functional.rrelu(lib.tensor([1, -2]), training=True),
                NotImplementedError, "^\"rrelu_with_noise_out_cpu\" not implemented for 'Long'")


@pytest.mark.parametrize("dtype", DTYPES)
def test_rrelu_module(dtype):
    check_module(lambda lib: lib.nn.RReLU(), (3, 4, 5), dtype=dtype, train=False)
    check_module(lambda lib: lib.nn.RReLU(0.25, 0.25), (3, 4), dtype=dtype, train=True)
    check_module(lambda lib: lib.nn.RReLU(0.1, 0.3, inplace=True), (2, 3), dtype=dtype,
                 train=False, call=lambda m, x: m(x * 1))


def test_rrelu_module_repr_and_modes():
    for args in [(), (0.1, 0.3), (0.1, 0.3, True)]:
        assert repr(ember.nn.RReLU(*args)) == repr(torch.nn.RReLU(*args))
    m = ember.nn.RReLU(0.1, 0.5)
    assert m.state_dict() == {} and list(m.parameters()) == []
    x = -ember.ones(50)
    assert ember.unique(m(x)).numel() > 1                   # training: random slopes
    assert ember.allclose(m.eval()(x), ember.full((50,), -0.3))


# ---------------------------------------------------------------- Softmax2d
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 4, 5), (0, 3, 2, 2)])
def test_softmax2d(dtype, shape):
    check_module(lambda lib: lib.nn.Softmax2d(), shape, dtype=dtype)


def test_softmax2d_repr_and_errors():
    assert repr(ember.nn.Softmax2d()) == repr(torch.nn.Softmax2d()) == "Softmax2d()"
    for shape in [(3, 4), (1, 2, 3, 4, 5)]:
        check_error(lambda lib: lib.nn.Softmax2d()(lib.randn(*shape)), ValueError,
                    rf"^Softmax2d: expected input to be 3D or 4D, got {len(shape)}D instead")


def test_softmax2d_non_contiguous():
    check(lambda lib, x: lib.nn.Softmax2d()(x.permute(0, 3, 1, 2)), (2, 4, 5, 3))


# ---------------------------------------------------------------- gumbel_softmax
@pytest.fixture
def shared_exponential_noise(monkeypatch):
    """Make exponential_() in torch and ember fill tensors with the same fixed draws."""
    draws = np.random.default_rng(7).exponential(size=10_000)

    def fill(lib):
        def exponential_(self, lambd=1.0, *, generator=None):
            values = draws[:self.numel()].reshape(tuple(self.shape)) / lambd
            with lib.no_grad():
                self.copy_(lib.tensor(values, dtype=self.dtype))
            return self
        return exponential_

    monkeypatch.setattr(torch.Tensor, "exponential_", fill(torch))
    monkeypatch.setattr(ember.Tensor, "exponential_", fill(ember))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("tau,dim", [(1, -1), (0.5, 0), (2.0, 1)])
def test_gumbel_softmax_with_shared_noise(shared_exponential_noise, dtype, hard, tau, dim):
    check(lambda lib, x: lib.nn.functional.gumbel_softmax(x, tau=tau, hard=hard, dim=dim),
          (4, 5, 3), dtype=dtype)


def test_gumbel_softmax_shared_noise_edge_shapes(shared_exponential_noise):
    check(lambda lib, x: lib.nn.functional.gumbel_softmax(x, dim=0), ())
    check(lambda lib, x: lib.nn.functional.gumbel_softmax(x, hard=True), (0, 4))
    check(lambda lib, x: lib.nn.functional.gumbel_softmax(x, hard=True), (4, 3),
          non_contiguous=True)


def test_gumbel_softmax_properties():
    logits = ember.randn(64, 6, requires_grad=True)
    soft = ember.nn.functional.gumbel_softmax(logits, tau=0.7)
    assert soft.grad_fn.name() == "SoftmaxBackward0"
    assert ember.allclose(soft.sum(-1), ember.ones(64)) and bool((soft >= 0).all())
    hard = ember.nn.functional.gumbel_softmax(logits, hard=True)
    assert bool(((hard == 0) | (hard == 1)).all())
    assert ember.equal(hard.sum(-1), ember.ones(64))


def test_gumbel_softmax_hard_gradient_is_the_soft_samples():
    logits = ember.randn(8, 5, requires_grad=True)
    weights = ember.randn(8, 5)
    state = ember.get_rng_state()
    soft = ember.nn.functional.gumbel_softmax(logits)
    soft_grad, = ember.autograd.grad((soft * weights).sum(), logits)
    ember.set_rng_state(state)                      # same noise for the hard sample
    hard = ember.nn.functional.gumbel_softmax(logits, hard=True)
    hard_grad, = ember.autograd.grad((hard * weights).sum(), logits)
    assert ember.equal(hard.argmax(-1), soft.argmax(-1))
    assert ember.allclose(hard_grad, soft_grad, atol=1e-6)


def test_gumbel_softmax_samples_the_softmax_distribution():
    # The Gumbel-max trick: argmax(logits + g) ~ Categorical(softmax(logits)).
    logits = ember.tensor([1.0, 0.0, -1.0, 2.0])
    hard = ember.nn.functional.gumbel_softmax(logits.expand(20000, 4), hard=True)
    frequencies = hard.mean(0).numpy()
    np.testing.assert_allclose(frequencies, logits.softmax(0).numpy(), atol=0.015)


def test_gumbel_softmax_warnings_and_errors():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        ember.nn.functional.gumbel_softmax(ember.randn(3), eps=1e-5)
    check_error(lambda lib: lib.nn.functional.gumbel_softmax(lib.tensor([1, 2])), RuntimeError,
                "^Exponential distribution is a continuous probability distribution. dtype "
                "must be a floating point but you specified Long")
