"""numba twins of ember/_cpu/rnn.py: the recurrent layers' time loops with each step's
gates, activations and state update fused into one compiled kernel.

The layer functions are the reference's, given these loops through `steps=`: the
arrays, their layout and what the backward reads are the same, so a forward run by one
implementation can be differentiated by the other. Per step, BLAS still computes the
gate GEMM (np.dot, 0.6 us quicker to call than np.matmul) and one kernel does everything
elementwise; for small layers, where a call costs more than its arithmetic, the whole
loop runs as one kernel with its products written as loops (`tuning.RNN_FUSED_LOOP_WORK`).

tanh in float32 is a rational function (degree 13 over 8) evaluated in float64, which
the compiler vectorizes where numba's libm tanh stays scalar: at most 0.51 ulp from the
exact result (NumPy's own float32 tanh: 1.4 ulp), so the forward agrees with the NumPy
loop to about an ulp per step. float64 keeps libm's tanh, which makes a float64 forward
step no faster than NumPy's: that one runs the reference loop.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload

from .. import buffers
from .. import rnn as reference
from .. import tuning
from ._common import compiled, jit


# ---------------------------------------------------------------- tanh
# tanh(x) = x P(x^2) / Q(x^2) on |x| <= 10 (beyond, tanh rounds to +-1 in float32), the
# coefficients fitted to a relative error below 3.4e-10 (iteratively reweighted least
# squares on 10^5 points).
_P = (1.0, 0.13821861574758684, 0.004050551478974201, 3.203668240326865e-05,
      4.2804643134837905e-08, -2.7973243257500112e-11, 2.0833774393787474e-14)
_Q = (1.0, 0.4715519469360831, 0.027901204762953644, 0.00042709588863989155,
      1.5959311673087746e-06)


def _tanh(x):
    """tanh of one float32 or float64 number (compiled by the overload below)."""
    return math.tanh(x)


@overload(_tanh, jit_options={"fastmath": {"contract"}})
def _tanh_compiled(x):
    if x != types.float32:
        return lambda x: math.tanh(x)
    p0, p1, p2, p3, p4, p5, p6 = _P
    q0, q1, q2, q3, q4 = _Q

    def rational(x):
        v = np.float64(x)
        v = 10.0 if v > 10.0 else v       # NaN passes both tests unchanged
        v = -10.0 if v < -10.0 else v
        u = v * v
        p = p0 + u * (p1 + u * (p2 + u * (p3 + u * (p4 + u * (p5 + u * p6)))))
        q = q0 + u * (q1 + u * (q2 + u * (q3 + u * q4)))
        return np.float32(v * p / q)
    return rational


# ---------------------------------------------------------------- shared
@jit
def _matmul_into(w_t, x, out, scratch):
    """out = w_t^T @ x as loops, for products too small to be worth a call into BLAS:
    w_t (K, R), x (K, B), out (R, B); scratch (B, R) holds out transposed meanwhile."""
    inner, rows = w_t.shape
    for b in range(x.shape[1]):
        row = scratch[b]
        row[:] = 0
        for k in range(inner):
            xv = x[k, b]
            w_k = w_t[k]
            for r in range(rows):
                row[r] += w_k[r] * xv
    out[:, :] = scratch.T


def _whole_loop(weight, batch: int) -> bool:
    """Whether a layer's time loop runs as one kernel, with its products as loops: a step
    so small that calling BLAS and a kernel per step costs more than it computes."""
    return weight.size * batch <= tuning.RNN_FUSED_LOOP_WORK


def _reference_steps(weight, batch: int) -> bool:
    """Whether a float64 forward loop is left to the reference: per step, its time goes to
    tanh, and libm's scalar tanh in numba is no faster than NumPy's (0.7-1.1x measured);
    only the whole loop in one kernel gains (3.4-6x on tiny layers)."""
    return weight.dtype == np.float64 and not _whole_loop(weight, batch)


def _products(w, batch: int):
    """The operands of `_matmul_into` for products with `w`: (w^T, scratch)."""
    return np.ascontiguousarray(w.T), np.empty((batch, w.shape[0]), dtype=w.dtype)


@jit(inline="always")
def _state_gradient(t, steps, mask, dh, dh_product, r, b):
    """The gradient reaching h_{t+1} in a backward step t (LSTM and Elman RNN): the
    product W_hh^T d[t + 1] (at the last step: the final state's gradient), or, where
    the sequence had ended at step t + 1 (its h passed through), dh, the gradient step
    t + 1 started from."""
    if mask is not None and t + 1 < steps and mask[t + 1, b, 0] == 0:
        return dh[r, b]
    return dh_product[r, b]


def _initial_state_gradient(dh_product, dh, mask):
    """The gradient of h_0 after the last backward step: dh_product, or dh where a
    sequence ran no step."""
    if mask is not None:
        np.copyto(dh_product, dh, where=mask[0, :, 0] == 0)
    return dh_product


# ---------------------------------------------------------------- LSTM
def lstm_forward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths):
    """reference.lstm_forward running this module's time loop."""
    return reference.lstm_forward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, lengths,
                                  steps=lstm_steps)


