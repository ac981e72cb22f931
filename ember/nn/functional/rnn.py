"""Fused recurrent layers: one autograd node per layer and direction.

A recurrent layer is a loop over time of small matrix products; recording every
step as separate ops would cost more in bookkeeping than in arithmetic. So each
layer runs as one primitive, with backward as backpropagation through time written
directly in NumPy.

Layout: the loops work on transposed, feature-major states (H, B), so that every gate
is a contiguous block and the per-step elementwise calls run on contiguous memory. The
layer input and a row of ones (for the biases) are stacked under the hidden state,
z[t] = [h_t; x_t; 1] of shape (K, B): one GEMM per step computes the recurrent and the
input projections, and one GEMM over all time steps gives every weight and bias gradient.
The sigmoid gates' weight rows are halved once per call, since
sigmoid(a) = tanh(a / 2) / 2 + 1/2. The backward first computes, for all steps at once,
the factors that do not depend on the recurrence, so that its loop is a few calls.

Sequences of different lengths (packed sequences) use a (T, B, 1) mask: a finished
sequence keeps its state and emits zeros. Inputs are time-major (T, B, features).
"""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...autograd.function import Function
from ..._modes import current as modes

__all__: list = []


def _time_mask(lengths, steps: int, batch: int, dtype):
    if lengths is None:
        return None
    return (np.arange(steps)[:, None] < np.asarray(lengths)[None, :]).astype(dtype)[..., None]


class _Recurrent(Function):
    """Shared driver: subclasses give the cell's forward loop and its backward.

    forward(x, h0, [c0], w_ih, w_hh, b_ih, b_hh) -> (output (T, B, H), h_T, [c_T])
    """
    gates = 1          # gate blocks stacked in the weight matrices (LSTM 4, GRU 3)
    has_cell = False

    @staticmethod
    def refuse_double_backward(ctx) -> None:
        """The BPTT below is plain NumPy: refuse create_graph rather than drop terms."""
        if modes().grad_enabled:
            raise NotImplementedError(
                f"{ctx.name()}: double backward (create_graph=True) through ember's fused "
                "recurrent layers is not supported; use the cells (LSTMCell, GRUCell, RNNCell) "
                "in a Python loop for higher-order gradients.")

    @classmethod
    def run(cls, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr=None, lengths=None, **options):
        """w_hr: the LSTM's projection of h (proj_size), or None."""
        args = (x, h0) + ((c0,) if cls.has_cell else ()) + (w_ih, w_hh, b_ih, b_hh)
        if cls.has_cell:
            args += (w_hr,)
        return cls.apply(*args, lengths, options)


def _stacked_inputs(xd, h0, has_bias: bool):
    """z (T + 1, K, B) with z[t] = [h_t; x_t; 1]; the loop fills in h_1 .. h_T."""
    steps, batch, inputs = xd.shape
    hidden = h0.shape[-1]
    z = np.empty((steps + 1, hidden + inputs + has_bias, batch), dtype=xd.dtype)
    z[0, :hidden] = h0.T
    z[:steps, hidden:hidden + inputs] = xd.transpose(0, 2, 1)
    if has_bias:
        z[:, -1] = 1
    return z


def _masks(lengths, xd):
    """(mask (T, B, 1), keep (T, 1, B)), both None for sequences of equal length."""
    mask = _time_mask(lengths, xd.shape[0], xd.shape[1], xd.dtype)
    return mask, _keep(mask)


def _keep(mask):
    """(T, 1, B): True where a finished sequence holds its state."""
    return None if mask is None else mask.transpose(0, 2, 1) == 0


def _outputs(z, hidden, mask):
    """Output (T, B, H) (zero past each sequence's end) and the final state h_T."""
    out = np.ascontiguousarray(z[1:, :hidden].transpose(0, 2, 1))
    if mask is not None:
        out *= mask
    return out, z[-1, :hidden].T.copy()


def _output_grad(g_out, mask):
    """The output's gradient as (T, H, B), zero past each sequence's end."""
    g_out = g_out._data if mask is None else g_out._data * mask
    return np.ascontiguousarray(g_out.transpose(0, 2, 1))


