"""The rnn kernel family (ember/_cpu/rnn.py, its numba twin ember/_cpu/numba/rnn.py):
LSTM, GRU and Elman RNN layers against torch in both kernel modes and with both numba
time loops (BLAS and a fused kernel per step, or the whole loop in one kernel); the numba
loops against the NumPy ones on the same arrays; and the fallbacks to the NumPy loops."""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import kernels as kernels_module
from ember._cpu import rnn as reference
from ember._cpu import tuning
from oracle import assert_same, check

nb = pytest.importorskip("ember._cpu.numba.rnn")
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported")

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


@pytest.fixture(params=["numpy", "numba_per_step", "numba_whole_loop"])
def implementation(request, monkeypatch):
    """The `kernels` fixture with the numba mode run twice, once per numba time loop:
    BLAS and a fused kernel per step, or the whole loop in one kernel."""
    choice = request.param.partition("_")[0]
    if choice == "numba" and not kernels_module.numba_available():
        pytest.skip("numba is not installed (the ember[fast] extra)")
    monkeypatch.setattr(tuning, "RNN_FUSED_LOOP_WORK",
                        1 << 40 if request.param == "numba_whole_loop" else 0)
    with ember.backends.cpu.flags(kernels=choice):
        yield request.param


@pytest.fixture(params=["per_step", "whole_loop"])
def loop(request, monkeypatch):
    """Which numba time loop the functions of ember._cpu.numba.rnn run."""
    monkeypatch.setattr(tuning, "RNN_FUSED_LOOP_WORK",
                        1 << 40 if request.param == "whole_loop" else 0)
    return request.param


def _weights(cls_name, inputs, hidden, options, dtype, seed=1):
    """Arrays for every parameter of the layer, in torch's order, scaled as torch's init."""
    module = getattr(ember.nn, cls_name)(inputs, hidden, **options)
    r = np.random.default_rng(seed)
    bound = 1 / np.sqrt(hidden)
    return [r.uniform(-bound, bound, tuple(p.shape)).astype(dtype)
            for p in module.parameters()]


def _layer(cls_name, inputs, hidden, options, lengths=None):
    """fn(lib, x, h0, [c0], *weights) for the oracle: the layer's output and final state(s)
    (the packed output's data when `lengths` is given)."""
    def fn(lib, x, *arrays):
        module = getattr(lib.nn, cls_name)(inputs, hidden, **options).to(x.dtype)
        states = 2 if cls_name == "LSTM" else 1
        hx = arrays[:states] if states == 2 else arrays[0]
        params = dict(zip([n for n, _ in module.named_parameters()], arrays[states:]))
        if lengths is not None:
            x = lib.nn.utils.rnn.pack_padded_sequence(x, lib.tensor(lengths),
                                                      enforce_sorted=False)
        out, state = lib.func.functional_call(module, params, (x, hx))
        out = out.data if lengths is not None else out
        return (out,) + (state if isinstance(state, tuple) else (state,))
    return fn


def _inputs(cls_name, steps, batch, inputs, hidden, options, dtype):
    """x (time-major unless batch_first), the initial state(s) and the weights."""
    r = np.random.default_rng(0)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    out_size = options.get("proj_size") or hidden
    x_shape = (batch, steps, inputs) if options.get("batch_first") else (steps, batch, inputs)
    states = [(layers, batch, out_size)] + ([(layers, batch, hidden)]
                                            if cls_name == "LSTM" else [])
    return ([r.standard_normal(x_shape).astype(dtype)]
            + [r.standard_normal(s).astype(dtype) for s in states]
            + _weights(cls_name, inputs, hidden, options, dtype))


CASES = [("LSTM", {}), ("LSTM", dict(num_layers=2, bidirectional=True, bias=False)),
         ("LSTM", dict(proj_size=3, batch_first=True)), ("GRU", {}),
         ("GRU", dict(bidirectional=True, batch_first=True)), ("RNN", {}),
         ("RNN", dict(nonlinearity="relu", num_layers=2, bias=False))]


