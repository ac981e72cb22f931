"""ONNX export of nn.RNN / nn.LSTM / nn.GRU (and their cells): the graph passes
onnx.checker, and onnxruntime reproduces ember's eager outputs and torch's outputs from the
same weights."""
import io

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.onnx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

TOL = dict(rtol=1e-5, atol=1e-5)
KINDS = {"LSTM": ("LSTM", {}), "GRU": ("GRU", {}), "RNN_TANH": ("RNN", {}),
         "RNN_RELU": ("RNN", {"nonlinearity": "relu"})}


def wrap(lib, rnn, lstm):
    """A model taking (x, *initial states) that returns the layer's or cell's outputs as one
    flat tuple: (output, h_n[, c_n]) for a layer, (h'[, c']) for a cell."""

    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = rnn

        def forward(self, x, *states):
            hx = None if not states else tuple(states) if lstm else states[0]
            return flatten(self.rnn(x, hx))

    return Model().eval()


def flatten(value):
    if isinstance(value, (tuple, list)):
        return tuple(t for v in value for t in flatten(v))
    return (value,)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


class Recurrent:
    """The same recurrent layer in ember and in torch (weights copied across), wrapped so that
    the model takes (x, *initial states) and returns (output, h_n[, c_n])."""

    def __init__(self, kind, input_size=4, hidden_size=5, **options):
        name, extra = KINDS[kind]
        self.lstm = name == "LSTM"
        self.ember = getattr(nn, name)(input_size, hidden_size, **extra, **options).eval()
        self.torch = getattr(torch.nn, name)(input_size, hidden_size, **extra, **options).eval()
        self.torch.load_state_dict({k: torch.tensor(v.numpy())
                                    for k, v in self.ember.state_dict().items()})

    def model(self, lib):
        return wrap(lib, self.ember if lib is ember else self.torch, self.lstm)

    def state_shape(self, batch, unbatched=False):
        m = self.ember
        shape = (m.num_layers * m.num_directions, m.hidden_size)
        return shape if unbatched else (shape[0], batch, shape[1])


def export(model, inputs, **kwargs):
    """Export with ember; returns (ModelProto, onnxruntime session, input names)."""
    names = [f"in{i}" for i in range(len(inputs))]
    buf = io.BytesIO()
    ember.onnx.export(model, tuple(ember.tensor(a) for a in inputs), buf, input_names=names,
                      **kwargs)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    session = ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    return proto, session, names


def run_all(layer, inputs, session, names):
    """onnxruntime's, ember's and torch's outputs on the same NumPy inputs."""
    got = session.run(None, dict(zip(names, inputs)))
    with ember.no_grad():
        eager = [t.numpy() for t in layer.model(ember)(*map(ember.tensor, inputs))]
    with torch.no_grad():
        reference = [t.numpy() for t in layer.model(torch)(*map(torch.tensor, inputs))]
    return got, eager, reference


def assert_matches(layer, inputs, session, names):
    got, eager, reference = run_all(layer, inputs, session, names)
    assert len(got) == len(eager) == len(reference)
    for g, e, r in zip(got, eager, reference):
        assert g.shape == e.shape == r.shape
        np.testing.assert_allclose(g, e, **TOL)
        np.testing.assert_allclose(g, r, **TOL)


def check_layer(kind, with_states=False, unbatched=False, steps=6, batch=3, **options):
    layer = Recurrent(kind, **options)
    x_shape = (steps, 4) if unbatched else \
        (batch, steps, 4) if options.get("batch_first") else (steps, batch, 4)
    inputs = [randn(*x_shape)]
    if with_states:
        inputs += [randn(*layer.state_shape(batch, unbatched), seed=1 + k)
                   for k in range(1 + layer.lstm)]
    proto, session, names = export(layer.model(ember), inputs)
    assert_matches(layer, inputs, session, names)
    return proto


def op_types(proto):
    return [node.op_type for node in proto.graph.node]


def attributes(proto, op_type):
    node = next(n for n in proto.graph.node if n.op_type == op_type)
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


