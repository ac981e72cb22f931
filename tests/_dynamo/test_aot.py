"""Compiled calls whose results need their graph after the call (ember/_dynamo/_aot.py):
`model = torch.compile(model)` in an ordinary training loop replays forward and backward
plans inside one CompiledFunctionBackward node, with eager's values to the bit."""
import copy
import warnings

import numpy as np
import pytest
import torch

import ember

F = ember.nn.functional


def _mlp():
    return ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.Tanh(), ember.nn.Dropout(0.2),
                               ember.nn.Linear(16, 3))


def _cnn():
    return ember.nn.Sequential(ember.nn.Conv2d(2, 4, 3), ember.nn.BatchNorm2d(4),
                               ember.nn.ReLU(), ember.nn.MaxPool2d(2), ember.nn.Flatten(),
                               ember.nn.Linear(4 * 3 * 3, 3))


@pytest.mark.parametrize("make, shape", [(_mlp, (4, 8)), (_cnn, (4, 2, 8, 8))])
def test_compiled_module_in_an_eager_training_loop_matches_eager(make, shape):
    ember.manual_seed(0)
    eager = make()
    compiled_model = copy.deepcopy(eager)
    compiled = ember.compile(compiled_model)
    optimizers = [ember.optim.Adam(m.parameters(), lr=1e-2) for m in (eager, compiled_model)]
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no graph break
        for step in range(8):
            x = rng.standard_normal(shape).astype(np.float32)
            y = rng.integers(0, 3, shape[0])
            losses = []
            for model, opt in ((eager, optimizers[0]), (compiled, optimizers[1])):
                ember.manual_seed(step)
                opt.zero_grad()
                out = model(ember.tensor(x))
                loss = F.cross_entropy(out, ember.tensor(y))
                loss.backward()
                opt.step()
                losses.append(loss.item())
            assert losses[0] == losses[1], step
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    for (name, a), (_, b) in zip(eager.state_dict().items(),
                                 compiled_model.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), name


def block(x, w):
    h = (x @ w).sigmoid()
    return h * x.sum(), h.argmax(dim=1)


def test_gradients_of_inputs_and_several_outputs_match_torch():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    compiled = ember.compile(block)
    for _ in range(3):
        ex, ew = (ember.tensor(a, requires_grad=True) for a in (x, w))
        out, index = compiled(ex, ew)
        (out * out).sum().backward()
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    assert not index.requires_grad and index.dtype == ember.int64
    tx, tw = (torch.tensor(a, requires_grad=True) for a in (x, w))
    t_out, t_index = block(tx, tw)
    (t_out * t_out).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    assert index.tolist() == t_index.tolist()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-10)


def test_a_gradient_reaching_only_some_outputs_and_retain_graph():
    compiled = ember.compile(lambda x: (x * 2.0, x.exp()))
    for _ in range(3):
        x = ember.ones(3, requires_grad=True)
        doubled, exp = compiled(x)
    exp.sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), np.e * np.ones(3), rtol=1e-6)
    doubled.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (np.e + 2) * np.ones(3), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        exp.sum().backward()


def test_double_backward_is_refused_as_torch_does():
    compiled = ember.compile(lambda x: (x * x).sum())
    for _ in range(3):
        x = ember.ones(2, requires_grad=True)
        y = compiled(x)
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        ember.autograd.grad(y, x, create_graph=True)


def test_a_parameter_changed_in_place_before_backward_is_caught_as_in_eager():
    model = ember.nn.Linear(3, 3)
    compiled = ember.compile(model)
    for _ in range(3):
        out = compiled(ember.ones(2, 3))
    with ember.no_grad():
        model.weight.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_hooks_on_parameters_fall_back_to_eager():
    model = ember.nn.Linear(3, 3)
    seen = []
    model.weight.register_hook(lambda g: seen.append(g.shape))
    compiled = ember.compile(model)
    with pytest.warns(UserWarning, match="a hook on a gradient"):
        for _ in range(3):
            compiled(ember.ones(2, 3)).sum().backward()
    assert len(seen) == 3


def test_an_input_made_from_a_parameter_the_call_reads():
    """h = w * 2 outside, compiled(h) = h * w inside: the replayed backward gives w only its
    in-call gradient, the engine adds the one through h (the plan once held both, and w's
    gradient came out 1.5 times torch's)."""
    w0 = np.random.default_rng(2).standard_normal(3)
    ew, tw = ember.tensor(w0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    compiled = ember.compile(lambda h: h * ew)
    for _ in range(3):
        ew.grad = None
        compiled(ew * 2).sum().backward()
    (tw * 2 * tw).sum().backward()
    assert type(compiled(ew * 2).grad_fn).__name__ == "CompiledFunctionBackward"
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_a_decoder_fed_its_own_state_from_the_call_before():
    """An RNN decoder step compiled and called in a loop on the hidden state it returned
    (aladdinpersson's Seq2Seq with attention): no graph break, torch's gradients."""
    rng = np.random.default_rng(3)
    x, h, c = (rng.standard_normal(s) for s in ((1, 3, 4), (1, 3, 5), (1, 3, 5)))
    ember.manual_seed(0)
    e_lstm = ember.nn.LSTM(4, 5).double()
    t_lstm = torch.nn.LSTM(4, 5).double()
    t_lstm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in e_lstm.state_dict().items()})

    def step(lstm, x, h, c):
        out, (h, c) = lstm(x, (h, c))
        return out, h, c

    compiled = ember.compile(lambda x, h, c: step(e_lstm, x, h, c))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no graph break
        for run, lib, fn in ((0, ember, compiled), (1, torch, lambda *a: step(t_lstm, *a))):
            h0, c0 = (lib.tensor(a, requires_grad=True) for a in (h, c))
            state, total = (h0 * 1, c0 * 1), 0
            for _ in range(4):
                out, *state = fn(lib.tensor(x), *state)
                total = total + out.sum()
            total.backward()
            if run == 0:
                assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
                ember_grads = [h0.grad.numpy(), c0.grad.numpy(), e_lstm.weight_hh_l0.grad.numpy()]
    for a, b in zip(ember_grads, [h0.grad, c0.grad, t_lstm.weight_hh_l0.grad]):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-10)
