"""The time loops of recurrent layers on NumPy arrays: LSTM, GRU and Elman RNN, forward
and backpropagation through time (the NumPy reference of the `rnn` kernel family).

A recurrent layer is a loop over time of small matrix products; recording every step
as separate autograd ops would cost more in bookkeeping than in arithmetic, so each
layer and direction runs here as one piece, and ember/nn/functional/rnn.py wraps it as
one autograd node.

Layout: the loops work on transposed, feature-major states (H, B), so that every gate
is a contiguous block and the per-step elementwise calls run on contiguous memory. The
layer input and a row of ones (for the biases) are stacked under the hidden state,
z[t] = [h_t; x_t; 1] of shape (K, B): one GEMM per step computes the recurrent and the
input projections, and one GEMM over all time steps gives every weight and bias
gradient. The sigmoid gates' weight rows are halved once per call, since
sigmoid(a) = tanh(a / 2) / 2 + 1/2. The backward first computes, for all steps at once,
the factors that do not depend on the recurrence, so that its loop is a few calls.

Sequences of different lengths (packed sequences) use a (T, B, 1) mask: a finished
sequence keeps its state and emits zeros. Inputs are time-major (T, B, features).

Each layer has `*_forward` and `*_backward` functions on whole arrays, and the time
loops they run, `*_steps` and `*_steps_backward`. The numba twin
(ember/_cpu/numba/rnn.py) swaps in its own loops through the `steps=` argument, so the
preparation around them (stacked weights, masks, the weight-gradient GEMMs) exists once.
"""
from __future__ import annotations

import numpy as np

from . import buffers
from .transpose import contiguous


# ---------------------------------------------------------------- shared preparation
def time_mask(lengths, steps: int, dtype):
    """(T, B, 1): 1 where step t is within sequence b's length, else 0; None when
    `lengths` is None (all sequences run every step)."""
    if lengths is None:
        return None
    return (np.arange(steps)[:, None] < np.asarray(lengths)[None, :]).astype(dtype)[..., None]


def _keep(mask):
    """(T, 1, B): True where a finished sequence holds its state."""
    return None if mask is None else mask.transpose(0, 2, 1) == 0


def _stacked_inputs(x, h0, has_bias: bool):
    """z (T + 1, K, B) with z[t] = [h_t; x_t; 1]; the loop fills in h_1 .. h_T."""
    steps, batch, inputs = x.shape
    hidden = h0.shape[-1]
    z = np.empty((steps + 1, hidden + inputs + has_bias, batch), dtype=x.dtype)
    z[0, :hidden] = h0.T
    z[:steps, hidden:hidden + inputs] = x.transpose(0, 2, 1)
    if has_bias:
        z[:, -1] = 1
    return z


def _stacked_weight(w_ih, w_hh, b_ih, b_hh, shift: int = 0):
    """[W_hh | W_ih | b_ih + b_hh], the weight that multiplies z[t] = [h_t; x_t; 1], with
    its rows rotated by `shift` (the last `shift` rows first)."""
    (rows, hidden), inputs = w_hh.shape, w_ih.shape[1]
    weight = np.empty((rows, hidden + inputs + (b_ih is not None)), dtype=w_hh.dtype)
    blocks = [(weight[:, :hidden], w_hh), (weight[:, hidden:hidden + inputs], w_ih)]
    if b_ih is not None:
        blocks.append((weight[:, -1], b_ih + b_hh))
    for dst, src in blocks:
        dst[:shift], dst[shift:] = src[rows - shift:], src[:rows - shift]
    return weight


def _outputs(z, hidden, mask):
    """Output (T, B, H) (zero past each sequence's end) and the final state h_T."""
    out = np.ascontiguousarray(z[1:, :hidden].transpose(0, 2, 1))
    if mask is not None:
        out *= mask
    return out, z[-1, :hidden].T.copy()


def _output_grad(g_out, mask):
    """The output's gradient as (T, H, B), zero past each sequence's end."""
    if mask is not None:
        g_out = g_out * mask
    return np.ascontiguousarray(g_out.transpose(0, 2, 1))


def _weight_grads(d_rows, z):
    """sum_t d_rows[t] z[t]^T, i.e. the gradients of all columns [W_hh | W_ih | b] of the
    stacked weight; also returns d_rows flattened to (rows, T B) for the input gradient."""
    steps, width, batch = d_rows.shape
    flat = contiguous(d_rows.transpose(1, 0, 2)).reshape(width, steps * batch)
    stacked = contiguous(z[:steps].transpose(0, 2, 1)).reshape(steps * batch, z.shape[1])
    return buffers.matmul(flat, stacked), flat


