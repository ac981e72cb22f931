"""RNN/LSTM/GRU (+ cells, packed sequences) against torch with identical weights."""
import numpy as np
import pytest
import torch

import ember
from ember.nn.modules.rnn import _LAYERS
from oracle import assert_same, check_error, to_ember, to_torch


def _pair(cls_name, *args, dtype="float32", **kwargs):
    torch.manual_seed(0)
    tmod = getattr(torch.nn, cls_name)(*args, **kwargs)
    emod = getattr(ember.nn, cls_name)(*args, **kwargs)
    if dtype == "float64":
        tmod, emod = tmod.double(), emod.double()
    assert list(emod.state_dict()) == list(tmod.state_dict())
    emod.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                          tmod.state_dict().items()})
    return tmod, emod


def _compare(tmod, emod, inputs, tol):
    tin = [to_torch(a, requires_grad=True) for a in inputs]
    ein = [to_ember(a, requires_grad=True) for a in inputs]
    tout, eout = tmod(*tin), emod(*ein)
    assert_same(eout, tout, *tol)
    flat_t = [tout[0]] + list(tout[1] if isinstance(tout[1], tuple) else [tout[1]])
    flat_e = [eout[0]] + list(eout[1] if isinstance(eout[1], tuple) else [eout[1]])
    seeds = [np.random.default_rng(i).standard_normal(tuple(t.shape)).astype(inputs[0].dtype)
             for i, t in enumerate(flat_t)]
    torch.autograd.backward(flat_t, [torch.tensor(s) for s in seeds])
    ember.autograd.backward(flat_e, [ember.tensor(s) for s in seeds])
    for t, e in zip(tin, ein):
        assert_same(e.grad, t.grad, tol[0] * 10, tol[1] * 10)
    for (name, tp), (_, ep) in zip(tmod.named_parameters(), emod.named_parameters()):
        assert_same(ep.grad, tp.grad, tol[0] * 10, tol[1] * 10, name)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kwargs", [{}, dict(num_layers=2), dict(bidirectional=True),
                                    dict(batch_first=True, bias=False),
                                    dict(num_layers=2, bidirectional=True, batch_first=True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_recurrent_layers(cls_name, kwargs, dtype):
    tmod, emod = _pair(cls_name, 5, 7, dtype=dtype, **kwargs)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 5) if not kwargs.get("batch_first") else (3, 4, 5))
    tol = (1e-5, 1e-4) if dtype == "float32" else (1e-10, 1e-8)
    _compare(tmod, emod, [x.astype(dtype)], tol)


def test_rnn_relu_with_initial_state_and_unbatched():
    tmod, emod = _pair("RNN", 3, 4, nonlinearity="relu", num_layers=2)
    rng = np.random.default_rng(2)
    _compare(tmod, emod, [rng.standard_normal((5, 2, 3)).astype(np.float32),
                          rng.standard_normal((2, 2, 4)).astype(np.float32)], (1e-5, 1e-4))
    tmod, emod = _pair("GRU", 3, 4)
    _compare(tmod, emod, [rng.standard_normal((5, 3)).astype(np.float32)], (1e-5, 1e-4))


def test_lstm_initial_state():
    tmod, emod = _pair("LSTM", 3, 4, bidirectional=True)
    rng = np.random.default_rng(3)
    x, h, c = (rng.standard_normal(s).astype(np.float32) for s in [(6, 2, 3), (2, 2, 4), (2, 2, 4)])
    tout, (th, tc) = tmod(torch.tensor(x), (torch.tensor(h), torch.tensor(c)))
    eout, (eh, ec) = emod(ember.tensor(x), (ember.tensor(h), ember.tensor(c)))
    assert_same([eout, eh, ec], [tout, th, tc], 1e-5, 1e-4)


def test_lstm_state_as_a_list():
    # yunjey's language_model passes [h.detach(), c.detach()] (a list): ember said
    # 'list' object has no attribute 'shape'
    tmod, emod = _pair("LSTM", 3, 4, batch_first=True)
    rng = np.random.default_rng(4)
    x, h, c = (rng.standard_normal(s).astype(np.float32) for s in [(2, 5, 3), (1, 2, 4), (1, 2, 4)])
    tout, (th, tc) = tmod(torch.tensor(x), [torch.tensor(h), torch.tensor(c)])
    eout, (eh, ec) = emod(ember.tensor(x), [ember.tensor(h), ember.tensor(c)])
    assert_same([eout, eh, ec], [tout, th, tc], 1e-5, 1e-4)
    eout, (eh, ec) = emod(ember.tensor(x[0]), [ember.tensor(h[:, 0]), ember.tensor(c[:, 0])])
    tout, (th, tc) = tmod(torch.tensor(x[0]), [torch.tensor(h[:, 0]), torch.tensor(c[:, 0])])
    assert_same([eout, eh, ec], [tout, th, tc], 1e-5, 1e-4)


