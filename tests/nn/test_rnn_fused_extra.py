"""Fused recurrent layers: gradients through the final states of packed sequences, and
float32 sizes where the loop's buffers and GEMMs take their fast paths."""
import numpy as np
import pytest
import torch

import ember
from ember.nn.modules.rnn import _LAYERS
from oracle import assert_same


def _pair(cls_name, *args, **kwargs):
    torch.manual_seed(0)
    tmod = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    emod = getattr(ember.nn, cls_name)(*args, **kwargs).double()
    emod.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                          tmod.state_dict().items()})
    return tmod, emod


def _grads(lib, module, x, lengths, lstm):
    """Input and parameter gradients of a loss on the packed output and the final states."""
    xx = lib.tensor(x, requires_grad=True)
    packed = lib.nn.utils.rnn.pack_padded_sequence(xx, lib.tensor(lengths),
                                                   enforce_sorted=False)
    out, state = module(packed)
    h_n = state[0] if lstm else state
    loss = (out.data * out.data).sum() + (h_n ** 3).sum()
    if lstm:
        loss = loss + (state[1] ** 2).sum()
    loss.backward()
    return [xx.grad] + [p.grad for p in module.parameters()]


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_final_state_gradients(cls_name, bidirectional):
    tmod, emod = _pair(cls_name, 3, 5, num_layers=2, bidirectional=bidirectional)
    x = np.random.default_rng(0).standard_normal((6, 4, 3))
    lengths = [4, 6, 1, 3]
    lstm = cls_name == "LSTM"
    expected = _grads(torch, tmod, x, lengths, lstm)
    for e, t in zip(_grads(ember, emod, x, lengths, lstm), expected):
        assert_same(e, t, 1e-10, 1e-8)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bias", [True, False])
def test_float32_language_model_shape(cls_name, bias):
    torch.manual_seed(0)
    tmod = getattr(torch.nn, cls_name)(16, 32, bias=bias)
    emod = getattr(ember.nn, cls_name)(16, 32, bias=bias)
    emod.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                          tmod.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((9, 6, 16)).astype(np.float32)
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    tout, _ = tmod(tx)
    eout, _ = emod(ex)
    assert_same(eout, tout, 1e-5, 1e-4)
    g = np.random.default_rng(2).standard_normal(x.shape[:2] + (32,)).astype(np.float32)
    (tout * torch.tensor(g)).sum().backward()
    (eout * ember.tensor(g)).sum().backward()
    assert_same(ex.grad, tx.grad, 1e-4, 1e-3)
    for (name, tp), (_, ep) in zip(tmod.named_parameters(), emod.named_parameters()):
        assert_same(ep.grad, tp.grad, 1e-4, 1e-3, name)
        assert ep.grad.numpy().flags.c_contiguous



@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
def test_layer_outputs_are_contiguous(cls_name):
    module = getattr(ember.nn, cls_name)(3, 4)
    layer = _LAYERS[module.mode]
    weights = module._layer_weights(0, "")
    x, h0 = ember.randn(5, 2, 3), ember.zeros(2, 4)
    for lengths in (None, [5, 3]):
        outputs = layer.run(x, h0, h0 if cls_name == "LSTM" else None, *weights, lengths=lengths)
        assert all(o.is_contiguous() for o in outputs)