def _input_grad(wanted: bool, flat, w_ih, x):
    """dL/dx from the (rows, T B) gradient of the input projection's rows; None when not
    `wanted` (e.g. the data fed to the first layer needs no gradient)."""
    return (flat.T @ w_ih).reshape(x.shape) if wanted else None


def _split_weight_grad(dw, hidden, inputs, has_bias, hh_rows=slice(None),
                       ih_rows=slice(None)):
    """(dW_ih, dW_hh, db_ih, db_hh) from the stacked gradient (the biases None without
    bias); hh_rows / ih_rows pick the rows that belong to each weight."""
    dw_hh = np.ascontiguousarray(dw[hh_rows, :hidden])
    dw_ih = np.ascontiguousarray(dw[ih_rows, hidden:hidden + inputs])
    db_ih = db_hh = None
    if has_bias:
        db_ih, db_hh = dw[ih_rows, -1].copy(), dw[hh_rows, -1].copy()
    return dw_ih, dw_hh, db_ih, db_hh


def _times_tanh_slope(scale, th, out):
    """out = scale * (1 - th^2): the tanh derivative at the point whose tanh is th."""
    np.multiply(th, th, out=out)
    np.subtract(1, out, out=out)
    out *= scale


def _tanh_to_sigmoid(a) -> None:
    """In place: a = a / 2 + 1/2, which turns tanh(u) into sigmoid(2 u)."""
    a *= 0.5
    a += 0.5


# ---------------------------------------------------------------- LSTM
def lstm_forward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths, *, steps=None):
    """One LSTM layer over a sequence.

    x (T, B, I); h0 (B, P); c0 (B, H); w_ih (4H, I), w_hh (4H, P) in torch's gate order
    (i, f, g, o); b_ih, b_hh (4H,) or both None; w_hr (P, H), the projection of h
    (proj_size), or None (then P = H); lengths (B,) ints or None: sequence b runs its
    first lengths[b] steps. All float arrays share one dtype. Returns new arrays
    (output (T, B, P), h_n (B, P), c_n (B, H), saved): the output is zero past each
    sequence's end, the final states are those at its end; `saved` is what
    `lstm_backward` takes. `steps` runs the time loop (default `lstm_steps`).

    Internally the weight rows are reordered from (i, f, g, o) to (o, i, f, g), and the
    loop keeps, per step, a (5H, B) block [o, i, f, g, c_prev]: [i, f] * [g, c_prev] then
    gives both terms of the new cell in one call.
    """
    steps_fn = lstm_steps if steps is None else steps
    length, batch = x.shape[:2]
    hidden, out_size = c0.shape[-1], h0.shape[-1]
    weight = _stacked_weight(w_ih, w_hh, b_ih, b_hh, shift=hidden)    # (o, i, f, g)
    weight[:3 * hidden] *= 0.5
    z = _stacked_inputs(x, h0, b_ih is not None)
    acts = buffers.empty((length + 1, 5 * hidden, batch), x.dtype)
    acts[0, 4 * hidden:] = c0.T
    tanh_c = buffers.empty((length, hidden, batch), x.dtype)
    mask = time_mask(lengths, length, x.dtype)
    steps_fn(weight, z, acts, tanh_c, mask, w_hr)
    saved = (x, w_ih, w_hh, w_hr, z, acts, tanh_c, mask, b_ih is not None)
    return _outputs(z, out_size, mask) + (acts[length, 4 * hidden:].T.copy(), saved)


def lstm_steps(weight, z, acts, tanh_c, mask, w_hr) -> None:
    """The LSTM's forward time loop. weight (4H, K): the stacked weight, rows (o, i, f, g),
    the sigmoid rows (o, i, f) halved; z (T + 1, K, B) with z[0] = [h_0; x_0; 1] and the
    inputs of every step filled in; acts (T + 1, 5H, B) with acts[0, 4H:] = c_0; tanh_c
    (T, H, B); mask (T, B, 1) or None; w_hr (P, H) or None. Writes, for every step t,
    h_{t+1} into z[t + 1, :P], the gate activations into acts[t, :4H], c_{t+1} into
    acts[t + 1, 4H:] and tanh(c_{t+1}) into tanh_c[t]; a finished sequence keeps its h
    and c."""
    hidden = tanh_c.shape[1]
    out_size = hidden if w_hr is None else w_hr.shape[0]
    pair = np.empty((2 * hidden, z.shape[2]), dtype=z.dtype)
    keep = _keep(mask)
    for t in range(tanh_c.shape[0]):
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
            np.matmul(w_hr, a[:hidden] * tanh_c[t], out=h)
        if keep is not None:
            np.copyto(h, z[t, :out_size], where=keep[t])


