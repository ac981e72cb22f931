"""The `optim` kernel family (ember/_cpu/optim.py and its numba twin) through ember.optim,
against torch.optim: parameters and state after several steps in both kernel modes, for
float32 and float64, odd, empty, 0-dim, large (cut into slices run on both threads) and
non-contiguous parameters; and the two implementations against each other."""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import optim as reference
from ember._cpu.tuning import OPTIMIZER_SLICE

numba_optim = pytest.importorskip("ember._cpu.numba.optim")

STEPS = 5
SHAPES = [(3, 5), (7,), (), (0, 4), (OPTIMIZER_SLICE + 1001,)]
CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.9), weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(alpha=0.3, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(momentum=0.9, centered=True, eps=1e-4)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5,
                     maximize=True)),
]
IDS = [name + "".join(f"-{k}={v}" for k, v in kwargs.items()) for name, kwargs in CASES]
# Parameters, and the state (whose small entries, such as centered RMSprop's buffer of
# gradient over root of a difference, carry larger relative errors), as tests/optim.
TOLERANCES = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-14)}
STATE_TOLERANCES = {"float32": dict(rtol=1e-4, atol=1e-5),
                    "float64": dict(rtol=1e-10, atol=1e-12)}


def run(lib, name, kwargs, dtype, shapes=SHAPES, transposed=False, steps=STEPS):
    """Parameters (of `shapes`) and optimizer after `steps` steps on gradients drawn from a
    fixed seed; `transposed` makes the 2-d parameters and gradients non-contiguous."""
    rng = np.random.default_rng(0)

    def tensor(array, **kw):
        t = lib.tensor(array.T.copy() if transposed and array.ndim == 2 else array, **kw)
        return t.t() if transposed and array.ndim == 2 else t
    params = [tensor(rng.standard_normal(s).astype(dtype)).requires_grad_() for s in shapes]
    optimizer = getattr(lib.optim, name)(params, **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = tensor(rng.standard_normal(p.shape).astype(dtype))
        optimizer.step()
    return params, optimizer


def assert_same(ember_run, torch_run, exact=False):
    """Parameters and every state tensor of the two runs agree: to TOLERANCES and
    STATE_TOLERANCES, or bit for bit when `exact`."""
    (eparams, eopt), (tparams, topt) = ember_run, torch_run
    pairs = [(e, t, TOLERANCES) for e, t in zip(eparams, tparams)]
    for e, t in zip(eopt.state.values(), topt.state.values()):
        assert list(e) == list(t)
        pairs += [(e[key], t[key], STATE_TOLERANCES) for key in t]
    for e, t, tolerances in pairs:
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
        if exact:
            np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())
        else:
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), equal_nan=True,
                                       **tolerances[str(t.dtype).removeprefix("torch.")])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_matches_torch(kernels, name, kwargs, dtype):
    assert_same(run(ember, name, kwargs, dtype), run(torch, name, kwargs, dtype))


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_non_contiguous_parameters_and_gradients(kernels, name, kwargs):
    # Transposed 2-d parameters and gradients cannot be cut into flat slices: they are
    # updated whole, by the NumPy reference in both modes.
    shapes = [(3, 5), (40, 70)]
    assert_same(run(ember, name, kwargs, "float32", shapes, transposed=True),
                run(torch, name, kwargs, "float32", shapes, transposed=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES[:4], ids=IDS[:4])
def test_compiled_sgd_has_torchs_bits(name, kwargs, dtype):
    # torch's SGD is three multiply-adds per element, each fused into one rounding on its
    # CPU (add(alpha=) is an fma there); the numba kernel fuses them alike and lands on
    # torch's bits, where NumPy's separate roundings drift by an ulp here and there.
    with ember.backends.cpu.flags(kernels="numba"):
        ember_run = run(ember, name, kwargs, dtype)
    assert_same(ember_run, run(torch, name, kwargs, dtype), exact=True)


def test_amsgrad_keeps_nan_as_torch_does(kernels):
    def nan_step(lib):
        p = lib.tensor(np.ones(4, np.float32), requires_grad=True)
        optimizer = lib.optim.Adam([p], amsgrad=True)
        for grad in ([1.0, np.nan, 2.0, -1.0], [1.0, 1.0, np.inf, 0.5]):
            p.grad = lib.tensor(np.array(grad, np.float32))
            optimizer.step()
        return [p], optimizer
    assert_same(nan_step(ember), nan_step(torch))


# Every kernel with the options that change its arithmetic: (name, number of arrays,
# positions of the arrays the options leave out (None), options).
KERNEL_CALLS = [
    ("sgd", 3, (2,), dict(lr=0.1, weight_decay=0.0, momentum=0.0, dampening=0.0,
                          nesterov=False, maximize=False, first_step=False)),
    ("sgd", 3, (), dict(lr=0.1, weight_decay=0.01, momentum=0.9, dampening=0.2,
                        nesterov=False, maximize=True, first_step=True)),
    ("sgd", 3, (), dict(lr=0.1, weight_decay=0.01, momentum=0.9, dampening=0.0,
                        nesterov=True, maximize=False, first_step=False)),
    ("adam", 5, (4,), dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                           decoupled=False, maximize=False, step=3.0)),
    ("adam", 5, (), dict(lr=1e-2, beta1=0.3, beta2=0.9, eps=1e-6, weight_decay=0.1,
                         decoupled=False, maximize=True, step=1.0)),
    ("adam", 5, (), dict(lr=1e-2, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.1,
                         decoupled=True, maximize=False, step=7.0)),
    ("rmsprop", 5, (3, 4), dict(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0,
                                momentum=0.0, maximize=False)),
    ("rmsprop", 5, (), dict(lr=1e-2, alpha=0.3, eps=1e-4, weight_decay=0.1, momentum=0.9,
                            maximize=True)),
    ("adagrad", 3, (), dict(lr=1e-2, eps=1e-10, weight_decay=0.0, maximize=False)),
    ("adagrad", 3, (), dict(lr=1e-2, eps=1e-6, weight_decay=0.1, maximize=True)),
]
CALL_IDS = [f"{name}-{i}" for i, (name, _, _, _) in enumerate(KERNEL_CALLS)]