def test_hidden_state_of_the_wrong_kind():
    three = lambda lib: [lib.zeros(1, 2, 4)] * 3
    check_error(lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), three(lib)), RuntimeError,
                "^lstm expects two hidden states")
    check_error(lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), tuple(three(lib))),
                RuntimeError, "^lstm expects two hidden states")
    for kind in (list, tuple):
        check_error(lambda lib: lib.nn.GRU(3, 4)(lib.ones(5, 2, 3), kind([lib.zeros(1, 2, 4)])),
                    AttributeError, f"^'{kind.__name__}' object has no attribute 'dim'")


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU"])
def test_packed_sequences(cls_name):
    tmod, emod = _pair(cls_name, 3, 4, num_layers=2, bidirectional=True)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 3, 3)).astype(np.float32)
    lengths = [3, 5, 2]
    tx, ex = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=False)
    ep = ember.nn.utils.rnn.pack_padded_sequence(ex, lengths, enforce_sorted=False)
    assert_same(ep.data, tp.data, 0, 0)
    assert_same(ep.batch_sizes, tp.batch_sizes, 0, 0)
    tout, th = tmod(tp)
    eout, eh = emod(ep)
    assert_same(eout.data, tout.data, 1e-5, 1e-4)
    assert_same(eh, th, 1e-5, 1e-4)
    tpad, tlen = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True)
    epad, elen = ember.nn.utils.rnn.pad_packed_sequence(eout, batch_first=True)
    assert_same([epad, elen], [tpad, tlen], 1e-5, 1e-4)
    g = rng.standard_normal(tuple(tpad.shape)).astype(np.float32)
    (tpad * torch.tensor(g)).sum().backward()
    (epad * ember.tensor(g)).sum().backward()
    assert_same(ex.grad, tx.grad, 1e-4, 1e-3)


def test_pad_and_pack_sequence_utils():
    seqs = [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((1, 2), np.float32),
            np.zeros((2, 2), np.float32)]
    for bf in (False, True):
        assert_same(ember.nn.utils.rnn.pad_sequence([ember.tensor(s) for s in seqs], bf, -1.0),
                    torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], bf, -1.0),
                    0, 0)
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    ep = ember.nn.utils.rnn.pack_sequence([ember.tensor(s) for s in seqs], enforce_sorted=False)
    assert_same([ep.data, ep.batch_sizes, ep.sorted_indices, ep.unsorted_indices],
                [tp.data, tp.batch_sizes, tp.sorted_indices, tp.unsorted_indices], 0, 0)