def lstm_backward(saved, g_out, g_h, g_c, input_grad: bool, *, steps=None):
    """Backpropagation through time of `lstm_forward`: `saved` is what it returned, g_out
    (T, B, P), g_h (B, P), g_c (B, H) the gradients of its outputs. Returns (dx, dh0, dc0,
    dw_ih, dw_hh, db_ih, db_hh, dw_hr), new arrays shaped like the forward's inputs; dx
    is None unless `input_grad`, the biases' and projection's are None when absent.
    `steps` runs the time loop (default `lstm_steps_backward`)."""
    steps_fn = lstm_steps_backward if steps is None else steps
    x, w_ih, w_hh, w_hr, z, acts, tanh_c, mask, has_bias = saved
    hidden, out_size = tanh_c.shape[1], w_hh.shape[1]
    d, dh, dc, dhs = steps_fn(acts, tanh_c, mask, _output_grad(g_out, mask), g_h.T.copy(),
                              g_c.T.copy(), w_hh, w_hr)
    dw, flat = _weight_grads(d, z)
    grads = _split_weight_grad(dw, out_size, x.shape[2], has_bias)
    dw_hr = None
    if w_hr is not None:       # sum_t dh_t (o tanh(c))_t^T over the steps computed
        cell_out = acts[:-1, :hidden] * tanh_c
        if mask is not None:
            cell_out *= mask.transpose(0, 2, 1)
        dw_hr = np.tensordot(dhs, cell_out, axes=([0, 2], [0, 2]))
    return (_input_grad(input_grad, flat, w_ih, x), dh.T.copy(), dc.T.copy()) + grads + (
        dw_hr,)


def lstm_steps_backward(acts, tanh_c, mask, g_out, dh, dc, w_hh, w_hr):
    """The LSTM's backward time loop. acts, tanh_c, mask as filled in by `lstm_steps`;
    g_out (T, P, B) the output's gradient, zero past each sequence's end; dh (P, B) and
    dc (H, B) the final states' gradients (overwritten); w_hh (4H, P) and w_hr (P, H) or
    None as given to the forward. Returns (d (T, 4H, B), dh0 (P, B), dc0 (H, B), dhs):
    d[t] holds the gradients of step t's gate pre-activations in torch's order
    (i, f, g, o), dh0 and dc0 those of the initial states, and dhs (T, P, B) the
    gradients of each step's h (what reaches W_hr), None without projection."""
    steps, hidden, batch = tanh_c.shape
    factors, carry = _lstm_backward_factors(acts, tanh_c, mask)
    # With a projection, dh (P, B) reaches the cell as W_hr^T dh; dhs keeps each
    # step's dh for W_hr's gradient.
    dhs = None if w_hr is None else np.empty((steps, w_hr.shape[0], batch), acts.dtype)
    # Per step, d[t] = [d_i, d_f, d_g, d_o, dc_t] (torch's gate order, then the cell).
    d = buffers.empty((steps, 5 * hidden, batch), acts.dtype)
    d_blocks, f_blocks = (a.reshape(steps, 5, hidden, batch) for a in (d, factors))
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
    return d[:, :4 * hidden], dh, dc, dhs


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
    factors = buffers.empty((steps, 5 * hidden) + tanh_c.shape[2:], acts.dtype)
    np.multiply(slope[:, hidden:], a[:, 3 * hidden:], out=factors[:, :2 * hidden])
    _times_tanh_slope(i, g, out=factors[:, 2 * hidden:3 * hidden])
    np.multiply(slope[:, :hidden], tanh_c, out=factors[:, 3 * hidden:4 * hidden])
    _times_tanh_slope(o, tanh_c, out=factors[:, 4 * hidden:])
    if mask is None:
        return factors, f
    valid = mask.transpose(0, 2, 1)
    factors *= valid
    return factors, np.where(valid > 0, f, 1)