def call_both(name, count, drop, options, dtype, prepare=lambda a: a):
    """The arrays after the reference and the numba kernel each ran on its own copy of
    param, grad and state; the positions in `drop` are None. The third array (a running
    square, or a buffer) exceeds the square of the fourth (a running mean, or a running
    square), and both are positive."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(1001).astype(dtype) for _ in range(count)]
    arrays[2:] = [np.abs(a) * scale + shift for a, scale, shift in zip(arrays[2:], (1, 0.5, 1),
                                                                      (10, 0.5, 1))]
    results = []
    for module in (reference, numba_optim):
        copies = [None if i in drop else prepare(a.copy()) for i, a in enumerate(arrays)]
        getattr(module, name)(*copies, **options)
        results.append([a for a in copies if a is not None])
    return results


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,count,drop,options", KERNEL_CALLS, ids=CALL_IDS)
def test_numba_and_reference_agree(name, count, drop, options, dtype):
    # The fused roundings are the only difference: an ulp or so, per step.
    expected, got = call_both(name, count, drop, options, dtype)
    rtol = 1e-6 if dtype == "float32" else 1e-14
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,count,drop,options", KERNEL_CALLS, ids=CALL_IDS)
def test_16_bit_arrays_fall_back_to_the_reference(name, count, drop, options, dtype):
    dtype = ember.bfloat16.numpy if dtype == "bfloat16" else dtype
    for e, g in zip(*call_both(name, count, drop, options, dtype)):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name,count,drop,options", KERNEL_CALLS, ids=CALL_IDS)
def test_strided_arrays_fall_back_to_the_reference(name, count, drop, options):
    for e, g in zip(*call_both(name, count, drop, options, "float32",
                               prepare=lambda a: a[::2])):
        np.testing.assert_array_equal(g, e)
