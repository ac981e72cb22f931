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
    """Rows of torch's (i, f, g, o) weight layout reordered to (o, i, f, g): the three
    sigmoid gates form one block, and (i, f) sit right before g (see LSTMLayer)."""
    return np.roll(np.arange(4 * hidden), hidden)


class LSTMLayer(_Recurrent):
    """The loop works on transposed, feature-major states (H, B): each gate is then a
    contiguous block, so the per-step elementwise calls run on contiguous memory.

    The forward keeps, per step, a (5H, B) block [o, i, f, g, c_prev]; [i, f] * [g, c_prev]
    gives both terms of the new cell in one call. x and a row of ones (for the bias) are
    stacked under h, so one GEMM per step does the recurrent and input projections and one
    GEMM over all steps gives every weight gradient.
    """
    backward_name = "LstmBackward0"
    gates = 4
    has_cell = True

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        xd = x._data
        steps, batch, inputs = xd.shape
        hidden = h0._data.shape[-1]
        # z[t] = [h_t; x_t; 1] (K, B), and weights [W_hh | W_ih | b] in (o, i, f, g) order
        # with the sigmoid rows halved: sigmoid(a) = tanh(a / 2) / 2 + 1/2.
        blocks = [w_hh._data, w_ih._data]
        if b_ih is not None:
            blocks.append((b_ih._data + b_hh._data)[:, None])
        weight = np.concatenate(blocks, axis=1)[_lstm_gate_order(hidden)]
        weight[:3 * hidden] *= 0.5
        z = np.empty((steps + 1, weight.shape[1], batch), dtype=xd.dtype)
        z[0, :hidden] = h0._data.T
        z[:steps, hidden:hidden + inputs] = xd.transpose(0, 2, 1)
        z[:, hidden + inputs:] = 1
        acts = np.empty((steps + 1, 5 * hidden, batch), dtype=xd.dtype)
        acts[0, 4 * hidden:] = c0._data.T
        tanh_c = np.empty((steps, hidden, batch), dtype=xd.dtype)
        pair = np.empty((2 * hidden, batch), dtype=xd.dtype)
        mask = _time_mask(lengths, steps, batch, xd.dtype)
        keep = None if mask is None else mask.transpose(0, 2, 1) == 0    # (T, 1, B)
        for t in range(steps):
            a = acts[t]
            np.matmul(weight, z[t], out=a[:4 * hidden])
            np.tanh(a[:4 * hidden], out=a[:4 * hidden])
            a[:3 * hidden] *= 0.5
            a[:3 * hidden] += 0.5
            np.multiply(a[hidden:3 * hidden], a[3 * hidden:], out=pair)   # i g, f c_prev
            c = acts[t + 1, 4 * hidden:]
            np.add(pair[:hidden], pair[hidden:], out=c)
            if keep is not None:
                np.copyto(c, a[4 * hidden:], where=keep[t])
            np.tanh(c, out=tanh_c[t])
            h = z[t + 1, :hidden]
            np.multiply(a[:hidden], tanh_c[t], out=h)
            if keep is not None:
                np.copyto(h, z[t, :hidden], where=keep[t])
        out = z[1:, :hidden].transpose(0, 2, 1)
        out = np.ascontiguousarray(out) if mask is None else out * mask
        ctx.saved = (xd, w_ih._data, w_hh._data, z, acts, tanh_c, mask)
        ctx.has_bias = b_ih is not None
        return out, z[steps, :hidden].T.copy(), acts[steps, 4 * hidden:].T.copy()

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih, w_hh, z, acts, tanh_c, mask = ctx.saved
        steps, batch, inputs = xd.shape
        hidden = w_hh.shape[1]
        if mask is not None:
            g_out = g_out._data * mask
        else:
            g_out = g_out._data
        g_out = np.ascontiguousarray(g_out.transpose(0, 2, 1))
        factors, carry = _lstm_backward_factors(acts, tanh_c, mask)
        # Per step, d[t] = [d_i, d_f, d_g, d_o, dc_t] (torch's gate order, then the cell).
        d = np.empty((steps, 5 * hidden, batch), dtype=acts.dtype)
        dh, dc = g_h._data.T.copy(), g_c._data.T.copy()
        dh_next = np.empty_like(dh)
        w_hh_t = np.ascontiguousarray(w_hh.T)
        keep = None if mask is None else mask.transpose(0, 2, 1) == 0
        for t in range(steps - 1, -1, -1):
            dt = d[t]
            dh += g_out[t]
            # [d_o, dc_t] = dh * [tanh(c) sigmoid'(o), o tanh'(c)], then dc_t += dc
            np.multiply(dh, factors[t, 3 * hidden:].reshape(2, hidden, batch),
                        out=dt[3 * hidden:].reshape(2, hidden, batch))
            dc_t = dt[4 * hidden:]
            dc_t += dc
            np.multiply(dc_t, factors[t, :3 * hidden].reshape(3, hidden, batch),
                        out=dt[:3 * hidden].reshape(3, hidden, batch))
            np.multiply(dc_t, carry[t], out=dc)
            np.matmul(w_hh_t, dt[:4 * hidden], out=dh_next)
            if keep is not None:
                np.copyto(dh_next, dh, where=keep[t])
            dh, dh_next = dh_next, dh
        gates = np.ascontiguousarray(d[:, :4 * hidden].transpose(1, 0, 2))
        gates = gates.reshape(4 * hidden, steps * batch)
        rows = np.ascontiguousarray(z[:steps].transpose(0, 2, 1)).reshape(steps * batch, -1)
        dw = gates @ rows                         # [dW_hh | dW_ih | db]
        dx = (gates.T @ w_ih).reshape(steps, batch, inputs)
        wrap = Tensor._wrap
        dw_hh = wrap(np.ascontiguousarray(dw[:, :hidden]))
        dw_ih = wrap(np.ascontiguousarray(dw[:, hidden:hidden + inputs]))
        db_ih = db_hh = None
        if ctx.has_bias:
            db_ih, db_hh = wrap(dw[:, -1].copy()), wrap(dw[:, -1].copy())
        return (wrap(dx), wrap(dh.T.copy()), wrap(dc.T.copy()), dw_ih, dw_hh, db_ih, db_hh,
                None, None)