# ---------------------------------------------------------------- GRU
def gru_forward(x, h0, w_ih, w_hh, b_ih, b_hh, lengths, *, steps=None):
    """One GRU layer over a sequence: x (T, B, I), h0 (B, H), w_ih (3H, I) and w_hh
    (3H, H) in torch's gate order (r, z, n), b_ih, b_hh (3H,) or both None, lengths as
    for `lstm_forward`. Returns new arrays (output (T, B, H), h_n (B, H), saved).
    `steps` runs the time loop (default `gru_steps`).

    The stacked weight has four row blocks for [W_hn h + b_hn, a_r, a_z, W_in x + b_in]
    (r and z halved for the tanh form of the sigmoid); the first three use W_hh's rows,
    the last three W_ih's. The last block does not depend on h, so it is computed for
    all steps before the loop."""
    steps_fn = gru_steps if steps is None else steps
    length, batch = x.shape[:2]
    hidden = h0.shape[-1]
    weight = _gru_weight(w_ih, w_hh, b_ih, b_hh)
    z = _stacked_inputs(x, h0, b_ih is not None)
    acts = np.empty((length, 4 * hidden, batch), dtype=x.dtype)    # h_n, r, z, n
    np.matmul(weight[3 * hidden:, hidden:], z[:length, hidden:], out=acts[:, 3 * hidden:])
    mask = time_mask(lengths, length, x.dtype)
    steps_fn(weight, z, acts, mask)
    saved = (x, w_ih, w_hh, z, acts, mask, b_ih is not None)
    return _outputs(z, hidden, mask) + (saved,)


def gru_steps(weight, z, acts, mask) -> None:
    """The GRU's forward time loop. weight (4H, K) from `_gru_weight`; z (T + 1, K, B) as
    for `lstm_steps`; acts (T, 4H, B) with acts[:, 3H:] = W_in x + b_in for every step;
    mask (T, B, 1) or None. Writes h_{t+1} into z[t + 1, :H] and acts[t] = [W_hn h_t +
    b_hn, r, z, n] for every step; a finished sequence keeps its h."""
    hidden = acts.shape[1] // 4
    keep = _keep(mask)
    for t in range(acts.shape[0]):
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


def gru_backward(saved, g_out, g_h, input_grad: bool, *, steps=None):
    """Backpropagation through time of `gru_forward`: g_out (T, B, H), g_h (B, H).
    Returns (dx, dh0, dw_ih, dw_hh, db_ih, db_hh) as `lstm_backward` does.
    `steps` runs the time loop (default `gru_steps_backward`)."""
    steps_fn = gru_steps_backward if steps is None else steps
    x, w_ih, w_hh, z, acts, mask, has_bias = saved
    hidden = w_hh.shape[1]
    d, dh = steps_fn(acts, z, mask, _output_grad(g_out, mask), g_h.T.copy(), w_hh)
    dw, flat = _weight_grads(d, z)
    hh_rows = np.roll(np.arange(3 * hidden), -hidden)     # back to torch's (r, z, n)
    grads = _split_weight_grad(dw, hidden, x.shape[2], has_bias, hh_rows,
                               slice(hidden, None))
    return (_input_grad(input_grad, flat[hidden:], w_ih, x), dh.T.copy()) + grads


def gru_steps_backward(acts, z, mask, g_out, dh, w_hh):
    """The GRU's backward time loop. acts, z, mask as filled in by `gru_steps`; g_out
    (T, H, B) the output's gradient, zero past each sequence's end; dh (H, B) the final
    state's gradient (overwritten); w_hh (3H, H). Returns (d (T, 4H, B), dh0 (H, B)):
    d[t] holds the gradients of acts[t]'s pre-activations [W_hn h + b_hn, a_r, a_z,
    W_in x + b_in], dh0 that of the initial state."""
    steps, rows, batch = acts.shape
    hidden = rows // 4
    factors = _gru_backward_factors(acts, z[:steps, :hidden], mask)
    # Per step, d[t] = dh_t * factors[t] = [d h_n, d a_r, d a_z, d x_n, dh_t z].
    d = np.empty_like(factors)
    d_blocks, f_blocks = (a.reshape(steps, 5, hidden, batch) for a in (d, factors))
    w_hh_t = np.ascontiguousarray(np.roll(w_hh, hidden, axis=0).T)   # rows (n, r, z)
    for t in range(steps - 1, -1, -1):
        dh += g_out[t]
        np.multiply(dh, f_blocks[t], out=d_blocks[t])
        np.matmul(w_hh_t, d[t, :3 * hidden], out=dh)
        dh += d[t, 4 * hidden:]
    return d[:, :4 * hidden], dh


