"""Fused recurrent layers: one autograd node per layer and direction.

A recurrent layer is a loop over time of small matrix products; recording every
step as separate ops would cost more in bookkeeping than in arithmetic. So each
layer runs as one primitive: the input projection for all time steps is a single
GEMM, the loop does only the recurrent product and the gate nonlinearities, and
backward is backpropagation through time written directly in NumPy (with the
weight gradients again as single GEMMs over all time steps).

Sequences of different lengths (packed sequences) use a (T, B, 1) mask: a finished
sequence keeps its state and emits zeros. Inputs are time-major (T, B, features).
"""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import STATE as GRAD_STATE

__all__: list = []


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _time_mask(lengths, steps: int, batch: int, dtype):
    if lengths is None:
        return None
    return (np.arange(steps)[:, None] < np.asarray(lengths)[None, :]).astype(dtype)[..., None]


class _Recurrent(Function):
    """Shared driver: subclasses give the cell's step and its backward step.

    forward(x, h0, [c0], w_ih, w_hh, b_ih, b_hh) -> (output (T, B, H), h_T, [c_T])
    """
    gates = 1          # gate blocks stacked in the weight matrices (LSTM 4, GRU 3)
    has_cell = False

    @staticmethod
    def refuse_double_backward(ctx) -> None:
        """The BPTT below is plain NumPy: refuse create_graph rather than drop terms."""
        if GRAD_STATE.enabled:
            raise NotImplementedError(
                f"{ctx.name()}: double backward (create_graph=True) through ember's fused "
                "recurrent layers is not supported; use the cells (LSTMCell, GRUCell, RNNCell) "
                "in a Python loop for higher-order gradients.")

    @classmethod
    def run(cls, x, h0, c0, w_ih, w_hh, b_ih, b_hh, lengths=None, **options):
        args = (x, h0) + ((c0,) if cls.has_cell else ()) + (w_ih, w_hh, b_ih, b_hh)
        return cls.apply(*args, lengths, options)


def _lstm_gate_order(hidden: int) -> np.ndarray:
    """Rows of torch's (i, f, g, o) weight layout reordered to (i, f, o, g), so that the
    three sigmoid gates are one contiguous block."""
    return np.concatenate([np.arange(0, 2 * hidden), np.arange(3 * hidden, 4 * hidden),
                           np.arange(2 * hidden, 3 * hidden)])