def _weight_grads(d_rows, z):
    """sum_t d_rows[t] z[t]^T, i.e. the gradients of all columns [W_hh | W_ih | b] of the
    stacked weight; also returns d_rows flattened to (rows, T B) for the input gradient."""
    steps, width, batch = d_rows.shape
    flat = np.ascontiguousarray(d_rows.transpose(1, 0, 2)).reshape(width, steps * batch)
    stacked = np.ascontiguousarray(z[:steps].transpose(0, 2, 1)).reshape(steps * batch, -1)
    return flat @ stacked, flat


def _input_grad(ctx, flat, w_ih, xd):
    """dL/dx from the (rows, T B) gradient of the input projection's rows (None when x,
    e.g. the data fed to the first layer, needs no gradient)."""
    if not ctx.needs_input_grad[0]:
        return None
    return Tensor._wrap((flat.T @ w_ih).reshape(xd.shape))


def _split_weight_grad(dw, hidden, inputs, has_bias, hh_rows=slice(None), ih_rows=slice(None)):
    """(dW_ih, dW_hh, db_ih, db_hh) from the stacked gradient; hh_rows / ih_rows pick the
    rows that belong to each weight."""
    dw_hh = np.ascontiguousarray(dw[hh_rows, :hidden])
    dw_ih = np.ascontiguousarray(dw[ih_rows, hidden:hidden + inputs])
    db_ih = db_hh = None
    if has_bias:
        db_ih, db_hh = Tensor._wrap(dw[ih_rows, -1].copy()), Tensor._wrap(dw[hh_rows, -1].copy())
    return Tensor._wrap(dw_ih), Tensor._wrap(dw_hh), db_ih, db_hh


def _times_tanh_slope(scale, th, out):
    """out = scale * (1 - th^2): the tanh derivative at the point whose tanh is th."""
    np.multiply(th, th, out=out)
    np.subtract(1, out, out=out)
    out *= scale


def _tanh_to_sigmoid(a) -> None:
    """In place: a = a / 2 + 1/2, which turns tanh(u) into sigmoid(2 u)."""
    a *= 0.5
    a += 0.5


def _stacked_weight(w_ih, w_hh, b_ih, b_hh, shift: int = 0):
    """[W_hh | W_ih | b_ih + b_hh], the weight that multiplies z[t] = [h_t; x_t; 1], with
    its rows rotated by `shift` (the last `shift` rows first)."""
    w_ih, w_hh = w_ih._data, w_hh._data
    (rows, hidden), inputs = w_hh.shape, w_ih.shape[1]
    weight = np.empty((rows, hidden + inputs + (b_ih is not None)), dtype=w_hh.dtype)
    blocks = [(weight[:, :hidden], w_hh), (weight[:, hidden:hidden + inputs], w_ih)]
    if b_ih is not None:
        blocks.append((weight[:, -1], b_ih._data + b_hh._data))
    for dst, src in blocks:
        dst[:shift], dst[shift:] = src[rows - shift:], src[:rows - shift]
    return weight


