"""Fused recurrent layers: one autograd node per layer and direction, and the cell steps
written in ember ops.

A layer's time loop, forward and backpropagation through time, is the `rnn` kernel
family (ember/_cpu/rnn.py, with its numba twin): the layer's node runs the forward
kernel, and its backward is a FusedBackward running the backward kernel. Only when that
gradient is itself differentiated (create_graph=True, then a further grad) does the layer
get rebuilt from the cell steps below, which are ordinary ember ops. The modules
LSTMCell, GRUCell and RNNCell run one fused node per step (rnn_cell.py), built the same way.
"""
from __future__ import annotations

import numpy as np

from ..._cpu import kernels
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from .linear import linear

__all__: list = []


class _Recurrent(Function):
    """Shared driver: forward(x, h0, [c0], w_ih, w_hh, b_ih, b_hh, [w_hr], lengths,
    options) -> (output (T, B, H), h_T, [c_T]); time-major input, one direction."""
    gradients = None        # the layer's _LayerGrads subclass
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
    def keep_inputs(ctx, inputs, lengths, options) -> None:
        """What the backward needs besides the kernel's own record: the input Tensors
        (saved, not copied), the lengths and the options."""
        ctx.save_for_backward(*inputs)
        ctx.lengths, ctx.options = lengths, options

    @staticmethod
    def backward(ctx, *grads):
        grads = type(ctx).gradients.apply(*grads, *ctx._unpacked_saved, ctx.kernel_record,
                                          ctx.lengths, ctx.options, ctx.needs_input_grad[0])
        return grads + (None, None)                  # lengths, options


class _LayerGrads(FusedBackward):
    """A recurrent layer's gradients: forward(*grad_outputs, *layer_inputs, record, lengths,
    options, input_grad) is the rnn family's backpropagation through time on the forward
    kernel's record; `derivative` differentiates the layer rebuilt from cell steps."""
    cell = ""               # "lstm", "gru" or "rnn"
    n_outputs = 2           # the layer's outputs: output, h_T[, c_T]

    @staticmethod
    def forward(ctx, *args):
        *tensors, record, lengths, options, input_grad = args
        ctx.save_for_backward(*tensors)
        ctx.lengths, ctx.options, ctx.input_grad = lengths, options, input_grad
        grad_outputs = tensors[:type(ctx).n_outputs]
        backward = getattr(kernels.family("rnn"), type(ctx).cell + "_backward")
        return tuple(backward(record, *grad_outputs, input_grad))

    @staticmethod
    def derivative(ctx, *saved):
        grad_outputs, inputs = saved[:type(ctx).n_outputs], saved[type(ctx).n_outputs:]
        needs = (ctx.input_grad,) + tuple(t is not None for t in inputs[1:])
        return _gradients_of(lambda *args: composite_layer(type(ctx).cell, *args, ctx.lengths,
                                                           **ctx.options),
                             inputs, grad_outputs, needs)


def _gradients_of(build, inputs, grad_outputs, needs) -> tuple:
    """The gradients of build(*inputs)'s outputs (ember ops, recorded) with respect to the
    inputs `needs` marks (None for the others), themselves differentiable. An input that
    does not require grad itself stands in as a detached copy that does: its gradient is
    still wanted as a function of the others (forward-mode AD's double vjp asks for it)."""
    from ...autograd import grad      # the package's autograd.grad (a layer above)
    inputs = [t.detach().requires_grad_() if need and t is not None and not t.requires_grad
              else t for t, need in zip(inputs, needs)]
    wanted = [t for t, need in zip(inputs, needs) if need and t is not None]
    found = iter(grad(build(*inputs), wanted, grad_outputs, create_graph=True,
                      allow_unused=True))
    return tuple(next(found) if need and t is not None else None
                 for t, need in zip(inputs, needs))


class _LstmGrads(_LayerGrads):
    backward_name = "LstmBackwardBackward0"
    cell = "lstm"
    n_outputs = 3


class _GruGrads(_LayerGrads):
    backward_name = "GruBackwardBackward0"
    cell = "gru"


class _RnnGrads(_LayerGrads):
    backward_name = "RnnTanhBackwardBackward0"
    cell = "rnn"


class LSTMLayer(_Recurrent):
    backward_name = "LstmBackward0"
    gradients = _LstmGrads
    has_cell = True

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths, options):
        _Recurrent.keep_inputs(ctx, (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr), lengths,
                               options)
        *outputs, ctx.kernel_record = kernels.family("rnn").lstm_forward(
            x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths)
        return tuple(outputs)


class GRULayer(_Recurrent):
    backward_name = "GruBackward0"
    gradients = _GruGrads

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        _Recurrent.keep_inputs(ctx, (x, h0, w_ih, w_hh, b_ih, b_hh), lengths, options)
        *outputs, ctx.kernel_record = kernels.family("rnn").gru_forward(
            x, h0, w_ih, w_hh, b_ih, b_hh, lengths)
        return tuple(outputs)


class RNNLayer(_Recurrent):
    """Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""
    backward_name = "RnnTanhBackward0"
    gradients = _RnnGrads

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        _Recurrent.keep_inputs(ctx, (x, h0, w_ih, w_hh, b_ih, b_hh), lengths, options)
        relu = options.get("nonlinearity", "tanh") == "relu"
        *outputs, ctx.kernel_record = kernels.family("rnn").rnn_forward(
            x, h0, w_ih, w_hh, b_ih, b_hh, lengths, relu)
        return tuple(outputs)


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
