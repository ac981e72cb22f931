"""ember.utils.checkpoint against torch.utils.checkpoint: same values and gradients, the
forward really runs again in backward, RNG state is replayed, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint

import ember
import ember.utils.checkpoint
from oracle import check, check_error

REENTRANT = [True, False]


def _cp(lib):
    return lib.utils.checkpoint


def _block(lib, x, w):
    return lib.tanh(x @ w).sin() * 2


@pytest.mark.parametrize("use_reentrant", REENTRANT)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_match_torch(use_reentrant, dtype):
    check(lambda lib, x, w: _cp(lib).checkpoint(_block, lib, x, w,
                                                use_reentrant=use_reentrant),
          (4, 3), (3, 5), dtype=dtype)


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_zero_dim_broadcast_and_non_contiguous(use_reentrant):
    check(lambda lib, x, s: _cp(lib).checkpoint(lambda a, b: (a * b).exp(), x, s,
                                                use_reentrant=use_reentrant),
          (3, 4), np.float32(0.5), non_contiguous=True)


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_tuple_outputs_and_non_tensor_args(use_reentrant):
    def fn(a, scale, b):
        return a * scale + b, (a - b).cos()
    check(lambda lib, x, y: _cp(lib).checkpoint(fn, x, 3.0, y, use_reentrant=use_reentrant),
          (2, 3), (3,))


def test_kwargs_and_nested_outputs_non_reentrant():
    def fn(a, *, power):
        return {"out": [a ** power, a.sum()]}
    check(lambda lib, x: _cp(lib).checkpoint(fn, x, power=3, use_reentrant=False)["out"],
          (2, 3))


def _counting(lib, calls):
    def fn(x):
        calls.append(1)
        return x.sin().exp()
    return fn


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_forward_runs_again_in_backward(use_reentrant):
    for lib in (torch, ember):
        calls = []
        x = lib.ones(3, requires_grad=True)
        y = _cp(lib).checkpoint(_counting(lib, calls), x, use_reentrant=use_reentrant)
        assert len(calls) == 1
        y.sum().backward()
        assert len(calls) == 2


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_activations_are_not_kept(use_reentrant):
    x = ember.ones(3, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(lambda a: a.sin().exp(), x,
                                          use_reentrant=use_reentrant)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    # The node's only edges lead straight back to the input: no Sin/Exp nodes are kept.
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions if n is not None] == \
        ["AccumulateGrad"]


def _with_params(lib, use_reentrant, x_requires_grad):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        lin.bias.copy_(lib.tensor([0.01, -0.02]))
    x = lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=x_requires_grad)
    out = _cp(lib).checkpoint(lambda a: lin(a).relu() * lin.weight.sum(), x,
                              use_reentrant=use_reentrant)
    return lin, x, out


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_parameter_gradients_match_torch(use_reentrant):
    grads = []
    for lib in (torch, ember):
        lin, x, out = _with_params(lib, use_reentrant, True)
        out.pow(2).sum().backward()
        grads.append([t.grad.numpy() for t in (lin.weight, lin.bias, x)])
    for t, e in zip(*grads):
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_input_without_requires_grad(use_reentrant):
    results = {}
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lin, x, out = _with_params(lib, use_reentrant, False)
        warned = any("None of the inputs have requires_grad=True" in str(w.message)
                     for w in caught)
        if out.requires_grad:
            out.sum().backward()
        grad = None if lin.weight.grad is None else lin.weight.grad.numpy()
        results[lib] = (out.requires_grad, warned, grad)
    (t_requires, t_warned, t_grad), (e_requires, e_warned, e_grad) = results.values()
    assert (e_requires, e_warned) == (t_requires, t_warned) == (not use_reentrant, use_reentrant)
    if use_reentrant:       # torch: the parameters get no gradient at all
        assert t_grad is None and e_grad is None
    else:                   # non-reentrant still reaches the parameters
        np.testing.assert_allclose(e_grad, t_grad, rtol=1e-6)


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_dropout_recomputes_identically(use_reentrant):
    x = ember.randn(200, requires_grad=True)
    ember.manual_seed(3)
    y = ember.utils.checkpoint.checkpoint(lambda a: ember.nn.functional.dropout(a * 2, 0.5),
                                          x, use_reentrant=use_reentrant)
    y.sum().backward()
    kept = (y.detach().numpy() != 0)
    # d(sum(dropout(2x)))/dx = 2 / (1 - p) where kept, 0 where dropped: same mask as forward.
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 4.0, 0.0))
    ember.manual_seed(3)
    reference = ember.nn.functional.dropout(x.detach() * 2, 0.5)
    assert ember.equal(reference, y.detach())


def test_rng_state_after_checkpoint_is_untouched_by_backward():
    x = ember.ones(5, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(lambda a: a * ember.rand(5), x, use_reentrant=False)
    state = ember.get_rng_state()
    y.sum().backward()
    assert ember.equal(ember.get_rng_state(), state)


def test_preserve_rng_state_false_draws_fresh_numbers():
    x = ember.ones(50, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(lambda a: a * ember.rand(50), x,
                                          use_reentrant=False, preserve_rng_state=False)
    y.sum().backward()
    assert not np.allclose(x.grad.numpy(), y.detach().numpy())


def test_autograd_grad_and_double_backward_non_reentrant():
    for lib in (torch, ember):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = _cp(lib).checkpoint(lambda a: a ** 3, x, use_reentrant=False)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(g.detach().numpy(), 3 * x.detach().numpy() ** 2)
        np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy())


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_under_no_grad(use_reentrant):
    check(lambda lib, x: _checkpoint_no_grad(lib, x, use_reentrant), (3,), grad=False)


def _checkpoint_no_grad(lib, x, use_reentrant):
    x.requires_grad_()
    with lib.no_grad():
        return _cp(lib).checkpoint(lib.sin, x, use_reentrant=use_reentrant)


def test_identity_returns_the_argument_non_reentrant():
    x = ember.ones(2, requires_grad=True)
    assert ember.utils.checkpoint.checkpoint(lambda a: a, x, use_reentrant=False) is x


def test_checkpoint_sequential_matches_torch():
    def run(lib, x):
        layers = [lambda a: a.sin(), lambda a: a * 2, lambda a: a.exp(), lambda a: a.cos()]
        return _cp(lib).checkpoint_sequential(layers, 2, x, use_reentrant=False)
    check(run, (3, 2))


@pytest.mark.parametrize("use_reentrant", REENTRANT)
def test_checkpoint_sequential_on_a_module(use_reentrant):
    outs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh(), lib.nn.Linear(2, 1))
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) / 10 - i)
        x = lib.tensor([[1.0, -2.0]], requires_grad=True)
        out = _cp(lib).checkpoint_sequential(model, 3, x, use_reentrant=use_reentrant)
        out.sum().backward()
        outs.append([out.detach().numpy(), x.grad.numpy(), model[0].weight.grad.numpy()])
    for t, e in zip(*outs):
        np.testing.assert_allclose(e, t, rtol=1e-6)


def test_missing_use_reentrant_warns_and_means_reentrant():
    for lib in (torch, ember):
        x = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                          "explicitly"):
            y = _cp(lib).checkpoint(lambda a: a * 2, x)
        assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
        with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
            _cp(lib).checkpoint_sequential([lib.sin], 1, x)


@pytest.mark.parametrize("call,error,match", [
    (lambda cp, x: cp.checkpoint(lambda a, b=1: a * b, x, b=2, use_reentrant=True),
     ValueError, "Unexpected keyword arguments: b"),
    (lambda cp, x: cp.checkpoint(lambda a: a, x, use_reentrant=True, debug=True),
     ValueError, "Passing `context_fn` or `debug` is only supported when use_reentrant=False"),
    (lambda cp, x: cp.checkpoint(lambda a: a, x, use_reentrant=False, determinism_check="x"),
     ValueError, r"determinism_check should be one of \['default', 'none'\], but got x"),
    (lambda cp, x: cp.checkpoint_sequential([abs], 1, x, use_reentrant=False, foo=1),
     ValueError, "Unexpected keyword arguments: foo"),
    (lambda cp, x: cp.checkpoint_sequential([abs], 0, x, use_reentrant=False),
     ZeroDivisionError, "integer division or modulo by zero"),
    (lambda cp, x: cp.checkpoint(lambda a: a.detach() * 2, x, use_reentrant=True)
     .sum().backward(), RuntimeError, "none of output has requires_grad=True"),
    (lambda cp, x: cp.checkpoint(lambda a: a.detach() * 2, x, use_reentrant=False)
     .sum().backward(), RuntimeError, "element 0 of tensors does not require grad"),
])
def test_errors_match_torch(call, error, match):
    check_error(lambda lib: call(_cp(lib), lib.ones(2, requires_grad=True)), error, match)


def test_recomputation_must_match_the_forward():
    calls = []

    def changing(a):
        calls.append(1)
        return a.sum() * 2 if len(calls) == 1 else a * 2
    x = ember.ones(3, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(changing, x, use_reentrant=False)
    # torch fails here too, with a shape-mismatch RuntimeError from its engine.
    with pytest.raises(ember.utils.checkpoint.CheckpointError, match="Recomputed values"):
        y.backward()


def test_ember_limits_are_named():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="debug=True"):
        ember.utils.checkpoint.checkpoint(lambda a: a, x, use_reentrant=False, debug=True)
    with pytest.raises(NotImplementedError, match="not list"):
        ember.utils.checkpoint.checkpoint(lambda a: [a], x, use_reentrant=True)


def test_context_fn_wraps_forward_and_recomputation():
    import contextlib
    events = []

    @contextlib.contextmanager
    def record(name):
        events.append(name)
        yield

    x = ember.ones(2, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(
        lambda a: a * 3, x, use_reentrant=False,
        context_fn=lambda: (record("forward"), record("recompute")))
    assert events == ["forward"]
    y.sum().backward()
    assert events == ["forward", "recompute"] and x.grad.tolist() == [3.0, 3.0]