class LSTMLayer(_Recurrent):
    """Weight rows reordered from torch's (i, f, g, o) to (o, i, f, g). The forward keeps,
    per step, a (5H, B) block [o, i, f, g, c_prev]: [i, f] * [g, c_prev] then gives both
    terms of the new cell in one call. With a projection (proj_size P), the state fed
    back and output is h = W_hr (o * tanh(c)), of size P instead of H."""
    backward_name = "LstmBackward0"
    gates = 4
    has_cell = True

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths, options):
        xd = x._data
        steps, batch = xd.shape[:2]
        hidden, out_size = c0._data.shape[-1], h0._data.shape[-1]
        weight = _stacked_weight(w_ih, w_hh, b_ih, b_hh, shift=hidden)    # (o, i, f, g)
        weight[:3 * hidden] *= 0.5
        z = _stacked_inputs(xd, h0._data, b_ih is not None)
        acts = np.empty((steps + 1, 5 * hidden, batch), dtype=xd.dtype)
        acts[0, 4 * hidden:] = c0._data.T
        tanh_c = np.empty((steps, hidden, batch), dtype=xd.dtype)
        pair = np.empty((2 * hidden, batch), dtype=xd.dtype)
        mask, keep = _masks(lengths, xd)
        for t in range(steps):
            a = acts[t]
            np.matmul(weight, z[t], out=a[:4 * hidden])
            np.tanh(a[:4 * hidden], out=a[:4 * hidden])
            _tanh_to_sigmoid(a[:3 * hidden])
            np.multiply(a[hidden:3 * hidden], a[3 * hidden:], out=pair)   # i g, f c_prev
            c = acts[t + 1, 4 * hidden:]
            np.add(pair[:hidden], pair[hidden:], out=c)
            if keep is not None:
                np.copyto(c, a[4 * hidden:], where=keep[t])
            np.tanh(c, out=tanh_c[t])
            h = z[t + 1, :out_size]
            if w_hr is None:
                np.multiply(a[:hidden], tanh_c[t], out=h)
            else:
                np.matmul(w_hr._data, a[:hidden] * tanh_c[t], out=h)
            if keep is not None:
                np.copyto(h, z[t, :out_size], where=keep[t])
        ctx.saved = (xd, w_ih._data, w_hh._data, None if w_hr is None else w_hr._data, z,
                     acts, tanh_c, mask)
        ctx.has_bias = b_ih is not None
        return _outputs(z, out_size, mask) + (acts[steps, 4 * hidden:].T.copy(),)

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih, w_hh, w_hr, z, acts, tanh_c, mask = ctx.saved
        steps, batch = xd.shape[:2]
        hidden, out_size = tanh_c.shape[1], w_hh.shape[1]
        g_out = _output_grad(g_out, mask)
        factors, carry = _lstm_backward_factors(acts, tanh_c, mask)
        # With a projection, dh (P, B) reaches the cell as W_hr^T dh; dhs keeps each
        # step's dh for W_hr's gradient.
        dhs = None if w_hr is None else np.empty((steps, out_size, batch), acts.dtype)
        # Per step, d[t] = [d_i, d_f, d_g, d_o, dc_t] (torch's gate order, then the cell).
        d = np.empty((steps, 5 * hidden, batch), dtype=acts.dtype)
        d_blocks, f_blocks = (a.reshape(steps, 5, hidden, batch) for a in (d, factors))
        dh, dc = g_h._data.T.copy(), g_c._data.T.copy()
        dh_next = np.empty_like(dh)
        w_hh_t = np.ascontiguousarray(w_hh.T)
        keep = _keep(mask)
        for t in range(steps - 1, -1, -1):
            dh += g_out[t]
            dh_cell = dh
            if w_hr is not None:
                dhs[t] = dh
                dh_cell = w_hr.T @ dh
            # [d_o, dc_t] = dh * [tanh(c) sigmoid'(o), o tanh'(c)], then dc_t += dc
            np.multiply(dh_cell, f_blocks[t, 3:], out=d_blocks[t, 3:])
            dc_t = d_blocks[t, 4]
            dc_t += dc
            np.multiply(dc_t, f_blocks[t, :3], out=d_blocks[t, :3])
            np.multiply(dc_t, carry[t], out=dc)
            np.matmul(w_hh_t, d[t, :4 * hidden], out=dh_next)
            if keep is not None:
                np.copyto(dh_next, dh, where=keep[t])
            dh, dh_next = dh_next, dh
        dw, flat = _weight_grads(d[:, :4 * hidden], z)
        grads = _split_weight_grad(dw, out_size, xd.shape[2], ctx.has_bias)
        dw_hr = None
        if w_hr is not None:       # sum_t dh_t (o tanh(c))_t^T over the steps computed
            cell_out = acts[:steps, :hidden] * tanh_c
            if mask is not None:
                cell_out *= mask.transpose(0, 2, 1)
            dw_hr = Tensor._wrap(np.tensordot(dhs, cell_out, axes=([0, 2], [0, 2])))
        return ((_input_grad(ctx, flat, w_ih, xd), Tensor._wrap(dh.T.copy()),
                 Tensor._wrap(dc.T.copy())) + grads + (dw_hr, None, None))


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