def lstm_backward(saved, g_out, g_h, g_c, input_grad: bool):
    """reference.lstm_backward running this module's time loop."""
    return reference.lstm_backward(saved, g_out, g_h, g_c, input_grad,
                                   steps=lstm_steps_backward)


@jit(inline="always")
def _lstm_point(pre_o, pre_i, pre_f, pre_g, c_prev, ended, half):
    """One unit of an LSTM step from its gate pre-activations (sigmoid ones halved):
    (o, i, f, g, c, tanh(c)); c is c_prev where the sequence has `ended`; `half` is 0.5
    in the arrays' dtype. The operations and their order are lstm_steps's."""
    o = _tanh(pre_o) * half + half
    i = _tanh(pre_i) * half + half
    f = _tanh(pre_f) * half + half
    g = _tanh(pre_g)
    c = c_prev if ended else i * g + f * c_prev
    return o, i, f, g, c, _tanh(c)


@jit
def _lstm_cell(t, acts, tanh_c, z, mask):
    """Step t of lstm_steps (without projection) after its gate GEMM: acts[t, :4H] holds
    the pre-activations (o, i, f, g), the sigmoid rows halved. Applies the activations in
    place and writes c_{t+1}, tanh(c_{t+1}) and h_{t+1} (the state kept where `mask` says
    the sequence has ended)."""
    hidden, batch = tanh_c.shape[1], tanh_c.shape[2]
    half = acts.dtype.type(0.5)
    if mask is None:            # one flat loop over the contiguous (H, B) blocks
        n = hidden * batch
        a, c_next = acts[t].reshape(5 * n), acts[t + 1].reshape(5 * n)
        tc_t, h = tanh_c[t].reshape(n), z[t + 1].reshape(z.shape[1] * batch)
        for j in range(n):
            a[j], a[n + j], a[2 * n + j], a[3 * n + j], c, tc = _lstm_point(
                a[j], a[n + j], a[2 * n + j], a[3 * n + j], a[4 * n + j], False, half)
            c_next[4 * n + j], tc_t[j], h[j] = c, tc, a[j] * tc
        return
    a, c_next, tc_t = acts[t], acts[t + 1], tanh_c[t]
    for r in range(hidden):
        for b in range(batch):
            ended = mask[t, b, 0] == 0
            o, a[hidden + r, b], a[2 * hidden + r, b], a[3 * hidden + r, b], c, tc = \
                _lstm_point(a[r, b], a[hidden + r, b], a[2 * hidden + r, b],
                            a[3 * hidden + r, b], a[4 * hidden + r, b], ended, half)
            a[r, b], c_next[4 * hidden + r, b], tc_t[r, b] = o, c, tc
            z[t + 1, r, b] = z[t, r, b] if ended else o * tc


