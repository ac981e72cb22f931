"""ember.optim.swa_utils against torch: averaged weights, EMA, SWALR, update_bn."""

import numpy as np
import pytest
import torch

import ember
import ember.optim
from ember.optim import swa_utils


def build(lib, seed=0):
    """Linear(3, 2) plus a float buffer and an integer buffer, same values in both libs."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 2)
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("count", lib.tensor(0))

        def forward(self, x):
            return self.fc(x)
    net = Net()
    r = np.random.default_rng(seed)
    with lib.no_grad():
        net.fc.weight.copy_(lib.tensor(r.standard_normal((2, 3)).astype(np.float32)))
        net.fc.bias.copy_(lib.tensor(r.standard_normal(2).astype(np.float32)))
    return net


def train_step(lib, net, step):
    """A deterministic change of every parameter and buffer."""
    r = np.random.default_rng(100 + step)
    with lib.no_grad():
        for p in net.parameters():
            p.add_(lib.tensor(r.standard_normal(tuple(p.shape)).astype(np.float32)))
        net.running.add_(lib.tensor(r.standard_normal(2).astype(np.float32)))
        net.count.add_(3)


def average(lib, steps=6, **kwargs):
    net = build(lib)
    avg_kwargs = {}
    for key, value in kwargs.items():
        avg_kwargs[key] = value(lib) if callable(value) else value
    swa = lib.optim.swa_utils.AveragedModel(net, **avg_kwargs)
    for step in range(steps):
        train_step(lib, net, step)
        swa.update_parameters(net)
    return net, swa


def float_state(model):
    return {k: v.detach().numpy() for k, v in model.state_dict().items()
            if v.is_floating_point()}


CASES = {
    "swa": dict(),
    "swa-buffers": dict(use_buffers=True),
    "ema-multi": dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)),
    "ema-multi-buffers": dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(
        0.8), use_buffers=True),
    "ema-avg": dict(avg_fn=lambda lib: lib.optim.swa_utils.get_ema_avg_fn(0.9)),
    "swa-avg": dict(avg_fn=lambda lib: lib.optim.swa_utils.get_swa_avg_fn()),
    "swa-multi": dict(multi_avg_fn=lambda lib: lib.optim.swa_utils.get_swa_multi_avg_fn()),
}


@pytest.mark.parametrize("name", list(CASES))
def test_averaged_model_matches_torch(name):
    enet, eswa = average(ember, **CASES[name])
    tnet, tswa = average(torch, **CASES[name])
    estate, tstate = float_state(eswa), float_state(tswa)
    assert list(eswa.state_dict()) == list(tswa.state_dict())
    assert estate.keys() == tstate.keys()
    for key in tstate:
        np.testing.assert_allclose(estate[key], tstate[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert int(eswa.n_averaged) == int(tswa.n_averaged) == 6
    assert eswa.n_averaged.dtype == ember.int64
    # Integer buffers follow the model (copied, never averaged or cast).
    assert int(eswa.module.count) == int(enet.count) == 18


def test_averaged_model_forward_and_independence():
    net = build(ember)
    swa = swa_utils.AveragedModel(net)
    x = ember.ones(4, 3)
    np.testing.assert_allclose(swa(x).detach().numpy(), net(x).detach().numpy())
    assert swa.module.fc.weight is not net.fc.weight
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(net, avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match=r"^Invalid decay value 1.5 provided"):
        swa_utils.get_ema_avg_fn(1.5)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.5],
                                                            anneal_epochs=4,
                                                            anneal_strategy="linear"),
                                    dict(swa_lr=0.01, anneal_epochs=0)])
def test_swalr_matches_torch(kwargs):
    traces = []
    for lib in (ember, torch):
        params = [lib.zeros(2, requires_grad=True) for _ in range(2)]
        opt = lib.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.3}],
                            lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        trace = []
        for step in range(15):
            opt.step()
            sched.step()
            trace.append(sched.get_last_lr())
            if step == 6:
                state = sched.state_dict()
                sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
                sched.load_state_dict(state)
        traces.append(trace)
    np.testing.assert_allclose(traces[0], traces[1], rtol=1e-12)


def test_swalr_errors():
    opt = ember.optim.SGD([ember.zeros(2, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(opt, 0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="^anneal_epochs must be equal or greater than 0"):
        swa_utils.SWALR(opt, 0.1, anneal_epochs=-1)


def test_swa_training_loop():
    """The documented recipe: SGD, then SWA with SWALR after a few epochs."""
    results = []
    for lib in (ember, torch):
        net = build(lib)
        opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        swa = lib.optim.swa_utils.AveragedModel(net)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=3)
        x = lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3))
        for epoch in range(10):
            opt.zero_grad()
            (net(x) ** 2).mean().backward()
            opt.step()
            if epoch >= 4:
                swa.update_parameters(net)
                sched.step()
        results.append(float_state(swa))
    for key in results[1]:
        np.testing.assert_allclose(results[0][key], results[1][key], rtol=1e-5, atol=1e-6)


def test_update_bn():
    results = []
    for lib in (ember, torch):
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4, momentum=0.3))
        with lib.no_grad():
            for i, p in enumerate(net.parameters()):
                p.copy_(lib.tensor(np.linspace(-1, 1, p.numel(), dtype=np.float32)
                                   .reshape(tuple(p.shape)) * (i + 1)))
        net.eval()
        r = np.random.default_rng(0)
        loader = [(lib.tensor(r.standard_normal((5, 3)).astype(np.float32)), 0)
                  for _ in range(4)]
        lib.optim.swa_utils.update_bn(loader, net)
        assert not net.training and net[1].momentum == 0.3
        results.append({k: v.numpy() for k, v in net.state_dict().items()})
    for key in results[1]:
        np.testing.assert_allclose(results[0][key], results[1][key], rtol=1e-5, err_msg=key)


def test_update_bn_without_batchnorm_is_a_no_op():
    net = build(ember)
    swa_utils.update_bn([ember.ones(2, 3)], net)


def test_replacing_a_parameter_after_building_the_optimizer_warns():
    layer = ember.nn.Linear(3, 2)
    opt = ember.optim.SGD(layer.parameters(), lr=0.1)
    layer.weight = ember.nn.Parameter(ember.zeros(2, 3))
    (layer(ember.ones(1, 3)).sum()).backward()
    with pytest.warns(UserWarning, match="'Linear.weight' was assigned a new Parameter"):
        opt.step()
