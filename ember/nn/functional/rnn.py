"""Fused recurrent layers: one autograd node per layer and direction, and the cell steps
written in ember ops.

A layer's time loop, forward and backpropagation through time, is the `rnn` kernel
family (ember/_cpu/rnn.py, with its numba twin): the node here only unwraps its inputs
and wraps the results. For higher-order gradients (create_graph=True) the backward
instead rebuilds the layer from the cell steps below, which are ordinary ember ops, and
differentiates that; LSTMCell, GRUCell and RNNCell are those same steps.
"""
from __future__ import annotations

import numpy as np

from ..._cpu import kernels
from ..._modes import current as modes
from ..._tensor import Tensor
from ...autograd.function import Function
from .linear import linear

__all__: list = []


def _tensors(arrays):
    return tuple(None if a is None else Tensor._wrap(a) for a in arrays)


def _arrays(grads):
    """The upstream gradients' NumPy arrays, for the backward kernels."""
    return tuple(g.numpy(force=True) for g in grads)


class _Recurrent(Function):
    """Shared driver: forward(x, h0, [c0], w_ih, w_hh, b_ih, b_hh, [w_hr], lengths,
    options) -> (output (T, B, H), h_T, [c_T]); time-major input, one direction."""
    cell = ""               # "lstm", "gru" or "rnn": the steps composite_layer loops over
    has_cell = False

    @classmethod
    def run(cls, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr=None, lengths=None, **options):
        """w_hr: the LSTM's projection of h (proj_size), or None. options: nonlinearity
        ("tanh" or "relu") for the Elman RNN."""
        args = (x, h0) + ((c0,) if cls.has_cell else ()) + (w_ih, w_hh, b_ih, b_hh)
        if cls.has_cell:
            args += (w_hr,)
        return cls.apply(*args, lengths, options)

    @staticmethod
    def differentiate_composite(ctx, grads):
        """Gradients for create_graph=True: rebuild the layer from cell steps in ember ops
        on the node's own inputs and differentiate it with a graph (the fused backward is
        plain arrays)."""
        from ...autograd import grad
        inputs = ctx.saved_tensors
        wanted = [k for k, t in enumerate(inputs) if ctx.needs_input_grad[k]]
        outputs = composite_layer(type(ctx).cell, *inputs, ctx.lengths, **ctx.options)
        found = grad(outputs, [inputs[k] for k in wanted], grads, create_graph=True,
                     allow_unused=True)
        result = [None] * (len(inputs) + 2)           # + lengths, options
        for k, g in zip(wanted, found):
            result[k] = g
        return tuple(result)

    @staticmethod
    def keep_inputs(ctx, inputs, lengths, options) -> None:
        """What differentiate_composite needs: the input Tensors (saved, not copied), the
        lengths and the options."""
        ctx.save_for_backward(*inputs)
        ctx.lengths, ctx.options = lengths, options


class LSTMLayer(_Recurrent):
    backward_name = "LstmBackward0"
    cell = "lstm"
    has_cell = True

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths, options):
        _Recurrent.keep_inputs(ctx, (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr), lengths,
                               options)
        *outputs, ctx.saved = kernels.family("rnn").lstm_forward(
            x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths)
        return tuple(outputs)

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        if modes().grad_enabled:
            return _Recurrent.differentiate_composite(ctx, (g_out, g_h, g_c))
        grads = kernels.family("rnn").lstm_backward(ctx.saved, *_arrays((g_out, g_h, g_c)),
                                                   ctx.needs_input_grad[0])
        return _tensors(grads) + (None, None)


class GRULayer(_Recurrent):
    backward_name = "GruBackward0"
    cell = "gru"

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        _Recurrent.keep_inputs(ctx, (x, h0, w_ih, w_hh, b_ih, b_hh), lengths, options)
        *outputs, ctx.saved = kernels.family("rnn").gru_forward(
            x, h0, w_ih, w_hh, b_ih, b_hh, lengths)
        return tuple(outputs)

    @staticmethod
    def backward(ctx, g_out, g_h):
        if modes().grad_enabled:
            return _Recurrent.differentiate_composite(ctx, (g_out, g_h))
        grads = kernels.family("rnn").gru_backward(ctx.saved, *_arrays((g_out, g_h)),
                                                  ctx.needs_input_grad[0])
        return _tensors(grads) + (None, None)


class RNNLayer(_Recurrent):
    """Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""
    backward_name = "RnnTanhBackward0"
    cell = "rnn"

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        _Recurrent.keep_inputs(ctx, (x, h0, w_ih, w_hh, b_ih, b_hh), lengths, options)
        relu = options.get("nonlinearity", "tanh") == "relu"
        *outputs, ctx.saved = kernels.family("rnn").rnn_forward(
            x, h0, w_ih, w_hh, b_ih, b_hh, lengths, relu)
        return tuple(outputs)

    @staticmethod
    def backward(ctx, g_out, g_h):
        if modes().grad_enabled:
            return _Recurrent.differentiate_composite(ctx, (g_out, g_h))
        grads = kernels.family("rnn").rnn_backward(ctx.saved, *_arrays((g_out, g_h)),
                                                  ctx.needs_input_grad[0])
        return _tensors(grads) + (None, None)


# ---------------------------------------------------------------- cell steps in ember ops
def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One LSTM step: (h', c') from x (B, I), h (B, P), c (B, H); w_hr projects h'."""
    i, f, g, o = (linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else linear(h, w_hr)), c


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    """One GRU step: h' from x (B, I) and h (B, H)."""
    a_r, a_z, a_n = linear(x, w_ih, b_ih).chunk(3, 1)
    b_r, b_z, b_n = linear(h, w_hh, b_hh).chunk(3, 1)
    r = (a_r + b_r).sigmoid()
    z = (a_z + b_z).sigmoid()
    n = (a_n + r * b_n).tanh()
    return (1 - z) * n + z * h


def rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity: str = "tanh"):
    """One Elman RNN step: h' from x (B, I) and h (B, H)."""
    pre = linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)
    if nonlinearity == "tanh":
        return pre.tanh()
    if nonlinearity == "relu":
        return pre.relu()
    raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")


def composite_layer(cell: str, x, h0, *args, nonlinearity: str = "tanh"):
    """The layer of `cell` ("lstm", "gru" or "rnn") as a loop of cell steps in ember ops,
    with the arguments and results of the fused layer's forward: (x, h0, [c0], w_ih,
    w_hh, b_ih, b_hh, [w_hr], lengths) -> (output, h_T, [c_T])."""
    from ...ops.joining import stack
    from ...ops.pointwise.where import where
    *weights, lengths = args
    state = (h0, weights.pop(0)) if cell == "lstm" else (h0,)
    options = {"nonlinearity": nonlinearity} if cell == "rnn" else {}
    step = {"lstm": lstm_cell, "gru": gru_cell, "rnn": rnn_cell}[cell]
    outputs = []
    for t in range(x.shape[0]):
        new = step(x[t], *state, *weights, **options)
        new = new if cell == "lstm" else (new,)
        if lengths is not None:                 # a finished sequence keeps its state
            running = Tensor._wrap(t < np.asarray(lengths)[:, None])
            new = tuple(where(running, n, s) for n, s in zip(new, state))
            outputs.append(where(running, new[0], 0.0))
        else:
            outputs.append(new[0])
        state = new
    return (stack(outputs),) + state