@jit
def _lstm_loop(weight_t, scratch, z, acts, tanh_c, mask):
    """lstm_steps (without projection) as one kernel."""
    rows = weight_t.shape[1]
    for t in range(tanh_c.shape[0]):
        _matmul_into(weight_t, z[t], acts[t, :rows], scratch)
        _lstm_cell(t, acts, tanh_c, z, mask)


# Measured against reference.lstm_steps (float32, 35 steps, 1 thread): 1.35x for batch 20,
# 32 inputs, hidden 128 (the LSTM LM); 2.0x at hidden 32; 12x at batch 4, hidden 8 (one kernel).
def lstm_steps(weight, z, acts, tanh_c, mask, w_hr) -> None:
    """reference.lstm_steps with each step's elementwise work in one kernel. A layer with a
    projection, and float64 outside the one-kernel loop (`_reference_steps`), run the
    reference loop."""
    if w_hr is not None or not compiled(weight, z, acts, tanh_c, mask) or \
            _reference_steps(weight, z.shape[2]):
        return reference.lstm_steps(weight, z, acts, tanh_c, mask, w_hr)
    if _whole_loop(weight, z.shape[2]):
        return _lstm_loop(*_products(weight, z.shape[2]), z, acts, tanh_c, mask)
    rows = weight.shape[0]
    for t in range(tanh_c.shape[0]):
        np.dot(weight, z[t], out=acts[t, :rows])
        _lstm_cell(t, acts, tanh_c, z, mask)


@jit(inline="always")
def _lstm_point_backward(dh, dc, o, i, f, g, c_prev, tc, one):
    """One unit of an LSTM step's backward: the gradients of the gate pre-activations
    (i, f, g, o) and of c_prev, from those of h and c and the step's activations; `one`
    is 1 in the arrays' dtype. The factors are lstm_steps_backward's, in its order."""
    dc_t = dh * ((one - tc * tc) * o) + dc
    return (dc_t * (((one - i) * i) * g), dc_t * (((one - f) * f) * c_prev),
            dc_t * ((one - g * g) * i), dh * (((one - o) * o) * tc), dc_t * f)


@jit
def _lstm_cell_backward(t, acts, tanh_c, mask, g_out, dh, dh_product, dc, d):
    """Step t of lstm_steps_backward (without projection): writes the gradient of h_{t+1}
    (`_state_gradient`, plus g_out[t]) into dh, the gate pre-activations' gradients into
    d[t] (torch's order i, f, g, o), and updates dc to the gradient of c_t (unchanged
    where the sequence has ended)."""
    steps, hidden, batch = tanh_c.shape
    one = acts.dtype.type(1)
    if mask is None:            # one flat loop over the contiguous (H, B) blocks
        n = hidden * batch
        a, tc_t, d_t = acts[t].reshape(5 * n), tanh_c[t].reshape(n), d[t].reshape(4 * n)
        g_t, dh_flat = g_out[t].reshape(n), dh.reshape(n)
        product, dc_flat = dh_product.reshape(n), dc.reshape(n)
        for j in range(n):
            v = dh_flat[j] = product[j] + g_t[j]
            d_t[j], d_t[n + j], d_t[2 * n + j], d_t[3 * n + j], dc_flat[j] = \
                _lstm_point_backward(v, dc_flat[j], a[j], a[n + j], a[2 * n + j],
                                     a[3 * n + j], a[4 * n + j], tc_t[j], one)
        return
    zero = acts.dtype.type(0)
    a, tc_t, d_t = acts[t], tanh_c[t], d[t]
    for r in range(hidden):
        for b in range(batch):
            v = dh[r, b] = _state_gradient(t, steps, mask, dh, dh_product, r, b) + \
                g_out[t, r, b]
            grads = _lstm_point_backward(v, dc[r, b], a[r, b], a[hidden + r, b],
                                         a[2 * hidden + r, b], a[3 * hidden + r, b],
                                         a[4 * hidden + r, b], tc_t[r, b], one)
            ended = mask[t, b, 0] == 0
            for k in range(4):
                d_t[k * hidden + r, b] = zero if ended else grads[k]
            dc[r, b] = dc[r, b] if ended else grads[4]