class GRULayer(_Recurrent):
    """The stacked weight has four row blocks for [W_hn h + b_hn, a_r, a_z, W_in x + b_in]
    (r and z halved for the tanh form of the sigmoid); the first three use W_hh's rows,
    the last three W_ih's. The last block does not depend on h, so it is computed for all
    steps before the loop; n = tanh(x_n + r h_n) then overwrites it."""
    backward_name = "GruBackward0"
    gates = 3

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        xd = x._data
        steps, batch = xd.shape[:2]
        hidden = h0._data.shape[-1]
        weight = _gru_weight(w_ih, w_hh, b_ih, b_hh)
        z = _stacked_inputs(xd, h0._data, b_ih is not None)
        acts = np.empty((steps, 4 * hidden, batch), dtype=xd.dtype)    # h_n, r, z, n
        np.matmul(weight[3 * hidden:, hidden:], z[:steps, hidden:], out=acts[:, 3 * hidden:])
        mask, keep = _masks(lengths, xd)
        for t in range(steps):
            a = acts[t]
            np.matmul(weight[:3 * hidden], z[t], out=a[:3 * hidden])
            np.tanh(a[hidden:3 * hidden], out=a[hidden:3 * hidden])
            _tanh_to_sigmoid(a[hidden:3 * hidden])
            n = a[3 * hidden:]
            h, h_new = z[t, :hidden], z[t + 1, :hidden]
            np.multiply(a[hidden:2 * hidden], a[:hidden], out=h_new)
            n += h_new
            np.tanh(n, out=n)
            np.subtract(h, n, out=h_new)          # h' = n + z (h - n)
            h_new *= a[2 * hidden:3 * hidden]
            h_new += n
            if keep is not None:
                np.copyto(h_new, h, where=keep[t])
        ctx.saved = (xd, w_ih._data, w_hh._data, z, acts, mask)
        ctx.has_bias = b_ih is not None
        return _outputs(z, hidden, mask)

    @staticmethod
    def backward(ctx, g_out, g_h):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih, w_hh, z, acts, mask = ctx.saved
        steps, batch = xd.shape[:2]
        hidden = w_hh.shape[1]
        g_out = _output_grad(g_out, mask)
        factors = _gru_backward_factors(acts, z[:steps, :hidden], mask)
        # Per step, d[t] = dh_t * factors[t] = [d h_n, d a_r, d a_z, d x_n, dh_t z].
        d = np.empty_like(factors)
        d_blocks, f_blocks = (a.reshape(steps, 5, hidden, batch) for a in (d, factors))
        dh = g_h._data.T.copy()
        w_hh_t = np.ascontiguousarray(np.roll(w_hh, hidden, axis=0).T)   # rows (n, r, z)
        for t in range(steps - 1, -1, -1):
            dh += g_out[t]
            np.multiply(dh, f_blocks[t], out=d_blocks[t])
            np.matmul(w_hh_t, d[t, :3 * hidden], out=dh)
            dh += d[t, 4 * hidden:]
        dw, flat = _weight_grads(d[:, :4 * hidden], z)
        hh_rows = np.roll(np.arange(3 * hidden), -hidden)     # back to torch's (r, z, n)
        grads = _split_weight_grad(dw, hidden, xd.shape[2], ctx.has_bias, hh_rows,
                                   slice(hidden, None))
        return ((_input_grad(ctx, flat[hidden:], w_ih, xd), Tensor._wrap(dh.T.copy())) + grads
                + (None, None))


def _gru_weight(w_ih, w_hh, b_ih, b_hh):
    """The stacked (4H, K) weight of GRULayer: rows [h_n, r, z, x_n], columns [h, x, 1]."""
    w_ih, w_hh = w_ih._data, w_hh._data
    hidden, inputs = w_hh.shape[1], w_ih.shape[1]
    weight = np.zeros((4 * hidden, hidden + inputs + (b_ih is not None)), dtype=w_ih.dtype)
    weight[:3 * hidden, :hidden] = np.roll(w_hh, hidden, axis=0)
    weight[hidden:, hidden:hidden + inputs] = w_ih
    if b_ih is not None:
        weight[:3 * hidden, -1] = np.roll(b_hh._data, hidden)
        weight[hidden:, -1] += b_ih._data
    weight[hidden:3 * hidden] *= 0.5
    return weight


