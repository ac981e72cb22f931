"""The recurrent cells as one autograd node per step (nn.LSTMCell, GRUCell, RNNCell).

Programs call cells in Python loops of hundreds of steps (pytorch/examples'
time_sequence_prediction runs two LSTMCells over 1000 steps), where the cell written in
ember ops (rnn.py) records 8 to 16 nodes a step. Each fused cell computes the two
projections x W_ih^T + b_ih and h W_hh^T + b_hh, then the cell's pointwise steps with the
ops' arithmetic; its backward applies each op's derivative rule in the ops' order (a
FusedBackward: differentiated again, the cell is rebuilt from ops).

`lstm_step`, `gru_step` and `rnn_step` take the fused node for float32/float64 operands
of one dtype outside autocast, and the cell in ops otherwise (which also gives torch's
errors for mismatched dtypes).
"""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._cpu import buffers
from ...amp.autocast_mode import is_autocast_enabled
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from ...ops.pointwise.unary import relu_array
from ._bias_grad import bias_grad
from .rnn import _gradients_of, gru_cell, lstm_cell, rnn_cell

__all__: list = []


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 0.5 * np.tanh(0.5 * a) + 0.5          # ember's sigmoid op


def _projections(x, h, w_ih, w_hh, b_ih, b_hh) -> tuple:
    """(x W_ih^T + b_ih, h W_hh^T + b_hh), as F.linear computes each."""
    from_input, from_hidden = buffers.matmul(x, w_ih.T), buffers.matmul(h, w_hh.T)
    if b_ih is not None:
        from_input += b_ih
        from_hidden += b_hh
    return from_input, from_hidden


def _projection_grads(grad_input_side, grad_hidden_side, x, h, w_ih, w_hh, needs) -> tuple:
    """The gradients of (x, h, w_ih, w_hh, b_ih, b_hh) from those of the two projections,
    each None unless `needs` asks for it (h's is the projection's share only)."""
    need_x, need_h, need_w_ih, need_w_hh, need_b_ih, need_b_hh = needs
    return (buffers.matmul(grad_input_side, w_ih) if need_x else None,
            buffers.matmul(grad_hidden_side, w_hh) if need_h else None,
            buffers.matmul(grad_input_side.T, x) if need_w_ih else None,
            buffers.matmul(grad_hidden_side.T, h) if need_w_hh else None,
            bias_grad(grad_input_side, 1) if need_b_ih else None,
            bias_grad(grad_hidden_side, 1) if need_b_hh else None)


class _CellGrads(FusedBackward):
    """A fused cell's gradients: forward(*grads, *cell inputs, activations, needs) in
    NumPy; `derivative` rebuilds the cell from ops (`cell`)."""
    n_outputs = 1
    cell = None

    @classmethod
    def start(cls, ctx, tensors: tuple, needs: tuple) -> None:
        ctx.save_for_backward(*tensors)
        ctx.needs = needs

    @staticmethod
    def derivative(ctx, *saved):
        n = type(ctx).n_outputs
        return _gradients_of(type(ctx).cell, saved[n:], saved[:n], ctx.needs)


def _fused_operands(*tensors) -> bool:
    """Whether the fused cells can take these operands (None entries skipped)."""
    present = [t for t in tensors if t is not None]
    dtype = present[0].dtype
    return (dtype in (_dtype.float32, _dtype.float64) and not is_autocast_enabled("cpu")
            and all(t.dtype is dtype for t in present)
            and (tensors[-1] is None) == (tensors[-2] is None))


# ---------------------------------------------------------------- LSTM
class _LstmCell(Function):
    """(x, h, c, w_ih, w_hh, b_ih, b_hh) -> (h', c') in torch's gate order (i, f, g, o)."""
    backward_name = "LstmCellBackward0"

    @staticmethod
    def forward(ctx, x, h, c, w_ih, w_hh, b_ih, b_hh):
        ctx.save_for_backward(x, h, c, w_ih, w_hh, b_ih, b_hh)
        gates, from_hidden = _projections(x, h, w_ih, w_hh, b_ih, b_hh)
        gates += from_hidden
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, o, g = _sigmoid(i), _sigmoid(f), _sigmoid(o), np.tanh(g)
        c_next = f * c + i * g
        tanh_c = np.tanh(c_next)
        ctx.activations = (i, f, g, o, tanh_c)
        return o * tanh_c, c_next

    @staticmethod
    def backward(ctx, grad_h, grad_c):
        return _LstmCellGrads.apply(grad_h, grad_c, *ctx._unpacked_saved, ctx.activations,
                                    ctx.needs_input_grad)