def _gru_weight(w_ih, w_hh, b_ih, b_hh):
    """The stacked (4H, K) weight of the GRU: rows [h_n, r, z, x_n], columns [h, x, 1]."""
    hidden, inputs = w_hh.shape[1], w_ih.shape[1]
    weight = np.zeros((4 * hidden, hidden + inputs + (b_ih is not None)), dtype=w_ih.dtype)
    weight[:3 * hidden, :hidden] = np.roll(w_hh, hidden, axis=0)
    weight[hidden:, hidden:hidden + inputs] = w_ih
    if b_ih is not None:
        weight[:3 * hidden, -1] = np.roll(b_hh, hidden)
        weight[hidden:, -1] += b_ih
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


# ---------------------------------------------------------------- Elman RNN
def rnn_forward(x, h0, w_ih, w_hh, b_ih, b_hh, lengths, relu: bool, *, steps=None):
    """One Elman RNN layer, h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (relu instead of tanh
    when `relu`): x (T, B, I), h0 (B, H), w_ih (H, I), w_hh (H, H), b_ih, b_hh (H,) or
    both None, lengths as for `lstm_forward`. Returns new arrays (output (T, B, H),
    h_n (B, H), saved). `steps` runs the time loop (default `rnn_steps`)."""
    steps_fn = rnn_steps if steps is None else steps
    hidden = h0.shape[-1]
    weight = _stacked_weight(w_ih, w_hh, b_ih, b_hh)
    z = _stacked_inputs(x, h0, b_ih is not None)
    mask = time_mask(lengths, x.shape[0], x.dtype)
    steps_fn(weight, z, mask, relu)
    saved = (x, w_ih, w_hh, z, mask, relu, b_ih is not None)
    return _outputs(z, hidden, mask) + (saved,)


def rnn_steps(weight, z, mask, relu: bool) -> None:
    """The Elman RNN's forward time loop: weight (H, K) the stacked weight, z (T + 1, K, B)
    as for `lstm_steps`, mask (T, B, 1) or None. Writes h_{t+1} into z[t + 1, :H] for
    every step; a finished sequence keeps its h."""
    hidden = weight.shape[0]
    keep = _keep(mask)
    for t in range(z.shape[0] - 1):
        h = z[t + 1, :hidden]
        np.matmul(weight, z[t], out=h)
        if relu:
            np.maximum(h, 0, out=h)
        else:
            np.tanh(h, out=h)
        if keep is not None:
            np.copyto(h, z[t, :hidden], where=keep[t])


def rnn_backward(saved, g_out, g_h, input_grad: bool, *, steps=None):
    """Backpropagation through time of `rnn_forward`: g_out (T, B, H), g_h (B, H).
    Returns (dx, dh0, dw_ih, dw_hh, db_ih, db_hh) as `lstm_backward` does.
    `steps` runs the time loop (default `rnn_steps_backward`)."""
    steps_fn = rnn_steps_backward if steps is None else steps
    x, w_ih, w_hh, z, mask, relu, has_bias = saved
    hidden = w_hh.shape[1]
    d_pre, dh = steps_fn(z, mask, _output_grad(g_out, mask), g_h.T.copy(), w_hh, relu)
    dw, flat = _weight_grads(d_pre, z)
    grads = _split_weight_grad(dw, hidden, x.shape[2], has_bias)
    return (_input_grad(input_grad, flat, w_ih, x), dh.T.copy()) + grads


def rnn_steps_backward(z, mask, g_out, dh, w_hh, relu: bool):
    """The Elman RNN's backward time loop: z and mask as filled in by `rnn_steps`, g_out
    (T, H, B) the output's gradient, zero past each sequence's end, dh (H, B) the final
    state's gradient (overwritten), w_hh (H, H). Returns (d (T, H, B), dh0 (H, B)): the
    gradients of every step's pre-activation and of the initial state."""
    hidden = w_hh.shape[1]
    h = z[1:, :hidden]
    slope = (h > 0).astype(h.dtype) if relu else 1 - h * h
    if mask is not None:
        slope *= mask.transpose(0, 2, 1)
    keep = _keep(mask)
    d_pre = np.empty_like(slope)
    dh_next = np.empty_like(dh)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    for t in range(slope.shape[0] - 1, -1, -1):
        dh += g_out[t]
        np.multiply(dh, slope[t], out=d_pre[t])
        np.matmul(w_hh_t, d_pre[t], out=dh_next)
        if keep is not None:
            np.copyto(dh_next, dh, where=keep[t])
        dh, dh_next = dh_next, dh
    return d_pre, dh