@jit
def _lstm_loop_backward(w_hh, scratch, acts, tanh_c, mask, g_out, dh, dh_product, dc, d):
    """lstm_steps_backward's loop (without projection) as one kernel."""
    for t in range(tanh_c.shape[0] - 1, -1, -1):
        _lstm_cell_backward(t, acts, tanh_c, mask, g_out, dh, dh_product, dc, d)
        _matmul_into(w_hh, d[t], dh_product, scratch)


# Against reference.lstm_steps_backward (same shapes): 3.2x at hidden 128, 2.5x at hidden 32,
# 11x at batch 4, hidden 8 (one kernel); float64 3.5x at hidden 128.
def lstm_steps_backward(acts, tanh_c, mask, g_out, dh, dc, w_hh, w_hr):
    """reference.lstm_steps_backward with each step's elementwise work in one kernel (a
    layer with a projection runs the reference loop)."""
    if w_hr is not None or not compiled(acts, tanh_c, mask, g_out, dh, dc, w_hh):
        return reference.lstm_steps_backward(acts, tanh_c, mask, g_out, dh, dc, w_hh, w_hr)
    steps, hidden, batch = tanh_c.shape
    d = buffers.empty((steps, 4 * hidden, batch), acts.dtype)
    dh_product, dh = dh, np.empty_like(dh)
    if _whole_loop(w_hh, batch):
        scratch = np.empty((batch, w_hh.shape[1]), dtype=w_hh.dtype)
        _lstm_loop_backward(w_hh, scratch, acts, tanh_c, mask, g_out, dh, dh_product, dc, d)
    else:
        w_hh_t = np.ascontiguousarray(w_hh.T)
        for t in range(steps - 1, -1, -1):
            _lstm_cell_backward(t, acts, tanh_c, mask, g_out, dh, dh_product, dc, d)
            np.dot(w_hh_t, d[t], out=dh_product)
    return d, _initial_state_gradient(dh_product, dh, mask), dc, None


# ---------------------------------------------------------------- GRU
def gru_forward(x, h0, w_ih, w_hh, b_ih, b_hh, lengths):
    """reference.gru_forward running this module's time loop."""
    return reference.gru_forward(x, h0, w_ih, w_hh, b_ih, b_hh, lengths, steps=gru_steps)


def gru_backward(saved, g_out, g_h, input_grad: bool):
    """reference.gru_backward running this module's time loop."""
    return reference.gru_backward(saved, g_out, g_h, input_grad, steps=gru_steps_backward)


@jit(inline="always")
def _gru_point(h_n, pre_r, pre_z, x_n, h, ended, half):
    """One unit of a GRU step: (r, z, n, h') from W_hn h + b_hn, the halved r and z
    pre-activations, W_in x + b_in and h; h' is h where the sequence has `ended`. The
    operations and their order are gru_steps's."""
    r = _tanh(pre_r) * half + half
    z = _tanh(pre_z) * half + half
    n = _tanh(x_n + r * h_n)
    return r, z, n, (h if ended else (h - n) * z + n)


@jit
def _gru_cell(t, acts, z, mask):
    """Step t of gru_steps after its GEMM: acts[t, :3H] holds [W_hn h + b_hn, a_r, a_z]
    (a_r, a_z halved), acts[t, 3H:] W_in x + b_in. Writes r, z, n over the last three
    blocks and h_{t+1} into z[t + 1, :H] (h_t where the sequence has ended)."""
    hidden, batch = acts.shape[1] // 4, acts.shape[2]
    half = acts.dtype.type(0.5)
    if mask is None:            # one flat loop over the contiguous (H, B) blocks
        n = hidden * batch
        a, h, h_next = acts[t].reshape(4 * n), z[t].reshape(-1), z[t + 1].reshape(-1)
        for j in range(n):
            a[n + j], a[2 * n + j], a[3 * n + j], h_next[j] = _gru_point(
                a[j], a[n + j], a[2 * n + j], a[3 * n + j], h[j], False, half)
        return
    a = acts[t]
    for r in range(hidden):
        for b in range(batch):
            a[hidden + r, b], a[2 * hidden + r, b], a[3 * hidden + r, b], z[t + 1, r, b] = \
                _gru_point(a[r, b], a[hidden + r, b], a[2 * hidden + r, b],
                           a[3 * hidden + r, b], z[t, r, b], mask[t, b, 0] == 0, half)