class LSTMLayer(_Recurrent):
    backward_name = "LstmBackward0"
    gates = 4
    has_cell = True

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        xd = x._data
        steps, batch = xd.shape[:2]
        hidden = h0._data.shape[-1]
        order = _lstm_gate_order(hidden)
        w_ih_o, w_hh_o = w_ih._data[order], w_hh._data[order]
        proj = xd @ w_ih_o.T
        if b_ih is not None:
            proj += (b_ih._data + b_hh._data)[order]
        mask = _time_mask(lengths, steps, batch, xd.dtype)
        h_all = np.empty((steps + 1, batch, hidden), dtype=xd.dtype)
        c_all = np.empty((steps + 1, batch, hidden), dtype=xd.dtype)
        tanh_c = np.empty((steps, batch, hidden), dtype=xd.dtype)
        acts = np.empty((steps, batch, 4 * hidden), dtype=xd.dtype)   # i, f, o, g
        h_all[0], c_all[0] = h0._data, c0._data
        w_hh_t = w_hh_o.T
        sig = slice(0, 3 * hidden)
        for t in range(steps):
            a = acts[t]
            np.matmul(h_all[t], w_hh_t, out=a)
            a += proj[t]
            # sigmoid(z) = tanh(z / 2) / 2 + 1/2: one tanh call serves all four gates.
            a[:, sig] *= 0.5
            np.tanh(a, out=a)
            a[:, sig] *= 0.5
            a[:, sig] += 0.5
            i, f, o, g = (a[:, k * hidden:(k + 1) * hidden] for k in range(4))
            c = c_all[t + 1]
            np.multiply(f, c_all[t], out=c)
            c += i * g
            if mask is not None:
                np.copyto(c, c_all[t], where=mask[t] == 0)
            np.tanh(c, out=tanh_c[t])
            h = h_all[t + 1]
            np.multiply(o, tanh_c[t], out=h)
            if mask is not None:
                np.copyto(h, h_all[t], where=mask[t] == 0)
        out = h_all[1:] if mask is None else h_all[1:] * mask
        ctx.saved = (xd, w_ih_o, w_hh_o, h_all, c_all, tanh_c, acts, mask, order)
        ctx.has_bias = b_ih is not None
        return out.copy(), h_all[-1].copy(), c_all[-1].copy()

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih_o, w_hh_o, h_all, c_all, tanh_c, acts, mask, order = ctx.saved
        steps = xd.shape[0]
        hidden = h_all.shape[-1]
        g_out, dh, dc = g_out._data, g_h._data.copy(), g_c._data.copy()
        if mask is not None:
            g_out = g_out * mask
        d_gates = np.empty_like(acts)
        for t in range(steps - 1, -1, -1):
            i, f, o, g = (acts[t, :, k * hidden:(k + 1) * hidden] for k in range(4))
            tc = tanh_c[t]
            dh_t = dh + g_out[t]
            dc_t = dh_t * o
            dc_t *= 1 - tc * tc
            dc_t += dc
            d = d_gates[t]
            d_i, d_f, d_o, d_g = (d[:, k * hidden:(k + 1) * hidden] for k in range(4))
            np.multiply(dc_t, g, out=d_i)
            np.multiply(dc_t, c_all[t], out=d_f)
            np.multiply(dh_t, tc, out=d_o)
            s = acts[t, :, :3 * hidden]
            d[:, :3 * hidden] *= s * (1 - s)          # sigmoid' = s (1 - s)
            np.multiply(dc_t, i, out=d_g)
            d_g *= 1 - g * g                          # tanh' = 1 - g^2
            if mask is not None:
                d *= mask[t]
                keep = 1 - mask[t]
                dh = keep * dh_t + d @ w_hh_o
                dc = keep * dc_t + mask[t] * dc_t * f
            else:
                dh = d @ w_hh_o
                dc = dc_t * f
        dx, dw_ih, dw_hh, db_ih, db_hh = _projection_grads(d_gates, d_gates, xd, h_all, w_ih_o,
                                                           ctx.has_bias)
        restore = np.argsort(order)   # back from (i, f, o, g) rows to torch's (i, f, g, o)
        dw_ih, dw_hh = Tensor._wrap(dw_ih._data[restore]), Tensor._wrap(dw_hh._data[restore])
        if db_ih is not None:
            db_ih = Tensor._wrap(db_ih._data[restore])
            db_hh = Tensor._wrap(db_hh._data[restore])
        return dx, Tensor._wrap(dh), Tensor._wrap(dc), dw_ih, dw_hh, db_ih, db_hh, None, None


class GRULayer(_Recurrent):
    backward_name = "GruBackward0"
    gates = 3

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        xd = x._data
        steps, batch = xd.shape[:2]
        hidden = h0._data.shape[-1]
        proj = xd @ w_ih._data.T
        if b_ih is not None:
            proj += b_ih._data
        b_hh_d = b_hh._data if b_hh is not None else np.zeros(3 * hidden, xd.dtype)
        mask = _time_mask(lengths, steps, batch, xd.dtype)
        h_all = np.empty((steps + 1, batch, hidden), dtype=xd.dtype)
        acts = np.empty((steps, batch, 3 * hidden), dtype=xd.dtype)   # r, z, n
        hn_all = np.empty((steps, batch, hidden), dtype=xd.dtype)     # W_hn h + b_hn
        h_all[0] = h0._data
        w_hh_t = w_hh._data.T
        for t in range(steps):
            hw = h_all[t] @ w_hh_t + b_hh_d
            rz = _sigmoid(proj[t, :, :2 * hidden] + hw[:, :2 * hidden])
            r, z = rz[:, :hidden], rz[:, hidden:]
            n = np.tanh(proj[t, :, 2 * hidden:] + r * hw[:, 2 * hidden:])
            h = (1 - z) * n + z * h_all[t]
            if mask is not None:
                h = np.where(mask[t] > 0, h, h_all[t])
            acts[t, :, :2 * hidden], acts[t, :, 2 * hidden:] = rz, n
            hn_all[t] = hw[:, 2 * hidden:]
            h_all[t + 1] = h
        out = h_all[1:] if mask is None else h_all[1:] * mask
        ctx.saved = (xd, w_ih._data, w_hh._data, h_all, acts, hn_all, mask)
        ctx.has_bias = b_ih is not None
        return out.copy(), h_all[-1].copy()

    @staticmethod
    def backward(ctx, g_out, g_h):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih, w_hh, h_all, acts, hn_all, mask = ctx.saved
        steps, batch = xd.shape[:2]
        hidden = h_all.shape[-1]
        g_out, dh = g_out._data, g_h._data.copy()
        if mask is not None:
            g_out = g_out * mask
        d_in = np.empty_like(acts)      # gradient w.r.t. the input projection (x W_ih^T + b_ih)
        d_hw = np.empty_like(acts)      # gradient w.r.t. h W_hh^T + b_hh
        for t in range(steps - 1, -1, -1):
            r, z, n = acts[t, :, :hidden], acts[t, :, hidden:2 * hidden], acts[t, :, 2 * hidden:]
            dh_t = dh + g_out[t]
            dn = dh_t * (1 - z) * (1 - n * n)
            dz = dh_t * (h_all[t] - n) * z * (1 - z)
            dr = dn * hn_all[t] * r * (1 - r)
            d_in[t, :, :hidden], d_in[t, :, hidden:2 * hidden], d_in[t, :, 2 * hidden:] = dr, dz, dn
            d_hw[t, :, :2 * hidden] = d_in[t, :, :2 * hidden]
            d_hw[t, :, 2 * hidden:] = dn * r
            if mask is not None:
                d_in[t] *= mask[t]
                d_hw[t] *= mask[t]
                dh = (1 - mask[t]) * dh_t + mask[t] * dh_t * z + d_hw[t] @ w_hh
            else:
                dh = dh_t * z + d_hw[t] @ w_hh
        grads = _projection_grads(d_in, d_hw, xd, h_all, w_ih, ctx.has_bias)
        return (grads[0], Tensor._wrap(dh)) + grads[1:] + (None, None)