def _lstm_backward_factors(acts, tanh_c, mask):
    """Per-step factors of the LSTM backward that do not depend on the recurrence, for all
    steps at once: (T, 5H, B) rows [g si', c_prev sf', i tanh'(g), tanh(c) so', o tanh'(c)]
    (x' the derivative of the gate's activation), and the cell's carry factor f.
    A masked step passes dc on unchanged and contributes no gate gradient."""
    steps, hidden = tanh_c.shape[:2]
    a = acts[:steps]
    o, i, f, g = (a[:, k * hidden:(k + 1) * hidden] for k in range(4))
    slope = 1 - a[:, :3 * hidden]
    slope *= a[:, :3 * hidden]                  # sigmoid' = s (1 - s), rows o, i, f
    factors = np.empty((steps, 5 * hidden) + tanh_c.shape[2:], dtype=acts.dtype)
    np.multiply(slope[:, hidden:], a[:, 3 * hidden:], out=factors[:, :2 * hidden])
    _times_tanh_slope(i, g, out=factors[:, 2 * hidden:3 * hidden])
    np.multiply(slope[:, :hidden], tanh_c, out=factors[:, 3 * hidden:4 * hidden])
    _times_tanh_slope(o, tanh_c, out=factors[:, 4 * hidden:])
    if mask is None:
        return factors, f
    valid = mask.transpose(0, 2, 1)
    factors *= valid
    return factors, np.where(valid > 0, f, 1)


def _times_tanh_slope(scale, th, out):
    """out = scale * (1 - th^2): the tanh derivative at the point whose tanh is th."""
    np.multiply(th, th, out=out)
    np.subtract(1, out, out=out)
    out *= scale


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