@jit
def _gru_loop(weight_t, scratch, z, acts, mask):
    """gru_steps as one kernel."""
    rows = weight_t.shape[1]
    for t in range(acts.shape[0]):
        _matmul_into(weight_t, z[t], acts[t, :rows], scratch)
        _gru_cell(t, acts, z, mask)


# Against reference.gru_steps (float32, 35 steps, batch 20, 32 inputs): 1.35x at hidden
# 128, 1.6-2.1x at hidden 32; 12-14x at batch 4, hidden 8 (one kernel).
def gru_steps(weight, z, acts, mask) -> None:
    """reference.gru_steps with each step's elementwise work in one kernel (float64 outside
    the one-kernel loop runs the reference loop, see `_reference_steps`)."""
    recurrent = weight[:3 * (acts.shape[1] // 4)]
    if not compiled(weight, z, acts, mask) or _reference_steps(recurrent, z.shape[2]):
        return reference.gru_steps(weight, z, acts, mask)
    if _whole_loop(recurrent, z.shape[2]):
        return _gru_loop(*_products(recurrent, z.shape[2]), z, acts, mask)
    rows = recurrent.shape[0]
    for t in range(acts.shape[0]):
        np.dot(recurrent, z[t], out=acts[t, :rows])
        _gru_cell(t, acts, z, mask)


@jit(inline="always")
def _gru_point_backward(dh, h_n, r, z, n, h, one):
    """One unit of a GRU step's backward: the gradients of [W_hn h + b_hn, a_r, a_z,
    W_in x + b_in] and the part of h's gradient that flows past the gates (dh z), from
    h''s gradient dh and the step's values. The factors are gru_steps_backward's."""
    one_minus_z = one - z
    f_n = (one - n * n) * one_minus_z
    f_hn = f_n * r
    return (dh * f_hn, dh * (((one - r) * f_hn) * h_n), dh * (((h - n) * z) * one_minus_z),
            dh * f_n, dh * z)


@jit
def _gru_cell_backward(t, acts, z, mask, g_out, dh_product, carry, d):
    """Step t of gru_steps_backward: the gradient of h_{t+1} is dh_product (W_hh^T d[t + 1],
    or the final state's gradient at the last step) plus carry (what passed the gates)
    plus g_out[t]. Writes the step's gradients into d[t] and the new carry (the
    whole gradient where the sequence has ended, which then passes on unchanged)."""
    hidden, batch = acts.shape[1] // 4, acts.shape[2]
    one = acts.dtype.type(1)
    if mask is None:            # one flat loop over the contiguous (H, B) blocks
        n = hidden * batch
        a, h, d_t, g_t = acts[t].reshape(4 * n), z[t].reshape(-1), d[t].reshape(-1), \
            g_out[t].reshape(n)
        product, carry_flat = dh_product.reshape(n), carry.reshape(n)
        for j in range(n):
            d_t[j], d_t[n + j], d_t[2 * n + j], d_t[3 * n + j], carry_flat[j] = \
                _gru_point_backward(product[j] + carry_flat[j] + g_t[j], a[j], a[n + j],
                                    a[2 * n + j], a[3 * n + j], h[j], one)
        return
    zero = acts.dtype.type(0)
    a, d_t = acts[t], d[t]
    for r in range(hidden):
        for b in range(batch):
            v = dh_product[r, b] + carry[r, b] + g_out[t, r, b]
            grads = _gru_point_backward(v, a[r, b], a[hidden + r, b], a[2 * hidden + r, b],
                                        a[3 * hidden + r, b], z[t, r, b], one)
            ended = mask[t, b, 0] == 0
            for k in range(4):
                d_t[k * hidden + r, b] = zero if ended else grads[k]
            carry[r, b] = v if ended else grads[4]


@jit
def _gru_loop_backward(w_hh, scratch, acts, z, mask, g_out, dh_product, carry, d):
    """gru_steps_backward's loop as one kernel; w_hh's rows in the order (n, r, z)."""
    rows = w_hh.shape[0]
    for t in range(acts.shape[0] - 1, -1, -1):
        _gru_cell_backward(t, acts, z, mask, g_out, dh_product, carry, d)
        _matmul_into(w_hh, d[t, :rows], dh_product, scratch)


# Against reference.gru_steps_backward (same shapes): 1.4x at hidden 128, 1.9-2.0x at hidden
# 32, 6.7x at batch 4, hidden 8 (one kernel); float64 3.4x at hidden 128.
def gru_steps_backward(acts, z, mask, g_out, dh, w_hh):
    """reference.gru_steps_backward with each step's elementwise work in one kernel."""
    if not compiled(acts, z, mask, g_out, dh, w_hh):
        return reference.gru_steps_backward(acts, z, mask, g_out, dh, w_hh)
    steps, rows, batch = acts.shape
    hidden = rows // 4
    d = np.empty((steps, rows, batch), dtype=acts.dtype)
    dh_product, carry = dh, np.zeros_like(dh)
    w_hh = np.roll(w_hh, hidden, axis=0)                   # rows (n, r, z), as d's
    if _whole_loop(w_hh, batch):
        scratch = np.empty((batch, hidden), dtype=w_hh.dtype)
        _gru_loop_backward(w_hh, scratch, acts, z, mask, g_out, dh_product, carry, d)
    else:
        w_hh_t = np.ascontiguousarray(w_hh.T)
        for t in range(steps - 1, -1, -1):
            _gru_cell_backward(t, acts, z, mask, g_out, dh_product, carry, d)
            np.dot(w_hh_t, d[t, :3 * hidden], out=dh_product)
    return d, dh_product + carry


# ---------------------------------------------------------------- Elman RNN
def rnn_forward(x, h0, w_ih, w_hh, b_ih, b_hh, lengths, relu: bool):
    """reference.rnn_forward running this module's time loop."""
    return reference.rnn_forward(x, h0, w_ih, w_hh, b_ih, b_hh, lengths, relu,
                                 steps=rnn_steps)


def rnn_backward(saved, g_out, g_h, input_grad: bool):
    """reference.rnn_backward running this module's time loop."""
    return reference.rnn_backward(saved, g_out, g_h, input_grad, steps=rnn_steps_backward)


@jit(inline="always")
def _activate(v, relu, zero):
    """relu(v) (NaN kept, as np.maximum does) or tanh(v)."""
    if relu:
        return zero if v < zero else v
    return _tanh(v)


@jit
def _rnn_cell(t, hidden, z, mask, relu):
    """Step t of rnn_steps after its GEMM, z[t + 1, :H] holding the pre-activation: applies
    the nonlinearity in place (h_t where the sequence has ended)."""
    batch = z.shape[2]
    zero = z.dtype.type(0)
    if mask is None:            # the first H rows of z[t + 1] are its first H B values
        h = z[t + 1].reshape(-1)
        for j in range(hidden * batch):
            h[j] = _activate(h[j], relu, zero)
        return
    for r in range(hidden):
        for b in range(batch):
            z[t + 1, r, b] = z[t, r, b] if mask[t, b, 0] == 0 else \
                _activate(z[t + 1, r, b], relu, zero)


@jit
def _rnn_loop(weight_t, scratch, z, mask, relu):
    """rnn_steps as one kernel."""
    hidden = weight_t.shape[1]
    for t in range(z.shape[0] - 1):
        _matmul_into(weight_t, z[t], z[t + 1, :hidden], scratch)
        _rnn_cell(t, hidden, z, mask, relu)


# Against reference.rnn_steps (float32, 35 steps, batch 20, 32 inputs): 1.1-1.2x at hidden
# 128 and 32 (one tanh per unit: little to fuse); 3.8-6.5x at batch 4, hidden 8 (one kernel).
def rnn_steps(weight, z, mask, relu: bool) -> None:
    """reference.rnn_steps with each step's nonlinearity and mask in one kernel (float64
    outside the one-kernel loop runs the reference loop, see `_reference_steps`)."""
    if not compiled(weight, z, mask) or _reference_steps(weight, z.shape[2]):
        return reference.rnn_steps(weight, z, mask, relu)
    if _whole_loop(weight, z.shape[2]):
        return _rnn_loop(*_products(weight, z.shape[2]), z, mask, relu)
    hidden = weight.shape[0]
    for t in range(z.shape[0] - 1):
        np.dot(weight, z[t], out=z[t + 1, :hidden])
        _rnn_cell(t, hidden, z, mask, relu)


@jit(inline="always")
def _rnn_slope(h, relu, one, zero):
    """The nonlinearity's derivative at the point whose value is h."""
    if relu:
        return one if h > zero else zero
    return one - h * h


@jit
def _rnn_cell_backward(t, z, mask, g_out, dh, dh_product, d, relu):
    """Step t of rnn_steps_backward: writes the gradient of h_{t+1} (`_state_gradient`,
    plus g_out[t]) into dh and that of the step's pre-activation into d[t] (zero where
    the sequence has ended)."""
    steps, hidden, batch = d.shape
    one, zero = z.dtype.type(1), z.dtype.type(0)
    if mask is None:            # one flat loop over the contiguous (H, B) blocks
        n = hidden * batch
        h, d_t, g_t = z[t + 1].reshape(-1), d[t].reshape(n), g_out[t].reshape(n)
        dh_flat, product = dh.reshape(n), dh_product.reshape(n)
        for j in range(n):
            v = dh_flat[j] = product[j] + g_t[j]
            d_t[j] = v * _rnn_slope(h[j], relu, one, zero)
        return
    for r in range(hidden):
        for b in range(batch):
            v = dh[r, b] = _state_gradient(t, steps, mask, dh, dh_product, r, b) + \
                g_out[t, r, b]
            ended = mask[t, b, 0] == 0
            d[t, r, b] = zero if ended else v * _rnn_slope(z[t + 1, r, b], relu, one, zero)


@jit
def _rnn_loop_backward(w_hh, scratch, z, mask, g_out, dh, dh_product, d, relu):
    """rnn_steps_backward's loop as one kernel."""
    for t in range(d.shape[0] - 1, -1, -1):
        _rnn_cell_backward(t, z, mask, g_out, dh, dh_product, d, relu)
        _matmul_into(w_hh, d[t], dh_product, scratch)


# Against reference.rnn_steps_backward (same shapes): 1.2x at hidden 128, 1.3x at hidden 32,
# 14x at batch 4, hidden 8 (one kernel).
def rnn_steps_backward(z, mask, g_out, dh, w_hh, relu: bool):
    """reference.rnn_steps_backward with each step's elementwise work in one kernel."""
    if not compiled(z, mask, g_out, dh, w_hh):
        return reference.rnn_steps_backward(z, mask, g_out, dh, w_hh, relu)
    d = np.empty_like(g_out)
    dh_product, dh = dh, np.empty_like(dh)
    if _whole_loop(w_hh, dh.shape[1]):
        scratch = np.empty_like(dh.T)
        _rnn_loop_backward(w_hh, scratch, z, mask, g_out, dh, dh_product, d, relu)
    else:
        w_hh_t = np.ascontiguousarray(w_hh.T)
        for t in range(d.shape[0] - 1, -1, -1):
            _rnn_cell_backward(t, z, mask, g_out, dh, dh_product, d, relu)
            np.dot(w_hh_t, d[t], out=dh_product)
    return d, _initial_state_gradient(dh_product, dh, mask)
