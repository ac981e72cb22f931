"""ember.optim.Adafactor against torch.optim.Adafactor: same parameters and state."""
import warnings

import numpy as np
import pytest
import torch
import test_optimizers
from oracle import check_error
from test_optimizers import assert_close, assert_same_state, make_params, run, set_grads

import ember
import ember.optim

# Factored (>= 2-D, including a single row or column) and unfactored (1-D, 0-D) parameters.
SHAPES = [(3, 4), (5,), (), (2, 3, 4), (1, 6), (6, 1)]
TOL = dict(rtol=1e-5, atol=1e-7)

CASES = [
    dict(),
    dict(lr=0.05, weight_decay=0.1),
    dict(lr=0.5, maximize=True),                   # rho_t = 1 / sqrt(t) once t > 4
    dict(beta2_decay=-0.5, eps=(1e-10, 1e-2), d=2.0),
    dict(eps=(1e-3, 0.0), weight_decay=0.5, foreach=False),
    dict(lr=0.02, foreach=True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", CASES, ids=[str(k) for k in CASES])
def test_matches_torch(kwargs, dtype):
    # lr=0.5 with maximize grows the weights to ~60: float32 needs an atol of their ulps.
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    assert_same_run(*(run(lib, "Adafactor", kwargs, dtype=dtype, shapes=SHAPES)
                      for lib in (ember, torch)), tol)


def run_groups(lib, dtype="float32"):
    """Three groups with their own lr, weight decay, eps, d and beta2_decay."""
    params = make_params(lib, dtype, shapes=SHAPES)
    opt = lib.optim.Adafactor([{"params": params[:2], "lr": 0.1, "weight_decay": 0.2},
                               {"params": params[2:4], "eps": (1e-4, 1e-1), "d": 1.5},
                               {"params": params[4:], "beta2_decay": -0.3}], lr=0.03)
    for step in range(10):
        set_grads(params, step)
        opt.step()
    return params, opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_param_groups(dtype):
    assert_same_run(run_groups(ember, dtype), run_groups(torch, dtype), TOL)


def test_state_layout():
    params, opt = run(ember, "Adafactor", {}, steps=2, shapes=SHAPES)
    state = opt.state[params[3]]
    assert list(state) == ["step", "row_var", "col_var"]
    assert state["step"].dtype == ember.float32 and state["step"].item() == 2
    assert state["row_var"].shape == (2, 3, 1) and state["col_var"].shape == (2, 1, 4)
    assert list(opt.state[params[1]]) == ["step", "variance"]
    assert opt.state[params[2]]["variance"].shape == ()


def test_zero_and_non_contiguous_gradients():
    """All-zero gradients (the estimate is clamped at eps1 squared) and a transposed grad."""
    check_zero_and_non_contiguous_gradients("Adafactor", dict(weight_decay=0.1),
                                            [(3, 4), (5,)], TOL)


def test_parameters_without_grad_are_skipped():
    params = make_params(ember, shapes=[(3, 4), (5,)])
    before = params[1].detach().numpy().copy()
    opt = ember.optim.Adafactor(params)
    params[0].grad = ember.ones(3, 4)
    opt.step()
    np.testing.assert_array_equal(params[1].detach().numpy(), before)
    assert params[1] not in opt.state and opt.state[params[0]]["step"].item() == 1


def test_empty_parameter():
    """torch 2.13 raises ZeroDivisionError on an empty parameter (its RMS divides by numel);
    ember treats the RMS of nothing as 0, so the empty parameter simply stays empty and
    the other parameters of the group step as they would without it."""
    with pytest.raises(ZeroDivisionError):
        run(torch, "Adafactor", {}, shapes=[(3, 4), (0, 3)])
    eparams, eopt = run(ember, "Adafactor", {}, steps=3, shapes=[(3, 4), (0, 3), (0,)])
    tparams, topt = run(torch, "Adafactor", {}, steps=3, shapes=[(3, 4)])
    assert eparams[1].shape == (0, 3) and eparams[2].shape == (0,)
    assert eopt.state[eparams[1]]["row_var"].shape == (0, 1)
    assert eopt.state[eparams[1]]["col_var"].shape == (1, 3)
    assert eopt.state[eparams[2]]["step"].item() == 3
    assert_close(eparams[0], tparams[0])     # empty draws take no random numbers


def test_tensor_lr():
    check_tensor_lr("Adafactor", SHAPES, TOL)


def test_closure_returns_loss():
    params = make_params(ember)
    opt = ember.optim.Adafactor(params)

    def closure():
        opt.zero_grad()
        loss = sum((p ** 2).sum() for p in params)
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert isinstance(loss, ember.Tensor) and opt.state[params[0]]["step"].item() == 1


def test_repr_and_group_keys():
    check_repr("Adafactor", SHAPES, lr=0.1, eps=(1e-30, 1e-3))


@pytest.mark.parametrize("kwargs,match", [
    (dict(lr=-1.0), r"^Learning rate should be >= 0 but is: -1.0"),
    (dict(beta2_decay=0.5), r"^beta2_decay should be <= 0 but is: 0.5"),
    (dict(eps=(-1.0, 1e-3)), r"^epsilon1 should be >= 0 but is: -1.0"),
    (dict(eps=(None, -1.0)), r"^epsilon2 should be >= 0 but is: -1.0"),
    (dict(d=0.5), r"^Clipping threshold d should be >= 1 but is: 0.5"),
    (dict(weight_decay=-0.1), r"^weight_decay should be >= 0 but is: -0.1"),
])
def test_constructor_errors(kwargs, match):
    check_error(lambda lib: lib.optim.Adafactor(make_params(lib), **kwargs), ValueError, match)


def test_tensor_lr_must_have_one_element():
    check_error(lambda lib: lib.optim.Adafactor(make_params(lib), lr=lib.tensor([0.1, 0.2])),
                ValueError, "^Tensor lr must be 1-element")


def test_complex_parameters_are_refused():
    check_complex_refused("Adafactor")


# ---------------------------------------------------------------- state_dict and schedulers
def test_state_dict_round_trip():
    test_optimizers.test_state_dict_round_trip("Adafactor", dict(lr=0.05, weight_decay=0.1))


def test_loads_torch_state_dict():
    check_loads_torch_state_dict("Adafactor", dict(lr=0.05, weight_decay=0.1), SHAPES, TOL)


def test_with_lr_scheduler():
    check_lr_scheduler("Adafactor", dict(lr=0.5, weight_decay=0.01), SHAPES, TOL,
                       lambda schedulers, opt: schedulers.StepLR(opt, step_size=3, gamma=0.3))


def test_zero_eps1_and_zero_gradient_give_nan_quietly():
    """eps=(0, ...) leaves 0 / 0 in the update: nan in both libraries, without warnings."""
    results = []
    for lib in (ember, torch):
        params = make_params(lib, shapes=[(2, 3), (3,)])
        opt = lib.optim.Adafactor(params, eps=(0.0, 1e-3))
        for p in params:
            p.grad = lib.zeros_like(p)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            opt.step()
        results.append([p.detach().numpy() for p in params])
    for e, t in zip(*results):
        assert np.isnan(e).all() and np.isnan(t).all()


# ---------------------------------------------------------------- checks shared with test_muon.py
def assert_same_run(ember_run, torch_run, tol):
    """Two (params, optimizer) pairs hold the same parameters (dtypes too) and state."""
    (eparams, eopt), (tparams, topt) = ember_run, torch_run
    for e, t in zip(eparams, tparams):
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
        assert_close(e, t, **tol)
    assert_same_state(eopt, topt)


def check_zero_and_non_contiguous_gradients(name, kwargs, shapes, tol):
    """Four steps; in step 1 every gradient is zero, in step 2 the first parameter's (3, 4)
    gradient is a transposed, non-contiguous tensor. Finite results, and no warnings."""
    results = []
    for lib in (ember, torch):
        params = make_params(lib, shapes=shapes)
        opt = getattr(lib.optim, name)(params, **kwargs)
        for step in range(4):
            set_grads(params, step)
            if step == 1:
                for p in params:
                    p.grad = lib.zeros_like(p)
            if step == 2:
                values = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
                params[0].grad = lib.tensor(values).t()
                assert not params[0].grad.is_contiguous()
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                opt.step()
        results.append((params, opt))
    assert all(np.isfinite(p.detach().numpy()).all() for p in results[0][0])
    assert_same_run(*results, tol)


def check_tensor_lr(name, shapes, tol):
    e, _ = run(ember, name, dict(lr=ember.tensor(0.05)), shapes=shapes)
    t, _ = run(torch, name, dict(lr=torch.tensor(0.05)), shapes=shapes)
    for a, b in zip(e, t):
        assert_close(a, b, **tol)


def check_repr(name, shapes, **kwargs):
    topt = getattr(torch.optim, name)(make_params(torch, shapes=shapes), **kwargs)
    eopt = getattr(ember.optim, name)(make_params(ember, shapes=shapes), **kwargs)
    assert list(eopt.defaults) == list(topt.defaults)
    assert list(eopt.param_groups[0]) == list(topt.param_groups[0])
    assert repr(eopt) == repr(topt)


def check_complex_refused(name):
    def step(lib):
        p = lib.zeros(2, 2, dtype=lib.complex64, requires_grad=True)
        opt = getattr(lib.optim, name)([p])
        p.grad = lib.ones(2, 2, dtype=lib.complex64)
        opt.step()
    check_error(step, RuntimeError, f"^{name} does not support complex parameters")


def to_ember(value):
    """A torch state_dict value rebuilt with ember tensors (through NumPy)."""
    if isinstance(value, torch.Tensor):
        return ember.tensor(value.numpy())
    if isinstance(value, dict):
        return {k: to_ember(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_ember(v) for v in value]
    return value


def check_loads_torch_state_dict(name, kwargs, shapes, tol):
    """torch runs 5 steps; ember continues from torch's parameters and state_dict."""
    tparams, topt = run(torch, name, kwargs, steps=5, shapes=shapes)
    eparams = [ember.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tparams]
    eopt = getattr(ember.optim, name)(eparams, **kwargs)
    eopt.load_state_dict(to_ember(topt.state_dict()))
    assert_same_state(eopt, topt)
    for step in range(5, 10):
        for params, opt in ((eparams, eopt), (tparams, topt)):
            set_grads(params, step)
            opt.step()
    assert_same_run((eparams, eopt), (tparams, topt), tol)


def check_lr_scheduler(name, kwargs, shapes, tol, make_scheduler):
    """10 steps under make_scheduler(lib.optim.lr_scheduler, optimizer): same lrs and params."""
    results = []
    for lib in (ember, torch):
        params = make_params(lib, shapes=shapes)
        opt = getattr(lib.optim, name)(params, **kwargs)
        scheduler = make_scheduler(lib.optim.lr_scheduler, opt)
        lrs = []
        for step in range(10):
            set_grads(params, step)
            opt.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr()[0])
        results.append((params, lrs))
    (eparams, elrs), (tparams, tlrs) = results
    np.testing.assert_allclose(elrs, tlrs, rtol=1e-12, atol=1e-15)
    for e, t in zip(eparams, tparams):
        assert_close(e, t, **tol)