class RNNLayer(_Recurrent):
    """Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""
    backward_name = "RnnTanhBackward0"

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        xd = x._data
        steps, batch = xd.shape[:2]
        relu = options.get("nonlinearity", "tanh") == "relu"
        proj = xd @ w_ih._data.T
        if b_ih is not None:
            proj += b_ih._data + b_hh._data
        mask = _time_mask(lengths, steps, batch, xd.dtype)
        h_all = np.empty((steps + 1, batch, h0._data.shape[-1]), dtype=xd.dtype)
        h_all[0] = h0._data
        w_hh_t = w_hh._data.T
        for t in range(steps):
            pre = proj[t] + h_all[t] @ w_hh_t
            h = np.maximum(pre, 0) if relu else np.tanh(pre)
            h_all[t + 1] = h if mask is None else np.where(mask[t] > 0, h, h_all[t])
        out = h_all[1:] if mask is None else h_all[1:] * mask
        ctx.saved = (xd, w_ih._data, w_hh._data, h_all, mask, relu)
        ctx.has_bias = b_ih is not None
        return out.copy(), h_all[-1].copy()

    @staticmethod
    def backward(ctx, g_out, g_h):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih, w_hh, h_all, mask, relu = ctx.saved
        steps = xd.shape[0]
        g_out, dh = g_out._data, g_h._data.copy()
        if mask is not None:
            g_out = g_out * mask
        d_pre = np.empty(h_all.shape[:1][0:0] + (steps,) + h_all.shape[1:], dtype=h_all.dtype)
        for t in range(steps - 1, -1, -1):
            dh_t = dh + g_out[t]
            h = h_all[t + 1]
            d_pre[t] = dh_t * ((h > 0) if relu else (1 - h * h))
            if mask is not None:
                d_pre[t] *= mask[t]
                dh = (1 - mask[t]) * dh_t + d_pre[t] @ w_hh
            else:
                dh = d_pre[t] @ w_hh
        grads = _projection_grads(d_pre, d_pre, xd, h_all, w_ih, ctx.has_bias)
        return (grads[0], Tensor._wrap(dh)) + grads[1:] + (None, None)


def _projection_grads(d_in, d_hw, xd, h_all, w_ih, has_bias):
    """Gradients of x, W_ih, W_hh, b_ih, b_hh from the per-step gradients of the input
    projection (d_in) and of the recurrent projection (d_hw), each one GEMM over time."""
    steps, batch, width = d_in.shape
    flat_in = d_in.reshape(-1, width)
    flat_hw = d_hw.reshape(-1, width)
    dx = (d_in @ w_ih)
    dw_ih = flat_in.T @ xd.reshape(steps * batch, -1)
    dw_hh = flat_hw.T @ h_all[:-1].reshape(steps * batch, -1)
    db_ih = flat_in.sum(0) if has_bias else None
    db_hh = flat_hw.sum(0) if has_bias else None
    wrap = Tensor._wrap
    return (wrap(dx), wrap(dw_ih), wrap(dw_hh), db_ih if db_ih is None else wrap(db_ih),
            db_hh if db_hh is None else wrap(db_hh))
