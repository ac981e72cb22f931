"""Symbolic functions of the recurrent layers (nn.RNN, nn.LSTM, nn.GRU).

ember runs each layer and direction as one fused primitive, with the reverse direction
reading a time-reversed copy of its input. The exporter records the layer module whole
instead, through forward hooks (`whole_layers`): the primitives it runs inside are not
traced, and its call is written as torch.onnx writes it: one ONNX RNN, LSTM or GRU node
per layer (both directions in one node), chained. Two layouts differ:

- gates: ONNX stacks the LSTM's weight rows as (i, o, f, c) where torch has (i, f, g, o),
  and the GRU's as (z, r, h) where torch has (r, z, n); a Gather reorders the rows.
  torch's GRU applies the reset gate after the hidden projection: linear_before_reset=1.
- outputs: ONNX's Y is (T, directions, B, H); torch's output is (T, B, directions * H).

A packed sequence is, in the graph, its padded time-major tensor plus its lengths (ONNX's
sequence_lens input): the PackPadded primitive records nothing but that pair, the layer
reads it, and PadPacked turns the layer's result back into a padded tensor. The cells
(RNNCell, LSTMCell, GRUCell) run one fused node a step, written out as the ops it stands
for.
"""
from __future__ import annotations

import contextlib

import numpy as np

from .._tensor import Tensor
from ..nn.functional.rnn_cell import _GruCell, _LstmCell, _RnnCell
from ..nn.modules.rnn import RNNBase
from ..nn.utils.rnn import PackPadded, PadPacked
from ._symbolic import symbolic
from ._trace import onnx_type

# ONNX's gate order, as indices of torch's blocks of hidden_size weight rows.
_GATE_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2]}
_ONNX_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


@contextlib.contextmanager
def whole_layers(g, model):
    """Record each recurrent layer of `model` called on live values as one symbolic op:
    a pre-hook stops the tracing of the primitives it runs, and a hook after its forward
    writes its nodes."""
    called = []         # per open layer call: whether it is being recorded

    def before(module, args, kwargs):
        recorded = not g.depth and g.any_live(args, kwargs)
        called.append(recorded)
        if recorded:
            g.depth += 1

    def after(module, args, kwargs, out):
        if not called.pop():
            return
        g.depth -= 1
        if out is not None:         # None: forward raised, and the export with it
            bound = dict(zip(("input", "hx"), args), **kwargs)
            recurrent(g, module, bound["input"], bound.get("hx"), out)

    layers = [m for m in model.modules() if isinstance(m, RNNBase)] \
        if hasattr(model, "modules") else []
    handles = [h for m in layers for h in (
        m.register_forward_pre_hook(before, with_kwargs=True),
        m.register_forward_hook(after, with_kwargs=True, always_call=True))]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def recurrent(g, module, input, hx, out) -> None:
    """The nodes of one call of an nn.RNN, nn.LSTM or nn.GRU layer."""
    _check_exportable(module)
    packed = isinstance(input, tuple)       # a PackedSequence
    unbatched = not packed and input.ndim == 2
    if packed:
        x, lengths = _packed_input(g, input.data)
    elif unbatched:
        x, lengths = _unsqueeze(g, g.name(input), 1), ""
    else:
        x, lengths = _swap_batch_and_time(g, g.name(input), module.batch_first), ""
    output, finals = _layers(g, module, x, lengths,
                             _initial_states(g, module, hx, unbatched))
    output_tensor, final_tensors = out
    final_tensors = final_tensors if isinstance(final_tensors, tuple) else (final_tensors,)
    for tensor, value in zip(final_tensors, finals):
        g.bind(tensor, _squeeze(g, value, 1) if unbatched else value)
    if packed:
        _remember_packed(g, output_tensor.data, output, lengths)
    elif unbatched:
        g.bind(output_tensor, _squeeze(g, output, 1))
    else:
        g.bind(output_tensor, _swap_batch_and_time(g, output, module.batch_first))


def _layers(g, module, x: str, lengths: str, states: list) -> tuple:
    """One ONNX node per layer, each reading the previous one's output. Returns the last
    output (T, B, directions * H) and the final states, each (layers * directions, B, H)."""
    finals = [[] for _ in states]
    for layer in range(module.num_layers):
        inputs = [x, *_layer_weights(g, module, layer), lengths]     # "": no sequence_lens
        inputs += [_layer_slice(g, s, layer, module) for s in states]
        y, *last = g.op(_ONNX_OP[module.mode], _drop_trailing_empty(inputs), 1 + len(states),
                        **_attributes(module))
        x = _merge_directions(g, y, module.num_directions)
        for final, value in zip(finals, last):
            final.append(value)
    return x, [v[0] if len(v) == 1 else g.op("Concat", v, axis=0) for v in finals]