@pytest.mark.parametrize("cls_name, options", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layers_match_torch(implementation, cls_name, options, dtype):
    # values of the output and final states; gradients of x, the states and every weight
    arrays = _inputs(cls_name, 6, 3, 5, 7, options, dtype)
    check(_layer(cls_name, 5, 7, options), *arrays, dtype=dtype)


@pytest.mark.parametrize("cls_name, options", CASES)
def test_packed_sequences_match_torch(implementation, cls_name, options):
    options = {k: v for k, v in options.items() if k != "batch_first"}
    arrays = _inputs(cls_name, 6, 4, 5, 7, options, "float64")
    check(_layer(cls_name, 5, 7, options, lengths=[6, 2, 1, 4]), *arrays, dtype="float64")


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("steps, batch, inputs, hidden", [(1, 1, 1, 1), (3, 2, 4, 3),
                                                          (4, 0, 3, 2), (12, 20, 16, 64)])
def test_odd_and_language_model_shapes(implementation, cls_name, steps, batch, inputs, hidden):
    arrays = _inputs(cls_name, steps, batch, inputs, hidden, {}, "float32")
    check(_layer(cls_name, inputs, hidden, {}), *arrays)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
def test_non_contiguous_inputs(implementation, cls_name):
    arrays = _inputs(cls_name, 5, 3, 4, 6, {}, "float32")
    check(_layer(cls_name, 4, 6, {}), *arrays, non_contiguous=True)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
def test_float16_runs_the_numpy_loop(kernels, cls_name):
    # the numba loops are compiled for float32 and float64 only
    arrays = _inputs(cls_name, 4, 3, 4, 5, {}, "float16")
    check(_layer(cls_name, 4, 5, {}), *arrays, dtype="float16")


@pytest.mark.parametrize("forward_kernels, backward_kernels", [("numba", "numpy"),
                                                               ("numpy", "numba")])
@pytest.mark.parametrize("cls_name", ["LSTM", "GRU", "RNN"])
def test_forward_and_backward_may_use_different_kernels(forward_kernels, backward_kernels,
                                                        cls_name):
    # both implementations fill in and read the same arrays
    r = np.random.default_rng(3)
    x = r.standard_normal((5, 3, 4)).astype(np.float32)
    seed = r.standard_normal((5, 3, 6)).astype(np.float32)
    torch.manual_seed(0)
    modules = {torch: getattr(torch.nn, cls_name)(4, 6), ember: getattr(ember.nn, cls_name)(4, 6)}
    modules[ember].load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                                    modules[torch].state_dict().items()})
    results = []
    for lib, module in modules.items():
        xx = lib.tensor(x, requires_grad=True)
        with ember.backends.cpu.flags(kernels=forward_kernels):
            out, _ = module(xx)
        with ember.backends.cpu.flags(kernels=backward_kernels):
            (out * lib.tensor(seed)).sum().backward()
        results.append([out, xx.grad] + [p.grad for p in module.parameters()])
    assert_same(results[1], results[0], 1e-5, 1e-4)


# ---------------------------------------------------------------- on the arrays directly
def _layer_arrays(kind, dtype, lengths, bias=True, relu=False, projection=False):
    """Arguments of reference.<kind>_forward for a small layer."""
    r = np.random.default_rng(4)
    steps, batch, inputs, hidden = 6, 4, 3, 5
    out_size = 2 if projection else hidden
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[kind] * hidden
    bound = 1 / np.sqrt(hidden)

    def uniform(*shape):
        return r.uniform(-bound, bound, shape).astype(dtype)
    x = r.standard_normal((steps, batch, inputs)).astype(dtype)
    h0 = r.standard_normal((batch, out_size)).astype(dtype)
    weights = (uniform(gates, inputs), uniform(gates, out_size),
               uniform(gates) if bias else None, uniform(gates) if bias else None)
    if kind == "lstm":
        c0 = r.standard_normal((batch, hidden)).astype(dtype)
        return (x, h0, c0) + weights + (uniform(out_size, hidden) if projection else None,
                                        lengths)
    return (x, h0) + weights + (lengths,) + ((relu,) if kind == "rnn" else ())