# ------------------------------------------------------------------ configurations
CONFIGS = {
    "default": {},
    "two_layers": {"num_layers": 2},
    "bidirectional": {"bidirectional": True},
    "two_layers_bidirectional": {"num_layers": 3, "bidirectional": True},
    "batch_first": {"batch_first": True},
    "batch_first_bidirectional": {"batch_first": True, "bidirectional": True},
    "no_bias": {"bias": False},
    "no_bias_bidirectional": {"bias": False, "bidirectional": True, "num_layers": 2},
    "dropout_eval": {"num_layers": 2, "dropout": 0.5},
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("with_states", [False, True], ids=["no_hx", "hx"])
def test_layer_matches_ember_and_torch(kind, config, with_states):
    check_layer(kind, with_states, **CONFIGS[config])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("with_states", [False, True], ids=["no_hx", "hx"])
def test_unbatched_input(kind, with_states):
    check_layer(kind, with_states, unbatched=True, num_layers=2, bidirectional=True)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_single_step_and_single_batch_entry(kind):
    check_layer(kind, with_states=True, steps=1, batch=1, bidirectional=True)


@pytest.mark.parametrize("kind, op_type", [("LSTM", "LSTM"), ("GRU", "GRU"),
                                           ("RNN_TANH", "RNN"), ("RNN_RELU", "RNN")])
def test_one_onnx_node_per_layer(kind, op_type):
    proto = check_layer(kind, num_layers=3, bidirectional=True)
    assert op_types(proto).count(op_type) == 3
    attrs = attributes(proto, op_type)
    assert attrs["hidden_size"] == 5
    assert attrs["direction"] == b"bidirectional"
    if kind == "GRU":
        assert attrs["linear_before_reset"] == 1
    if op_type == "RNN":
        expected = b"Relu" if kind == "RNN_RELU" else b"Tanh"
        assert attrs["activations"] == [expected, expected]


def test_node_names_follow_the_module():
    proto = check_layer("LSTM")
    assert "/rnn/LSTM" in [n.name for n in proto.graph.node]


def test_forward_direction_has_no_direction_attribute():
    proto = check_layer("GRU")
    assert "direction" not in attributes(proto, "GRU")


@pytest.mark.parametrize("kind", KINDS)
def test_dynamic_batch_and_sequence_length(kind):
    layer = Recurrent(kind, num_layers=2, bidirectional=True, batch_first=True)
    axes = {"in0": {0: "batch", 1: "steps"}, "out": {0: "batch", 1: "steps"},
            "h_n": {1: "batch"}}
    outputs = ["out", "h_n", "c_n"][:2 + layer.lstm]
    if layer.lstm:
        axes["c_n"] = {1: "batch"}
    _, session, names = export(layer.model(ember), [randn(2, 3, 4)], dynamic_axes=axes,
                               output_names=outputs)
    for shape in ((5, 7, 4), (1, 1, 4)):
        assert_matches(layer, [randn(*shape, seed=3)], session, names)


@pytest.mark.parametrize("opset", [13, 14, 20])
def test_opsets(opset):
    layer = Recurrent("LSTM", num_layers=2, bidirectional=True)
    inputs = [randn(6, 3, 4)]
    proto, session, names = export(layer.model(ember), inputs, opset_version=opset)
    assert proto.opset_import[0].version == opset
    assert_matches(layer, inputs, session, names)


def test_without_constant_folding_or_exported_params():
    """Parameters stay graph values: the gate reordering is done by the graph itself."""
    layer = Recurrent("GRU", num_layers=2)
    inputs = [randn(6, 3, 4)]
    _, session, names = export(layer.model(ember), inputs, do_constant_folding=False)
    assert_matches(layer, inputs, session, names)
    _, session, names = export(layer.model(ember), inputs, export_params=False)
    params = {f"rnn.{k}": v.numpy() for k, v in layer.ember.state_dict().items()}
    assert {i.name for i in session.get_inputs()} == {"in0", *params}
    got = session.run(None, {"in0": inputs[0], **params})
    with ember.no_grad():
        eager = layer.model(ember)(ember.tensor(inputs[0]))
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e.numpy(), **TOL)


# ------------------------------------------------------------------ packed sequences
class Packed:
    """pack_padded_sequence -> layer -> pad_packed_sequence, in ember and in torch."""

    def __init__(self, kind, enforce_sorted=False, **options):
        self.layer = Recurrent(kind, **options)
        self.enforce_sorted = enforce_sorted

    def model(self, lib):
        rnn = self.layer.ember if lib is ember else self.layer.torch
        enforce_sorted, utils = self.enforce_sorted, lib.nn.utils.rnn

        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = rnn

            def forward(self, x, lengths, *states):
                batch_first = self.rnn.batch_first
                packed = utils.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                                    enforce_sorted=enforce_sorted)
                hx = None if not states else tuple(states) if len(states) == 2 else states[0]
                out, final = self.rnn(packed, hx)
                padded, out_lengths = utils.pad_packed_sequence(out, batch_first=batch_first)
                final = final if isinstance(final, tuple) else (final,)
                return (padded, out_lengths, *final)

        return Model().eval()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("options", [{}, {"bidirectional": True, "num_layers": 2},
                                     {"batch_first": True, "bidirectional": True}],
                         ids=["plain", "bidirectional_two_layers", "batch_first"])