def _check_exportable(module) -> None:
    if module.proj_size:
        raise NotImplementedError(f"ember.onnx.export: LSTM with proj_size="
                                  f"{module.proj_size} has no ONNX mapping (ONNX's LSTM has "
                                  "no projection)")
    if module.training and module.dropout > 0 and module.num_layers > 1:
        raise NotImplementedError("ember.onnx.export: dropout in training mode is not "
                                  "supported; export the model in eval mode")


def _swap_batch_and_time(g, x: str, batch_first: bool) -> str:
    """(B, T, F) <-> (T, B, F) for batch_first layers; ONNX's layers are time-major."""
    return g.op("Transpose", [x], perm=[1, 0, 2]) if batch_first else x


def _unsqueeze(g, value: str, axis: int) -> str:
    return g.op("Unsqueeze", [value, g.ints([axis])])


def _squeeze(g, value: str, axis: int) -> str:
    return g.op("Squeeze", [value, g.ints([axis])])


def _initial_states(g, module, hx, unbatched: bool) -> list:
    """Names of (h0,) or (h0, c0), each (layers * directions, B, H); "" (ONNX's zeros)
    for states not given."""
    count = 2 if module.mode == "LSTM" else 1
    if hx is None:
        return [""] * count
    states = [g.name(s) for s in (hx if isinstance(hx, tuple) else (hx,))]
    return [_unsqueeze(g, s, 1) for s in states] if unbatched else states


def _layer_slice(g, state: str, layer: int, module) -> str:
    """One layer's rows of a (layers * directions, B, H) state."""
    if not state or module.num_layers == 1:
        return state
    start, stop = layer * module.num_directions, (layer + 1) * module.num_directions
    return g.op("Slice", [state, g.ints([start]), g.ints([stop]), g.ints([0])])


def _layer_weights(g, module, layer: int) -> list:
    """W, R and B (or "" without bias) of one layer, each stacked over the directions."""
    directions = [module._layer_weights(layer, suffix)
                  for suffix in ("", "_reverse")[:module.num_directions]]
    w = [_onnx_rows(g, module, weights[0]) for weights in directions]
    r = [_onnx_rows(g, module, weights[1]) for weights in directions]
    stacked = [_stack(g, w), _stack(g, r)]
    if not module.bias:
        return stacked + [""]
    b = [g.op("Concat", [_onnx_rows(g, module, weights[2]), _onnx_rows(g, module, weights[3])],
              axis=0) for weights in directions]
    return stacked + [_stack(g, b)]


def _onnx_rows(g, module, weight) -> str:
    """A weight or bias with its gate blocks in ONNX's order."""
    order = _GATE_ORDER.get(module.mode)
    if order is None:
        return g.name(weight)
    hidden = module.hidden_size
    rows = (np.array(order)[:, None] * hidden + np.arange(hidden)).ravel()
    return g.op("Gather", [g.name(weight), g.ints(rows)], axis=0)


def _stack(g, per_direction: list) -> str:
    """(directions, ...) from one value per direction."""
    parts = [_unsqueeze(g, p, 0) for p in per_direction]
    return parts[0] if len(parts) == 1 else g.op("Concat", parts, axis=0)


def _drop_trailing_empty(inputs: list) -> list:
    """ONNX marks an omitted optional input by "" and lets trailing ones be left out."""
    while inputs and not inputs[-1]:
        inputs = inputs[:-1]
    return inputs


def _attributes(module) -> dict:
    attrs = {"hidden_size": module.hidden_size}
    if module.bidirectional:
        attrs["direction"] = "bidirectional"
    if module.mode == "GRU":
        attrs["linear_before_reset"] = 1
    elif module.mode != "LSTM":
        activation = "Relu" if module.mode == "RNN_RELU" else "Tanh"
        attrs["activations"] = [activation] * module.num_directions
    return attrs


def _merge_directions(g, y: str, directions: int) -> str:
    """ONNX's Y (T, D, B, H) as torch's layer output (T, B, D * H)."""
    if directions == 1:
        return _squeeze(g, y, 1)
    y = g.op("Transpose", [y], perm=[0, 2, 1, 3])
    return g.op("Reshape", [y, g.ints([0, 0, -1])])


