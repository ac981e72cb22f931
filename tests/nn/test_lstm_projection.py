"""LSTM with proj_size (ember/nn/functional/rnn.py, LSTMLayer) against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import assert_same, check_error

TOL = {"float32": (1e-5, 1e-4), "float64": (1e-10, 1e-8)}


def _pair(dtype, **options):
    torch.manual_seed(0)
    t_mod = torch.nn.LSTM(6, 8, **options).to(getattr(torch, dtype))
    e_mod = ember.nn.LSTM(6, 8, **options).to(getattr(ember, dtype))
    assert repr(e_mod) == repr(t_mod)
    assert [(k, tuple(v.shape)) for k, v in e_mod.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t_mod.state_dict().items()]
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def _compare_grads(t_mod, e_mod, dtype):
    atol, rtol = TOL[dtype]
    for (name, tp), ep in zip(t_mod.named_parameters(), e_mod.parameters()):
        assert_same(ep.grad, tp.grad, atol, rtol, name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", [dict(proj_size=3), dict(proj_size=5, num_layers=2),
                                     dict(proj_size=2, bidirectional=True, bias=False),
                                     dict(proj_size=4, batch_first=True, num_layers=2,
                                          bidirectional=True)])
@pytest.mark.parametrize("initial_state", [False, True])
def test_projected_lstm_matches_torch(dtype, options, initial_state):
    t_mod, e_mod = _pair(dtype, **options)
    atol, rtol = TOL[dtype]
    rng = np.random.default_rng(1)
    shape = (3, 5, 6) if options.get("batch_first") else (5, 3, 6)
    x = rng.standard_normal(shape).astype(dtype)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    states = (rng.standard_normal((layers, 3, options["proj_size"])).astype(dtype),
              rng.standard_normal((layers, 3, 8)).astype(dtype))
    results = []
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        xt = lib.tensor(x, requires_grad=True)
        hx = tuple(lib.tensor(s, requires_grad=True) for s in states) if initial_state \
            else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # torch: no oneDNN kernel for projections
            out, (h, c) = mod(xt, hx)
        seeds = [np.random.default_rng(2 + k).standard_normal(tuple(t.shape)).astype(dtype)
                 for k, t in enumerate((out, h, c))]
        sum((t * lib.tensor(s)).sum() for t, s in zip((out, h, c), seeds)).backward()
        results.append((out, h, c, xt.grad) + (tuple(s.grad for s in hx) if hx else ()))
    for e, t in zip(results[1], results[0]):
        assert_same(e, t, atol, rtol)
    _compare_grads(t_mod, e_mod, dtype)


def test_projected_lstm_on_packed_sequences():
    t_mod, e_mod = _pair("float64", proj_size=3, bidirectional=True)
    x = np.random.default_rng(3).standard_normal((6, 4, 6))
    lengths = [6, 4, 3, 1]
    outs = []
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(x), lengths,
                                                       enforce_sorted=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, (h, c) = mod(packed)
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out)
        (padded.pow(2).sum() + h.pow(2).sum() + c.sum()).backward()
        outs.append((padded, h, c))
    for e, t in zip(outs[1], outs[0]):
        assert_same(e, t, 1e-10, 1e-8)
    _compare_grads(t_mod, e_mod, "float64")


def test_projection_errors():
    check_error(lambda lib: lib.nn.LSTM(10, 20, proj_size=-1), ValueError,
                "^proj_size should be a positive integer or zero to disable projections$")
    check_error(lambda lib: lib.nn.LSTM(10, 20, proj_size=20), ValueError,
                "^proj_size has to be smaller than hidden_size$")
    check_error(lambda lib: lib.nn.GRU(10, 20, proj_size=5), ValueError,
                "^proj_size argument is only supported for LSTM, not RNN or GRU$")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(lambda lib: lib.nn.LSTM(10, 20, proj_size=5)(
            lib.zeros(3, 4, 10), (lib.zeros(1, 4, 20), lib.zeros(1, 4, 20))), RuntimeError,
            r"^Expected hidden\[0\] size \(1, 4, 5\), got \[1, 4, 20\]$")
        check_error(lambda lib: lib.nn.LSTM(10, 20, proj_size=5)(
            lib.zeros(3, 4, 10), (lib.zeros(1, 4, 5), lib.zeros(1, 4, 5))), RuntimeError,
            r"^Expected hidden\[1\] size \(1, 4, 20\), got \[1, 4, 5\]$")
        check_error(lambda lib: lib.nn.GRU(10, 20)(lib.zeros(3, 4, 10), lib.zeros(1, 4, 21)),
                    RuntimeError, r"^Expected hidden size \(1, 4, 20\), got \[1, 4, 21\]$")
