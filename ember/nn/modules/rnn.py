"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, packed sequences) and
their single-step cells. Each layer and direction runs as one fused primitive from
ember/nn/functional/rnn.py; the cells are its cell steps, built from ordinary ops."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ...ops.creation import zeros
from .. import functional as F
from .. import init
from ..functional.rnn import GRULayer, LSTMLayer, RNNLayer
from ..functional.rnn_cell import gru_step, lstm_step, rnn_step
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_LAYERS = {"LSTM": LSTMLayer, "GRU": GRULayer, "RNN_TANH": RNNLayer, "RNN_RELU": RNNLayer}


class RNNBase(Module):
    """Parameters `weight_ih_l{k}{_reverse}`, `weight_hh_l{k}{_reverse}`, `bias_ih_...`,
    `bias_hh_...` for every layer k and direction, named and shaped as in torch."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            import warnings
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                          stacklevel=3)
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be an integer greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.bias = num_layers, bias
        self.batch_first, self.dropout = batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        dt = dtype or _dtype.get_default_dtype()
        self._flat_weights_names = []
        self._all_weights = []          # the weight names of each layer and direction
        for layer in range(num_layers):
            for suffix in ("", "_reverse") if bidirectional else ("",):
                self._all_weights.append([])
                layer_input = input_size if layer == 0 else \
                    self._output_size * self.num_directions
                shapes = {"weight_ih": (gate_size, layer_input),
                          "weight_hh": (gate_size, self._output_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size:
                    shapes.update(weight_hr=(proj_size, hidden_size))
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(Tensor._wrap(np.empty(shape, dt.numpy))))
                    self._flat_weights_names.append(name)
                    self._all_weights[-1].append(name)
        self.reset_parameters()

    @property
    def num_directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def _output_size(self) -> int:
        """The size of h: proj_size for an LSTM with projections, else hidden_size."""
        return self.proj_size or self.hidden_size

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, in torch's order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def __getstate__(self) -> dict:
        # torch's RNNBase keeps its weights in a `_flat_weights` list attribute and
        # expects it in a pickle; ember derives it from the names.
        return {**self.__dict__, "_flat_weights": self._flat_weights}

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        state.pop("_flat_weights", None)
        super().__setstate__(state)

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """cuDNN weight compaction in torch; nothing to do on ember's CPU backend."""

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _layer_weights(self, layer: int, suffix: str):
        names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
        weights = [getattr(self, n) for n in names]
        if self.bias:
            weights += [getattr(self, f"bias_ih_l{layer}{suffix}"),
                        getattr(self, f"bias_hh_l{layer}{suffix}")]
        else:
            weights += [None, None]
        if self.mode == "LSTM":
            weights.append(getattr(self, f"weight_hr_l{layer}{suffix}") if self.proj_size
                           else None)
        return weights

    def _check_input(self, x: Tensor, batched: bool) -> None:
        expected = 3 if batched else 2
        if x.ndim != expected:
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{x.ndim}D instead")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {x.shape[-1]}")

    def _initial_state(self, x: Tensor, batch: int, hx):
        layers = self.num_layers * self.num_directions
        shapes = [(layers, batch, self._output_size)]
        if self.mode == "LSTM":
            shapes.append((layers, batch, self.hidden_size))
        if hx is None:
            # a factory (not a wrapped NumPy array): compiled calls replay it at each size
            states = [zeros(shape, dtype=x.dtype) for shape in shapes]
            return tuple(states) if self.mode == "LSTM" else states[0]
        states = hx if isinstance(hx, tuple) else (hx,)
        for k, (s, shape) in enumerate(zip(states, shapes)):
            if tuple(s.shape) != shape:
                which = f"[{k}]" if self.mode == "LSTM" else ""
                raise RuntimeError(f"Expected hidden{which} size {shape}, got {list(s.shape)}")
        return hx

    def _as_hidden(self, hx):
        """hx as forward uses it: LSTM's (h, c) as a tuple (torch takes a list too), the
        others' state as a Tensor."""
        if hx is None:
            return None
        if self.mode == "LSTM":
            if isinstance(hx, (list, tuple)):
                if len(hx) != 2:
                    raise RuntimeError("lstm expects two hidden states")
                return tuple(hx)
            return hx
        if not isinstance(hx, Tensor):
            raise AttributeError(f"'{type(hx).__name__}' object has no attribute 'dim'")
        return hx

    def forward(self, input, hx=None):
        hx = self._as_hidden(hx)
        packed = isinstance(input, PackedSequence)
        lengths = None
        if packed:
            sorted_indices, unsorted_indices = input.sorted_indices, input.unsorted_indices
            x, lengths_t = pad_packed_sequence(input, batch_first=False)
            lengths = lengths_t.numpy()
            if sorted_indices is not None:
                x = x.index_select(1, sorted_indices)
                lengths = lengths[sorted_indices.numpy()]
                if hx is not None:
                    hx = _permute_state(hx, sorted_indices)
            batched = True
        else:
            batched = input.ndim == 3
            self._check_input(input, batched)
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            if not batched and hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if isinstance(hx, tuple) \
                    else hx.unsqueeze(1)
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        state = self._initial_state(x, x.shape[1], hx)
        output, final = self._run(x, state, lengths)
        if packed:
            if unsorted_indices is not None:
                final = _permute_state(final, unsorted_indices)
                output = output.index_select(1, unsorted_indices)
                lengths = lengths[unsorted_indices.numpy()]
            out = pack_padded_sequence(output, Tensor._wrap(np.asarray(lengths)),
                                       enforce_sorted=False)
            return out, final
        if batched and self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(1)
            final = tuple(s.squeeze(1) for s in final) if isinstance(final, tuple) \
                else final.squeeze(1)
        return output, final

    def _run(self, x: Tensor, state, lengths):
        """Run the layers; returns (output (T, B, D*H), final state (L*D, B, H) [, cell])."""
        from ...ops.joining import cat, stack
        lstm = self.mode == "LSTM"
        h0 = state[0] if lstm else state
        c0 = state[1] if lstm else None
        layer_fn = _LAYERS[self.mode]
        options = {"nonlinearity": "relu" if self.mode == "RNN_RELU" else "tanh"}
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction, suffix in enumerate(("", "_reverse")[:self.num_directions]):
                k = layer * self.num_directions + direction
                seq = x if direction == 0 else _reverse(x, lengths)
                result = layer_fn.run(seq, h0[k], c0[k] if lstm else None,
                                      *self._layer_weights(layer, suffix), lengths=lengths,
                                      **options)
                out = result[0] if direction == 0 else _reverse(result[0], lengths)
                outs.append(out)
                finals_h.append(result[1])
                if lstm:
                    finals_c.append(result[2])
            x = outs[0] if len(outs) == 1 else cat(outs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = stack(finals_h)
        return x, ((h_n, stack(finals_c)) if lstm else h_n)


def _reverse(x: Tensor, lengths) -> Tensor:
    """Reverse each sequence in time within its own length (time-major input)."""
    steps = x.shape[0]
    if lengths is None:
        return x.flip(0)
    t = np.arange(steps)[:, None]
    lengths = np.asarray(lengths)[None, :]
    src = np.where(t < lengths, lengths - 1 - t, t)
    batch = np.arange(x.shape[1])[None, :]
    return x[Tensor._wrap(src), Tensor._wrap(np.broadcast_to(batch, src.shape).copy())]


def _permute_state(state, order: Tensor):
    if isinstance(state, tuple):
        return tuple(s.index_select(1, order) for s in state)
    return state.index_select(1, order)


class RNN(RNNBase):
    """Multi-layer Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu); input
    (L, N, H_in), or (N, L, H_in) with batch_first; returns (output, h_n)."""
    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    """Multi-layer long short-term memory RNN with input, forget, cell and output gates; returns
    (output, (h_n, c_n)); proj_size projects the hidden state."""
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Multi-layer gated recurrent unit RNN with reset and update gates; returns (output, h_n)."""
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
    """Common base of RNNCell, LSTMCell and GRUCell: holds weight_ih, weight_hh and the biases."""
    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        dt = (dtype or _dtype.get_default_dtype()).numpy
        self.weight_ih = Parameter(Tensor._wrap(np.empty((num_chunks * hidden_size, input_size),
                                                         dt)))
        self.weight_hh = Parameter(Tensor._wrap(np.empty((num_chunks * hidden_size,
                                                          hidden_size), dt)))
        if bias:
            self.bias_ih = Parameter(Tensor._wrap(np.empty(num_chunks * hidden_size, dt)))
            self.bias_hh = Parameter(Tensor._wrap(np.empty(num_chunks * hidden_size, dt)))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _weights(self) -> tuple:
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def _batched(self, input: Tensor, hx):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        if input.ndim == 1:
            input = input.unsqueeze(0)
            hx = None if hx is None else (tuple(h.unsqueeze(0) for h in hx)
                                          if isinstance(hx, tuple) else hx.unsqueeze(0))
            return input, hx, True
        return input, hx, False

    def _zeros(self, input: Tensor) -> Tensor:
        return zeros((input.shape[0], self.hidden_size), dtype=input.dtype)

    def _check(self, input: Tensor, *states: Tensor) -> None:
        """torch's checks of a cell's input size, and of each state's batch and hidden
        size (the states named hidden0, hidden1 as torch names them)."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        for k, state in enumerate(states):
            if state.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} "
                                   f"batch size {state.shape[0]}")
            if state.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got "
                                   f"{state.shape[1]}, expected {self.hidden_size}")


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None):
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input: Tensor, hx=None) -> Tensor:
        input, hx, unbatched = self._batched(input, hx)
        h = self._zeros(input) if hx is None else hx
        self._check(input, h)
        out = rnn_step(input, h, *self._weights(), self.nonlinearity)
        return out.squeeze(0) if unbatched else out


class LSTMCell(RNNCellBase):
    """One LSTM step: (h, c) and input x to the next (h', c')."""
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx=None):
        input, hx, unbatched = self._batched(input, hx)
        h, c = (self._zeros(input), self._zeros(input)) if hx is None else hx
        self._check(input, h, c)
        h, c = lstm_step(input, h, c, *self._weights())
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One GRU step: hidden state h and input x to the next h'."""
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx=None) -> Tensor:
        input, hx, unbatched = self._batched(input, hx)
        h = self._zeros(input) if hx is None else hx
        self._check(input, h)
        out = gru_step(input, h, *self._weights())
        return out.squeeze(0) if unbatched else out