class _LstmCellGrads(_CellGrads):
    backward_name = "LstmCellBackwardBackward0"
    n_outputs = 2
    cell = staticmethod(lstm_cell)

    @staticmethod
    def forward(ctx, grad_h, grad_c, x, h, c, w_ih, w_hh, b_ih, b_hh, activations, needs):
        _CellGrads.start(ctx, (grad_h, grad_c, x, h, c, w_ih, w_hh, b_ih, b_hh), needs)
        i, f, g, o, tanh_c = activations
        grad_c = grad_h * o * (1 - tanh_c * tanh_c) + grad_c
        grad_gates = np.concatenate([grad_c * g * i * (1 - i), grad_c * c * f * (1 - f),
                                     grad_c * i * (1 - g * g), grad_h * tanh_c * o * (1 - o)],
                                    axis=1)
        grads = _projection_grads(grad_gates, grad_gates, x, h, w_ih, w_hh,
                                  needs[:2] + needs[3:])
        return grads[:2] + (grad_c * f if needs[2] else None,) + grads[2:]


def lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One LSTM step: (h', c')."""
    if _fused_operands(x, h, c, w_ih, w_hh, b_ih, b_hh):
        return _LstmCell.apply(x, h, c, w_ih, w_hh, b_ih, b_hh)
    return lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh)


# ---------------------------------------------------------------- GRU
class _GruCell(Function):
    """(x, h, w_ih, w_hh, b_ih, b_hh) -> h', gates (r, z, n), the reset gate applied to the
    hidden projection, as torch's."""
    backward_name = "GruCellBackward0"

    @staticmethod
    def forward(ctx, x, h, w_ih, w_hh, b_ih, b_hh):
        ctx.save_for_backward(x, h, w_ih, w_hh, b_ih, b_hh)
        from_input, from_hidden = _projections(x, h, w_ih, w_hh, b_ih, b_hh)
        a_r, a_z, a_n = np.split(from_input, 3, axis=1)
        b_r, b_z, b_n = np.split(from_hidden, 3, axis=1)
        r, z = _sigmoid(a_r + b_r), _sigmoid(a_z + b_z)
        n = np.tanh(a_n + r * b_n)
        ctx.activations = (r, z, n, b_n)
        return (1 - z) * n + z * h

    @staticmethod
    def backward(ctx, grad):
        return _GruCellGrads.apply(grad, *ctx._unpacked_saved, ctx.activations,
                                   ctx.needs_input_grad)


class _GruCellGrads(_CellGrads):
    backward_name = "GruCellBackwardBackward0"
    cell = staticmethod(gru_cell)

    @staticmethod
    def forward(ctx, grad, x, h, w_ih, w_hh, b_ih, b_hh, activations, needs):
        _CellGrads.start(ctx, (grad, x, h, w_ih, w_hh, b_ih, b_hh), needs)
        r, z, n, b_n = activations
        grad_n = grad * (1 - z) * (1 - n * n)
        grad_z = (grad * h - grad * n) * z * (1 - z)
        grad_r = grad_n * b_n * r * (1 - r)
        grads = _projection_grads(np.concatenate([grad_r, grad_z, grad_n], axis=1),
                                  np.concatenate([grad_r, grad_z, grad_n * r], axis=1),
                                  x, h, w_ih, w_hh, needs)
        grad_h = grads[1] + grad * z if needs[1] else None
        return (grads[0], grad_h) + grads[2:]


def gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    """One GRU step: h'."""
    if _fused_operands(x, h, w_ih, w_hh, b_ih, b_hh):
        return _GruCell.apply(x, h, w_ih, w_hh, b_ih, b_hh)
    return gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)


# ---------------------------------------------------------------- Elman RNN
class _RnnCell(Function):
    """(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity) -> h' = tanh or relu of the sum of the
    projections."""
    backward_name = "RnnCellBackward0"

    @staticmethod
    def forward(ctx, x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity):
        ctx.save_for_backward(x, h, w_ih, w_hh, b_ih, b_hh)
        ctx.nonlinearity = nonlinearity
        pre, from_hidden = _projections(x, h, w_ih, w_hh, b_ih, b_hh)
        pre += from_hidden
        ctx.result = np.tanh(pre) if nonlinearity == "tanh" else relu_array(pre)
        return ctx.result

    @staticmethod
    def backward(ctx, grad):
        return _RnnCellGrads.apply(grad, *ctx._unpacked_saved, ctx.result, ctx.nonlinearity,
                                   ctx.needs_input_grad[:6]) + (None,)


class _RnnCellGrads(_CellGrads):
    backward_name = "RnnCellBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, x, h, w_ih, w_hh, b_ih, b_hh, result, nonlinearity, needs):
        _CellGrads.start(ctx, (grad, x, h, w_ih, w_hh, b_ih, b_hh), needs)
        ctx.nonlinearity = nonlinearity
        grad_pre = grad * (1 - result * result) if nonlinearity == "tanh" else \
            np.where(result <= 0, result.dtype.type(0), grad)
        return _projection_grads(grad_pre, grad_pre, x, h, w_ih, w_hh, needs)

    @staticmethod
    def derivative(ctx, grad, *inputs):
        return _gradients_of(lambda *args: rnn_cell(*args, ctx.nonlinearity), inputs, (grad,),
                             ctx.needs)


def rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity: str):
    """One Elman RNN step: h'."""
    if nonlinearity in ("tanh", "relu") and _fused_operands(x, h, w_ih, w_hh, b_ih, b_hh):
        return _RnnCell.apply(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity)
    return rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity)