# ---------------------------------------------------------------- packed sequences
@symbolic(PackPadded)
def pack_padded_sequence(g, out, input, lengths, batch_first, enforce_sorted):
    """Remember (padded time-major input, int32 lengths) for the layer that reads `out`."""
    if not isinstance(lengths, Tensor):
        raise NotImplementedError("ember.onnx.export: pack_padded_sequence needs 'lengths' "
                                  "as a tensor (a list of lengths would be frozen)")
    padded = _swap_batch_and_time(g, g.name(input), batch_first)
    _remember_packed(g, out[0], padded, g.name(lengths, np.int32))


def _remember_packed(g, data, padded: str, lengths: str) -> None:
    """Keep the graph's form of a packed sequence's data. The data is marked live under a
    name no node produces: any other op reading the packed rows fails the ONNX check."""
    g.packed[id(data)] = (padded, lengths)
    g.bind(data, "packed_sequence_data_is_readable_only_by_rnn_layers")


def _packed_input(g, data) -> tuple:
    found = g.packed.get(id(data))
    if found is None:
        raise NotImplementedError("ember.onnx.export: a packed sequence can be exported only "
                                  "when the model packs it with pack_padded_sequence")
    return found


@symbolic(PadPacked)
def pad_packed_sequence(g, out, data, batch_sizes, sorted_indices, unsorted_indices,
                        batch_first, padding_value, total_length):
    """The layer's padded output (zero past each length, as ONNX writes it) and lengths.
    As with torch.onnx, the output keeps the padded input's time length, where eager mode
    trims it to the longest length (the same whenever one sequence fills the padding)."""
    if padding_value != 0:
        raise NotImplementedError(f"ember.onnx.export: padding_value={padding_value!r} is "
                                  "not supported")
    if total_length is not None:
        raise NotImplementedError(f"ember.onnx.export: total_length={total_length!r} is not "
                                  "supported")
    padded, lengths = _packed_input(g, data)
    g.bind(out[0], _swap_batch_and_time(g, padded, batch_first))
    g.op("Cast", [lengths], out[1], to=onnx_type(np.int64))


def _projections(g, x, h, w_ih, w_hh, b_ih, b_hh) -> tuple:
    """The cell's two Gemms: x W_ih^T + b_ih and h W_hh^T + b_hh."""
    def gemm(a, w, b):
        return g.op("Gemm", [g.name(a), g.name(w)] + ([g.name(b)] if b is not None else []),
                    transB=1)
    return gemm(x, w_ih, b_ih), gemm(h, w_hh, b_hh)


@symbolic(_LstmCell)
def lstm_cell(g, out, x, h, c, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step as the ops it stands for: the gates split in four, sigmoids and tanhs,
    the cell's products and sum."""
    gates = g.op("Add", list(_projections(g, x, h, w_ih, w_hh, b_ih, b_hh)))
    i, f, cell, o = g.op("Split", [gates, g.ints([c.shape[1]] * 4)], 4, axis=1)
    i, f, o = (g.op("Sigmoid", [gate]) for gate in (i, f, o))
    c_next = g.op("Add", [g.op("Mul", [f, g.name(c)]), g.op("Mul", [i, g.op("Tanh", [cell])])],
                  out[1])
    g.op("Mul", [o, g.op("Tanh", [c_next])], out[0])


@symbolic(_GruCell)
def gru_cell(g, out, x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: r and z from both projections, n with r applied to the hidden one,
    h' = (1 - z) n + z h."""
    from_input, from_hidden = _projections(g, x, h, w_ih, w_hh, b_ih, b_hh)
    sizes = g.ints([h.shape[1]] * 3)
    a_r, a_z, a_n = g.op("Split", [from_input, sizes], 3, axis=1)
    b_r, b_z, b_n = g.op("Split", [from_hidden, sizes], 3, axis=1)
    r, z = (g.op("Sigmoid", [g.op("Add", [a, b])]) for a, b in ((a_r, b_r), (a_z, b_z)))
    n = g.op("Tanh", [g.op("Add", [a_n, g.op("Mul", [r, b_n])])])
    one = g.const(1, x.dtype.numpy)
    g.op("Add", [g.op("Mul", [g.op("Sub", [one, z]), n]), g.op("Mul", [z, g.name(h)])], out)


@symbolic(_RnnCell)
def rnn_cell(g, out, x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity):
    """One Elman RNN step: tanh or relu of the two projections' sum."""
    pre = g.op("Add", list(_projections(g, x, h, w_ih, w_hh, b_ih, b_hh)))
    g.op("Tanh" if nonlinearity == "tanh" else "Relu", [pre], out)