def test_packed_sequence(kind, options):
    packed = Packed(kind, **options)
    batch_first = options.get("batch_first", False)
    x = randn(*((4, 6, 4) if batch_first else (6, 4, 4)))
    inputs = [x, np.array([3, 6, 1, 4], dtype=np.int64)]
    proto, session, names = export(packed.model(ember), inputs)
    op = KINDS[kind][0]
    assert len(next(n for n in proto.graph.node if n.op_type == op).input[4]) > 0
    assert_matches(packed, inputs, session, names)
    # other lengths (the longest one gives the padded output's length, as in eager)
    assert_matches(packed, [x, np.array([6, 2, 5, 1], dtype=np.int64)], session, names)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_packed_sequence_with_initial_states(kind):
    packed = Packed(kind, num_layers=2, bidirectional=True)
    inputs = [randn(6, 4, 4), np.array([3, 6, 1, 4], dtype=np.int64)]
    inputs += [randn(4, 4, 5, seed=1 + k) for k in range(1 + packed.layer.lstm)]
    assert_matches(packed, inputs, *export(packed.model(ember), inputs)[1:])


def test_packed_sorted_lengths():
    packed = Packed("LSTM", enforce_sorted=True)
    inputs = [randn(5, 3, 4), np.array([5, 3, 2], dtype=np.int64)]
    assert_matches(packed, inputs, *export(packed.model(ember), inputs)[1:])


class Calling(nn.Module):
    """A model that returns fn(layer, *inputs)."""

    def __init__(self, layer, fn):
        super().__init__()
        self.rnn, self.fn = layer, fn

    def forward(self, *inputs):
        return self.fn(self.rnn, *inputs)


def test_packed_sequence_padding_value_is_refused():
    def fn(rnn, x, lengths):
        out, _ = rnn(nn.utils.rnn.pack_padded_sequence(x, lengths))
        return nn.utils.rnn.pad_packed_sequence(out, padding_value=-1.0)[0]

    with pytest.raises(NotImplementedError, match="padding_value"):
        export(Calling(nn.GRU(4, 5), fn), [randn(3, 2, 4), np.array([3, 2])])


def test_packed_sequence_with_list_lengths_is_refused():
    def fn(rnn, x):
        return rnn(nn.utils.rnn.pack_padded_sequence(x, [3, 2]))[1][0]

    with pytest.raises(NotImplementedError, match="'lengths' as a tensor"):
        export(Calling(nn.LSTM(4, 5), fn), [randn(3, 2, 4)])


def test_packed_sequence_given_as_model_input_is_refused():
    layer = Recurrent("GRU")
    packed = nn.utils.rnn.pack_padded_sequence(ember.tensor(randn(3, 2, 4)), [3, 2])
    with pytest.raises(NotImplementedError, match="pack_padded_sequence"):
        ember.onnx.export(layer.ember, (packed,), io.BytesIO())


# ------------------------------------------------------------------ refused configurations
def test_proj_size_is_refused():
    layer = nn.LSTM(4, 5, proj_size=3)
    with pytest.raises(NotImplementedError, match="proj_size=3"):
        ember.onnx.export(layer, (ember.tensor(randn(6, 3, 4)),), io.BytesIO())


def test_training_mode_dropout_is_refused():
    layer = nn.GRU(4, 5, num_layers=2, dropout=0.5).train()
    with pytest.raises(NotImplementedError, match="dropout in training mode"):
        ember.onnx.export(layer, (ember.tensor(randn(6, 3, 4)),), io.BytesIO(),
                          training=ember.onnx.TrainingMode.PRESERVE)
    assert layer.training


def test_training_mode_without_dropout_exports():
    layer = Recurrent("LSTM", num_layers=2)
    layer.ember.train()
    inputs = [randn(6, 3, 4)]
    _, session, names = export(layer.model(ember), inputs,
                               training=ember.onnx.TrainingMode.PRESERVE)
    assert_matches(layer, inputs, session, names)


# ------------------------------------------------------------------ cells (plain ops)
@pytest.mark.parametrize("name, options", [("LSTMCell", {}), ("GRUCell", {}),
                                           ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                           ("GRUCell", {"bias": False})])
@pytest.mark.parametrize("with_states", [False, True], ids=["no_hx", "hx"])
def test_cells(name, options, with_states):
    cell = getattr(nn, name)(4, 5, **options)
    reference = getattr(torch.nn, name)(4, 5, **options)
    reference.load_state_dict({k: torch.tensor(v.numpy()) for k, v in cell.state_dict().items()})
    lstm = name == "LSTMCell"
    inputs = [randn(3, 4)] + [randn(3, 5, seed=1 + k) for k in range(with_states * (1 + lstm))]
    _, session, names = export(wrap(ember, cell, lstm), inputs)
    got = session.run(None, dict(zip(names, inputs)))
    with ember.no_grad():
        eager = wrap(ember, cell, lstm)(*map(ember.tensor, inputs))
    with torch.no_grad():
        expected = wrap(torch, reference, lstm)(*map(torch.tensor, inputs))
    assert len(got) == len(eager) == len(expected) == 1 + lstm
    for g, e, r in zip(got, eager, expected):
        np.testing.assert_allclose(g, e.numpy(), **TOL)
        np.testing.assert_allclose(g, r.numpy(), **TOL)
