"""The fused ops' backwards as FusedBackward Functions (nn.functional: linear,
normalization, activation, attention, loss, conv, softmax, the recurrent layers): an
ordinary backward runs only the kernel; a recorded one (create_graph) takes its first
derivative from the same kernel, bit for bit, and differentiates the ember-ops
`derivative` only when asked for the next order. The gradient's node is named as torch's.
Second-order values against torch: the oracle's grad2 mode in the functionals' own tests."""
import importlib

import numpy as np
import pytest
import torch

import ember
from ember.ops import softmax as softmax_module

# the modules themselves (nn.functional's attributes of these names are the functions)
_bias_grad, activation, attention, linear, loss, normalization, rnn = (
    importlib.import_module(f"ember.nn.functional.{name}")
    for name in ("_bias_grad", "activation", "attention", "linear", "loss", "normalization",
                 "rnn"))


def _sdpa(lib, q, k, v):
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def _activation(name, **options):
    return lambda lib, x: getattr(lib.nn.functional, name)(x, **options)


# (id, function of (lib, *inputs), input shapes, the FusedBackward class, the input whose
# gradient's node is compared with torch's, or None where torch has no double backward)
CASES = [
    ("linear", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [(4, 3), (5, 3), (5,)],
     linear._LinearGrads, 0),
    ("linear_3d", lambda lib, x, w: lib.nn.functional.linear(x, w), [(2, 4, 3), (5, 3)],
     linear._LinearGrads, None),
    ("batch_norm", lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, True),
     [(4, 3, 5), (3,), (3,)], normalization._BatchNormGrads, 0),
    ("layer_norm", lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (5,), w, b),
     [(4, 3, 5), (5,), (5,)], normalization._LayerNormGrads, 0),
    ("group_norm", lambda lib, x: lib.nn.functional.group_norm(x, 2), [(3, 4, 5)],
     normalization._LayerNormGrads, None),
    ("elu", _activation("elu"), [(6, 4)], activation._Elu.fused_backward, 0),
    ("celu", _activation("celu", alpha=0.5), [(6, 4)], activation._Celu.fused_backward, 0),
    ("gelu", _activation("gelu"), [(6, 4)], activation._Gelu.fused_backward, 0),
    ("gelu_tanh", _activation("gelu", approximate="tanh"), [(6, 4)],
     activation._Gelu.fused_backward, 0),
    ("softplus", _activation("softplus", beta=2.0), [(6, 4)],
     activation._Softplus.fused_backward, 0),
    ("silu", _activation("silu"), [(6, 4)], activation._Silu.fused_backward, 0),
    ("mish", _activation("mish"), [(6, 4)], activation._Mish.fused_backward, 0),
    ("logsigmoid", _activation("logsigmoid"), [(6, 4)],
     activation._LogSigmoid.fused_backward, 0),
    ("hardsigmoid", _activation("hardsigmoid"), [(6, 4)],
     activation._Hardsigmoid.fused_backward, None),
    ("hardswish", _activation("hardswish"), [(6, 4)],
     activation._Hardswish.fused_backward, 0),
    ("attention", _sdpa, [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)],
     attention._AttentionGrads, None),
    ("attention_3d", _sdpa, [(2, 3, 4), (2, 5, 4), (2, 5, 4)], attention._AttentionGrads, 0),
    ("cross_entropy", lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.tensor([1, 0, 3, 2]), label_smoothing=0.1), [(4, 5)], loss._CrossEntropyGrads, 0),
    ("cross_entropy_probabilities", lambda lib, x, t: lib.nn.functional.cross_entropy(x, t),
     [(4, 5), (4, 5)], loss._CrossEntropyGrads, 0),
    ("conv_bias", lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b),
     [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], _bias_grad.BiasGrad, 2),
    ("softmax", lambda lib, x: lib.softmax(x, -1), [(4, 5)], softmax_module._SoftmaxGrad, 0),
    # the fused recurrent layers (ember only: torch's CPU layers have no such node)
    ("lstm", lambda lib, *inputs: rnn.LSTMLayer.run(*inputs)[0],
     [(3, 2, 4), (2, 5), (2, 5), (20, 4), (20, 5), (20,), (20,)], rnn._LstmGrads, None),
    ("gru", lambda lib, *inputs: rnn.GRULayer.run(*inputs[:2], None, *inputs[2:])[1],
     [(3, 2, 4), (2, 5), (15, 4), (15, 5), (15,), (15,)], rnn._GruGrads, None),
    ("rnn_relu", lambda lib, *inputs: rnn.RNNLayer.run(*inputs[:2], None, *inputs[2:],
                                                       nonlinearity="relu")[0],
     [(3, 2, 4), (2, 5), (5, 4), (5, 5), (5,), (5,)], rnn._RnnGrads, None),
    ("log_softmax", lambda lib, x: lib.log_softmax(x, 0), [(4, 5)],
     softmax_module._LogSoftmaxGrad, 0),
]


def _inputs(lib, shapes):
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]


def _loss(lib, fn, inputs):
    return (fn(lib, *inputs) ** 2).sum()


@pytest.fixture
def derivative_calls(monkeypatch):
    """Counts the calls of a FusedBackward class's `derivative`."""
    calls = []

    def watch(cls):
        original = cls.derivative

        def counted(ctx, *saved):
            calls.append(cls)
            return original(ctx, *saved)
        monkeypatch.setattr(cls, "derivative", staticmethod(counted))
    return watch, calls


@pytest.mark.parametrize("fn, shapes, grads_class, compared",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_first_derivative_comes_from_the_kernel(fn, shapes, grads_class, compared,
                                                derivative_calls):
    watch, calls = derivative_calls
    watch(grads_class)
    inputs = _inputs(ember, shapes)
    plain = ember.autograd.grad(_loss(ember, fn, inputs), inputs)
    assert calls == []
    recorded = ember.autograd.grad(_loss(ember, fn, inputs), inputs, create_graph=True)
    assert calls == []
    for p, r in zip(plain, recorded):
        np.testing.assert_array_equal(r.detach().numpy(), p.numpy())
    sum(g.sum() for g in recorded).backward()
    assert calls == [grads_class]


@pytest.mark.parametrize("fn, shapes, compared",
                         [(c[1], c[2], c[4]) for c in CASES if c[4] is not None],
                         ids=[c[0] for c in CASES if c[4] is not None])
def test_gradient_node_named_as_torch(fn, shapes, compared):
    names = []
    for lib in (torch, ember):
        inputs = _inputs(lib, shapes)
        grads = lib.autograd.grad(_loss(lib, fn, inputs), inputs, create_graph=True)
        names.append(grads[compared].grad_fn.name())
    assert names[1] == names[0]