def _forward_backward(module, kind, args):
    """Outputs of module.<kind>_forward and the gradients from its backward."""
    *outputs, saved = getattr(module, kind + "_forward")(*args)
    seeds = [np.random.default_rng(5 + k).standard_normal(o.shape).astype(o.dtype)
             for k, o in enumerate(outputs)]
    return outputs + list(getattr(module, kind + "_backward")(saved, *seeds, True))


@pytest.mark.parametrize("kind, options", [("lstm", {}), ("lstm", dict(bias=False)),
                                           ("gru", {}), ("gru", dict(bias=False)),
                                           ("rnn", {}), ("rnn", dict(relu=True))])
@pytest.mark.parametrize("lengths", [None, np.array([6, 3, 1, 6])])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numba_loops_agree_with_numpy_loops(loop, kind, options, lengths, dtype):
    # float32 differs by the rounding of tanh (at most half an ulp each, NumPy's 1.4 ulp);
    # float64 uses the same libm tanh, the sums of the whole loop's products differ in order
    args = _layer_arrays(kind, dtype, lengths, **options)
    atol = 1e-5 if dtype == np.float32 else 1e-13
    expected = _forward_backward(reference, kind, args)
    for e, t in zip(_forward_backward(nb, kind, args), expected):
        assert (e is None) == (t is None)
        if t is not None:
            assert e.dtype == t.dtype and e.shape == t.shape
            np.testing.assert_allclose(e, t, atol=atol, rtol=atol)


@pytest.mark.parametrize("kind, dtype, options", [
    ("lstm", np.float16, {}), ("gru", np.float16, {}), ("rnn", np.float16, {}),
    ("lstm", np.float32, dict(projection=True))])
def test_fallbacks_run_the_numpy_loops(kind, dtype, options):
    # float16 and the LSTM's projection: identical to the reference, bit for bit
    args = _layer_arrays(kind, dtype, np.array([6, 2, 5, 1]), **options)
    for e, t in zip(_forward_backward(nb, kind, args), _forward_backward(reference, kind, args)):
        np.testing.assert_array_equal(e, t)


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn"])
def test_float64_forward_steps_run_the_numpy_loop(monkeypatch, kind):
    # per step, float64 spends its time in libm's tanh, no faster in numba than in NumPy
    monkeypatch.setattr(tuning, "RNN_FUSED_LOOP_WORK", 0)
    args = _layer_arrays(kind, np.float64, None)
    expected = getattr(reference, kind + "_forward")(*args)
    for e, t in zip(getattr(nb, kind + "_forward")(*args)[:-1], expected[:-1]):
        np.testing.assert_array_equal(e, t)


def _through_rnn_cell(values, relu=False):
    """values through the Elman RNN's step kernel, which applies tanh (or relu) in place."""
    z = np.zeros((2,) + values.shape, dtype=values.dtype)
    z[1] = values
    nb._rnn_cell(0, values.shape[0], z, None, relu)
    return z[1]


def test_float32_tanh_is_within_half_an_ulp():
    r = np.random.default_rng(6)
    x = np.concatenate([[3e38, -3e38], r.uniform(-12, 12, 399_998), np.geomspace(1e-30, 1, 50_000),
                        -np.geomspace(1e-30, 1, 50_000)]).astype(np.float32)
    got = _through_rnn_cell(x.reshape(-1, 100)).ravel()
    exact = np.tanh(x.astype(np.float64))
    assert np.all(np.abs(got - exact) <= 0.51 * np.spacing(np.abs(exact).astype(np.float32)))
    np.testing.assert_array_equal(got[x > 9.1], 1)        # as tanh rounds
    special = np.array([[np.inf, -np.inf, np.nan, -0.0]], dtype=np.float32)
    got = _through_rnn_cell(special)
    np.testing.assert_array_equal(got, [[1, -1, np.nan, -0.0]])
    assert np.signbit(got[0, 3])
    np.testing.assert_array_equal(_through_rnn_cell(special, relu=True), [[np.inf, 0, np.nan, 0]])