def _gru_backward_factors(acts, h_prev, mask):
    """Per-step factors of the GRU backward for all steps at once: every gradient of the
    step is dh_t times one of the rows [dn r, dn h_n r', (h - n) z', dn, z], where
    dn = (1 - z) tanh'(n) and x' is the derivative of the gate's activation.
    A masked step passes dh on unchanged and contributes no gate gradient."""
    steps, hidden = h_prev.shape[:2]
    h_n, r, zg, n = (acts[:, k * hidden:(k + 1) * hidden] for k in range(4))
    factors = np.empty((steps, 5 * hidden) + h_prev.shape[2:], dtype=acts.dtype)
    f_hn, f_r, f_z, f_n, f_h = (factors[:, k * hidden:(k + 1) * hidden] for k in range(5))
    one_minus_z = 1 - zg
    _times_tanh_slope(one_minus_z, n, out=f_n)
    np.multiply(f_n, r, out=f_hn)
    np.subtract(1, r, out=f_r)
    f_r *= f_hn
    f_r *= h_n
    np.subtract(h_prev, n, out=f_z)
    f_z *= zg
    f_z *= one_minus_z
    if mask is None:
        f_h[...] = zg
        return factors
    valid = mask.transpose(0, 2, 1)
    factors[:, :4 * hidden] *= valid
    np.copyto(f_h, np.where(valid > 0, zg, 1))
    return factors


class RNNLayer(_Recurrent):
    """Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""
    backward_name = "RnnTanhBackward0"

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, lengths, options):
        xd = x._data
        steps = xd.shape[0]
        hidden = h0._data.shape[-1]
        relu = options.get("nonlinearity", "tanh") == "relu"
        weight = _stacked_weight(w_ih, w_hh, b_ih, b_hh)
        z = _stacked_inputs(xd, h0._data, b_ih is not None)
        mask, keep = _masks(lengths, xd)
        for t in range(steps):
            h = z[t + 1, :hidden]
            np.matmul(weight, z[t], out=h)
            if relu:
                np.maximum(h, 0, out=h)
            else:
                np.tanh(h, out=h)
            if keep is not None:
                np.copyto(h, z[t, :hidden], where=keep[t])
        ctx.saved = (xd, w_ih._data, w_hh._data, z, mask, relu)
        ctx.has_bias = b_ih is not None
        return _outputs(z, hidden, mask)

    @staticmethod
    def backward(ctx, g_out, g_h):
        _Recurrent.refuse_double_backward(ctx)
        xd, w_ih, w_hh, z, mask, relu = ctx.saved
        steps = xd.shape[0]
        hidden = w_hh.shape[1]
        g_out = _output_grad(g_out, mask)
        h = z[1:, :hidden]
        slope = (h > 0).astype(h.dtype) if relu else 1 - h * h
        if mask is not None:
            slope *= mask.transpose(0, 2, 1)
        keep = _keep(mask)
        d_pre = np.empty_like(slope)
        dh = g_h._data.T.copy()
        dh_next = np.empty_like(dh)
        w_hh_t = np.ascontiguousarray(w_hh.T)
        for t in range(steps - 1, -1, -1):
            dh += g_out[t]
            np.multiply(dh, slope[t], out=d_pre[t])
            np.matmul(w_hh_t, d_pre[t], out=dh_next)
            if keep is not None:
                np.copyto(dh_next, dh, where=keep[t])
            dh, dh_next = dh_next, dh
        dw, flat = _weight_grads(d_pre, z)
        grads = _split_weight_grad(dw, hidden, xd.shape[2], ctx.has_bias)
        return ((_input_grad(ctx, flat, w_ih, xd), Tensor._wrap(dh.T.copy())) + grads
                + (None, None))