@pytest.mark.parametrize("cls_name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells(cls_name):
    tmod, emod = _pair(cls_name, 3, 5)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    tin, ein = to_torch(x, True), to_ember(x, True)
    tout, eout = tmod(tin), emod(ein)
    assert_same(eout, tout, 1e-5, 1e-4)
    (tout[0] if isinstance(tout, tuple) else tout).sum().backward()
    (eout[0] if isinstance(eout, tuple) else eout).sum().backward()
    assert_same(ein.grad, tin.grad, 1e-5, 1e-4)


def test_repr_and_errors():
    for args, kwargs in [((10, 20), {}), ((10, 20, 2), dict(batch_first=True, dropout=0.5)),
                         ((3, 4), dict(bidirectional=True, bias=False))]:
        assert repr(ember.nn.LSTM(*args, **kwargs)) == repr(torch.nn.LSTM(*args, **kwargs))
    assert repr(ember.nn.RNN(3, 4, nonlinearity="relu")) == \
        repr(torch.nn.RNN(3, 4, nonlinearity="relu"))
    assert repr(ember.nn.GRUCell(3, 4)) == repr(torch.nn.GRUCell(3, 4))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        ember.nn.LSTM(3, 4)(ember.ones(2, 1, 5))
    for name in ("LSTM", "GRU", "RNN"):
        check_error(lambda lib: getattr(lib.nn, name)(3, 4)(lib.ones(0, 2, 3)), RuntimeError,
                    "^Expected sequence length to be larger than 0 in RNN")


def _second_order(lib, module, x, lengths):
    """Gradients of sum(first-order gradients * fixed seeds) w.r.t. the input and weights."""
    xx = lib.tensor(x, requires_grad=True)
    inputs = [xx] + list(module.parameters())
    if lengths is None:
        out, state = module(xx)
    else:
        packed = lib.nn.utils.rnn.pack_padded_sequence(xx, lib.tensor(lengths),
                                                       enforce_sorted=False)
        out, state = module(packed)
        out = out.data
    states = state if isinstance(state, tuple) else (state,)
    loss = (out ** 2).sum() + sum((s ** 3).sum() for s in states)
    first = lib.autograd.grad(loss, inputs, create_graph=True)
    seeds = [np.random.default_rng(k).standard_normal(tuple(g.shape)) for k, g in
             enumerate(first)]
    return lib.autograd.grad(sum((g * lib.tensor(s)).sum() for g, s in zip(first, seeds)),
                             inputs)


@pytest.mark.parametrize("cls_name, kwargs", [
    ("LSTM", {}), ("LSTM", dict(proj_size=2, num_layers=2)), ("GRU", dict(bidirectional=True)),
    ("RNN", dict(nonlinearity="relu")), ("RNN", dict(bias=False))])
@pytest.mark.parametrize("lengths", [None, [4, 2, 3]])
def test_double_backward_matches_torch(cls_name, kwargs, lengths):
    # create_graph=True differentiates the layer rebuilt from cell steps in ember ops
    tmod, emod = _pair(cls_name, 3, 4, dtype="float64", **kwargs)
    x = np.random.default_rng(6).standard_normal((4, 3, 3))
    for e, t in zip(_second_order(ember, emod, x, lengths),
                    _second_order(torch, tmod, x, lengths)):
        assert_same(e, t, 1e-10, 1e-8)


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
    tmod, emod = _pair(cls_name, 3, 5, num_layers=2, bidirectional=bidirectional,
                       dtype="float64")
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


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
def test_backward_sees_input_modified_in_place(cls_name, create_graph):
    # The layer's node saves its inputs (create_graph rebuilds the layer from them), so an
    # input changed in place after the forward is torch's error, not a wrong gradient.
    def run(lib):
        lib.manual_seed(0)
        x = lib.randn(5, 2, 3, requires_grad=True)
        h = x * 1
        out, _ = getattr(lib.nn, cls_name)(3, 4)(h)
        h.add_(1)
        lib.autograd.grad(out.sum(), [x], create_graph=create_graph)
    check_error(run, RuntimeError, "^one of the variables needed for gradient computation has "
                                   "been modified by an inplace operation")


_CELLS = [("LSTMCell", {}), ("GRUCell", {}), ("RNNCell", {}),
          ("RNNCell", {"nonlinearity": "relu"})]
_CELL_IDS = ["LSTMCell", "GRUCell", "RNNCell", "RNNCell-relu"]


def _cell_loop(lib, module, xs, states, grad_states):
    """Steps of a cell over xs (as in pytorch/examples' time_sequence_prediction), a loss
    on every output and on the last state; returns the states and every gradient."""
    x = lib.tensor(xs, requires_grad=True)
    first = [lib.tensor(s, requires_grad=grad_states) for s in states]
    state, loss = tuple(first), 0
    for t in range(x.shape[0]):
        state = module(x[t], state if len(state) == 2 else state[0])
        state = state if isinstance(state, tuple) else (state,)
        loss = loss + (state[0] * (t + 1)).sum()
    (loss + (state[-1] * state[-1]).sum()).backward()
    grads = [x.grad] + ([s.grad for s in first] if grad_states else []) + \
        [p.grad for p in module.parameters()]
    return list(state) + grads


@pytest.mark.parametrize("cell,options", _CELLS, ids=_CELL_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("grad_states", [True, False])
def test_cell_loop_values_and_gradients(cell, options, dtype, bias, grad_states):
    tmod, emod = _pair(cell, 3, 5, bias=bias, dtype=dtype, **options)
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((6, 4, 3)).astype(dtype)
    states = [rng.standard_normal((4, 5)).astype(dtype) for _ in range(1 + (cell == "LSTMCell"))]
    tol = (1e-5, 1e-4) if dtype == "float32" else (1e-12, 1e-10)
    for e, t in zip(_cell_loop(ember, emod, xs, states, grad_states),
                    _cell_loop(torch, tmod, xs, states, grad_states)):
        assert_same(e, t, *tol)


@pytest.mark.parametrize("cell,options", _CELLS, ids=_CELL_IDS)
def test_cell_second_derivative_and_unbatched(cell, options):
    tmod, emod = _pair(cell, 3, 4, dtype="float64", **options)
    rng = np.random.default_rng(2)
    x, h, c = (rng.standard_normal(n) for n in ((2, 3), (2, 4), (2, 4)))
    lstm = cell == "LSTMCell"

    def run(module, *args):
        out = module(args[0], (args[1], args[2]) if lstm else args[1])
        return out if lstm else (out, out)

    def penalty(lib, module):
        xt, ht, ct = (lib.tensor(a, requires_grad=True) for a in (x, h, c))
        h1, c1 = run(module, xt, ht, ct)
        gx, gw = lib.autograd.grad((h1 * c1).sum(), (xt, module.weight_hh), create_graph=True)
        (gx.pow(2).sum() + gw.pow(2).sum()).backward()
        return [xt.grad, ht.grad, ct.grad, module.weight_ih.grad, module.bias_hh.grad]
    for e, t in zip(penalty(ember, emod), penalty(torch, tmod)):
        assert_same(e, t, 1e-10, 1e-9)
    state = [ember.tensor(h[0]), ember.tensor(c[0])][:1 + lstm]
    torch_state = [torch.tensor(h[0]), torch.tensor(c[0])][:1 + lstm]
    assert_same(emod(ember.tensor(x[0]), tuple(state) if lstm else state[0]),
                tmod(torch.tensor(x[0]), tuple(torch_state) if lstm else torch_state[0]),
                1e-12, 1e-12)
    assert ember.autograd.gradcheck(
        lambda *a: run(emod, *a), tuple(ember.tensor(a, requires_grad=True) for a in (x, h, c)))


@pytest.mark.parametrize("cell,call,match", [
    ("LSTMCell", lambda lib, m: m(lib.ones(2, 5)),
     "^input has inconsistent input_size: got 5 expected 3"),
    ("LSTMCell", lambda lib, m: m(lib.ones(2, 3), (lib.ones(2, 5), lib.ones(2, 4))),
     "^hidden0 has inconsistent hidden_size: got 5, expected 4"),
    ("LSTMCell", lambda lib, m: m(lib.ones(2, 3), (lib.ones(2, 4), lib.ones(2, 5))),
     "^hidden1 has inconsistent hidden_size: got 5, expected 4"),
    ("LSTMCell", lambda lib, m: m(lib.ones(2, 3), (lib.ones(3, 4), lib.ones(3, 4))),
     "^Input batch size 2 doesn't match hidden0 batch size 3"),
    ("LSTMCell", lambda lib, m: m(lib.ones(2, 3, dtype=lib.float64)),
     "^mat1 and mat2 must have the same dtype, but got Double and Float"),
    ("GRUCell", lambda lib, m: m(lib.ones(2, 5)),
     "^input has inconsistent input_size: got 5 expected 3"),
    ("RNNCell", lambda lib, m: m(lib.ones(2, 3), lib.ones(2, 5)),
     "^hidden0 has inconsistent hidden_size: got 5, expected 4"),
])
def test_cell_input_errors(cell, call, match):
    check_error(lambda lib: call(lib, getattr(lib.nn, cell)(3, 4)), RuntimeError, match)


@pytest.mark.parametrize("cell,options", _CELLS, ids=_CELL_IDS)
def test_cell_compiled_equals_eager(cell, options):
    _, emod = _pair(cell, 3, 5, **options)
    rng = np.random.default_rng(3)
    lstm = cell == "LSTMCell"

    def step(x, h, c):
        for t in range(x.shape[0]):
            h, c = emod(x[t], (h, c)) if lstm else (emod(x[t], h), c)
        loss = h.sum() + c.pow(2).sum()
        loss.backward()
        return loss
    compiled = ember.compile(step)
    for call in range(4):
        args = [ember.tensor(rng.standard_normal(s).astype(np.float32))
                for s in ((5, 2, 3), (2, 5), (2, 5))]
        emod.zero_grad()
        eager_loss, eager_grads = step(*args).item(), [p.grad.clone() for p in emod.parameters()]
        emod.zero_grad()
        assert compiled(*args).item() == eager_loss
        for p, g in zip(emod.parameters(), eager_grads):
            assert np.array_equal(p.grad.numpy(), g.numpy())


@pytest.mark.parametrize("make,pick", [
    (lambda nn: nn.GRU(4, 3), lambda out: out[0]),
    (lambda nn: nn.RNN(4, 3, num_layers=2), lambda out: out[1]),
    (lambda nn: nn.LSTMCell(4, 3), lambda out: out[1]),
    (lambda nn: nn.LSTMCell(4, 3, bias=False), lambda out: out[0]),
    (lambda nn: nn.GRUCell(4, 3), lambda out: out),
    (lambda nn: nn.RNNCell(4, 3, nonlinearity="relu"), lambda out: out),
], ids=["GRU", "RNN", "LSTMCell", "LSTMCell-nobias", "GRUCell", "RNNCell"])
def test_forward_mode_through_recurrent_layers(make, pick):
    """jvp through a fused layer: its double vjp asks for the gradient of an input that
    does not itself require grad (the tangents were all zero)."""
    rng = np.random.default_rng(4)
    x, v = (rng.standard_normal((5, 4)) for _ in range(2))

    def tangent(lib):
        lib.manual_seed(0)
        module = make(lib.nn).double()
        return lib.func.jvp(lambda t: pick(module(t)), (lib.tensor(x),), (lib.tensor(v),))[1]
    result = tangent(ember)
    assert float(result.abs().sum()) > 0
    assert_same(result, tangent(torch), 1e-10, 1e-10)
