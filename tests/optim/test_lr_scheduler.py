"""ember.optim.lr_scheduler against torch: the lr (and momentum) sequence of every scheduler."""
import math
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.optim
from ember.optim import lr_scheduler as elrs

STEPS = 100


def make_opt(lib, name="SGD", groups=2, **kwargs):
    params = [lib.zeros(2, requires_grad=True) for _ in range(groups)]
    spec = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
    kwargs.setdefault("lr", 0.1)
    if name == "SGD":
        kwargs.setdefault("momentum", 0.9)
    return getattr(lib.optim, name)(spec, **kwargs)


def lr_trace(lib, make_sched, steps=STEPS, opt_name="SGD", metrics=None, resume_at=None):
    """(lrs, momenta) per step; with resume_at, the scheduler is rebuilt from a state_dict."""
    opt = make_opt(lib, opt_name)
    sched = make_sched(lib.optim.lr_scheduler, opt)
    trace = []
    for i in range(steps):
        opt.step()
        sched.step(*([metrics[i]] if metrics is not None else []))
        group = opt.param_groups[0]
        momentum = group["betas"][0] if "betas" in group else group.get("momentum")
        trace.append((sched.get_last_lr(), [g["lr"] for g in opt.param_groups], momentum))
        if resume_at == i:
            opt_state, sched_state = opt.state_dict(), sched.state_dict()
            opt = make_opt(lib, opt_name)
            sched = make_sched(lib.optim.lr_scheduler, opt)
            opt.load_state_dict(opt_state)
            sched.load_state_dict(sched_state)
    return trace


def assert_traces_equal(e, t):
    assert len(e) == len(t)
    for i, ((elast, elrs_, em), (tlast, tlrs, tm)) in enumerate(zip(e, t)):
        np.testing.assert_allclose(elast, tlast, rtol=1e-12, atol=1e-15, err_msg=f"step {i}")
        np.testing.assert_allclose(elrs_, tlrs, rtol=1e-12, atol=1e-15, err_msg=f"step {i}")
        np.testing.assert_allclose(em, tm, rtol=1e-12, err_msg=f"step {i}")


SCHEDULERS = {
    "LambdaLR": lambda m, o: m.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-list": lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[10, 30, 30, 80], gamma=0.3),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=13),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=40),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.96),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=60, power=2.0),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=30, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=10),
    "CosineAnnealingWarmRestarts-mult": lambda m, o: m.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=0.01),
    "CyclicLR": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7),
    "CyclicLR-tri2": lambda m, o: m.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1,
                                             step_size_up=5, step_size_down=9,
                                             mode="triangular2"),
    "CyclicLR-exp": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=6,
                                            mode="exp_range", gamma=0.98,
                                            base_momentum=0.7, max_momentum=0.95),
    "CyclicLR-nomom": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=4,
                                              cycle_momentum=False),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=0.5, total_steps=STEPS + 1),
    "OneCycleLR-linear-3": lambda m, o: m.OneCycleLR(o, max_lr=[0.5, 1.0], epochs=10,
                                                     steps_per_epoch=11, pct_start=0.25,
                                                     anneal_strategy="linear",
                                                     three_phase=True),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=10), m.ExponentialLR(o, gamma=0.9),
            m.CosineAnnealingLR(o, T_max=20)], milestones=[10, 40]),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.5, total_iters=8), m.ExponentialLR(o, gamma=0.98),
         m.StepLR(o, 25, 0.5)]),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence(name):
    make = SCHEDULERS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_traces_equal(lr_trace(ember, make), lr_trace(torch, make))


@pytest.mark.parametrize("name", [n for n in SCHEDULERS if "Lambda" not in n
                                  and n not in ("SequentialLR", "ChainedScheduler")])
def test_resume_from_state_dict(name):
    make = SCHEDULERS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        straight = lr_trace(ember, make)
        resumed = lr_trace(ember, make, resume_at=40)
        assert_traces_equal(resumed, lr_trace(torch, make, resume_at=40))
    assert_traces_equal(resumed, straight)


def test_cyclic_lr_with_adam_betas():
    make = SCHEDULERS["CyclicLR"]
    assert_traces_equal(lr_trace(ember, make, opt_name="Adam"),
                        lr_trace(torch, make, opt_name="Adam"))


@pytest.mark.parametrize("kwargs", [dict(), dict(mode="max", factor=0.5, patience=2),
                                    dict(threshold_mode="abs", threshold=0.05, cooldown=3,
                                         patience=1, min_lr=[0.01, 0.005]),
                                    dict(mode="max", threshold_mode="abs", eps=0.05)])
def test_reduce_on_plateau(kwargs):
    r = np.random.default_rng(0)
    metrics = list(np.abs(np.cumsum(r.standard_normal(STEPS))) + 1.0)

    def make(m, o):
        return m.ReduceLROnPlateau(o, **kwargs)
    assert_traces_equal(lr_trace(ember, make, metrics=metrics),
                        lr_trace(torch, make, metrics=metrics))
    assert_traces_equal(lr_trace(ember, make, metrics=metrics, resume_at=30),
                        lr_trace(ember, make, metrics=metrics))


def test_warm_restarts_fractional_epochs():
    results = []
    for lib in (ember, torch):
        opt = make_opt(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in range(12):
                for batch in range(4):
                    sched.step(epoch + batch / 4)
                    lrs.append(sched.get_last_lr())
        results.append(lrs)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "LinearLR",
                                  "ConstantLR", "PolynomialLR", "CosineAnnealingLR"])
def test_step_with_epoch_uses_closed_form(name):
    make = SCHEDULERS[name]
    results = []
    for lib in (ember, torch):
        opt = make_opt(lib)
        sched = make(lib.optim.lr_scheduler, opt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append([(sched.step(e), sched.get_last_lr())[1] for e in [3, 17, 8, 50]])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_initial_lr_and_last_epoch():
    opt = make_opt(ember)
    sched = elrs.StepLR(opt, 3)
    assert opt.param_groups[0]["initial_lr"] == 0.1 and sched.base_lrs == [0.1, 0.2]
    assert sched.last_epoch == 0
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups"):
        elrs.StepLR(make_opt(ember), 3, last_epoch=5)


def test_scheduler_before_optimizer_warning():
    for lib in (torch, ember):
        opt = make_opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 3)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                                             r"`optimizer.step\(\)`"):
            sched.step()
    opt = make_opt(ember)
    sched = elrs.StepLR(opt, 3)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_get_lr_outside_step_warns():
    sched = elrs.StepLR(make_opt(ember), 3)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


class WarmupThenDecay:
    """A user-written scheduler in the classic style: subclass, override get_lr()."""

    @staticmethod
    def build(lib):
        class Warmup(lib.optim.lr_scheduler.LRScheduler):
            def __init__(self, optimizer, warmup, last_epoch=-1):
                self.warmup = warmup
                super().__init__(optimizer, last_epoch)

            def get_lr(self):
                if self.last_epoch < self.warmup:
                    scale = (self.last_epoch + 1) / self.warmup
                else:
                    scale = 0.5 ** ((self.last_epoch - self.warmup) // 10)
                return [base * scale for base in self.base_lrs]
        return Warmup


def test_custom_warmup_subclass():
    traces = []
    for lib in (ember, torch):
        cls = WarmupThenDecay.build(lib)
        traces.append(lr_trace(lib, lambda m, o: cls(o, warmup=8)))
    assert_traces_equal(*traces)
    legacy = type("Legacy", (elrs._LRScheduler,), {"get_lr": lambda self: self.base_lrs})
    assert legacy(make_opt(ember)).get_last_lr() == [0.1, 0.2]


def test_lambda_state_dict_keeps_callable_objects():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch
    fn = Decay()
    sched = elrs.LambdaLR(make_opt(ember), [fn, lambda e: 1.0])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.5}, None]
    fn.rate = 0.9
    sched.load_state_dict(state)
    assert fn.rate == 0.5
    pickle.dumps(state)


def test_checkpoint_resume_optimizer_and_scheduler():
    """5 steps, save optimizer + scheduler, rebuild, load, 5 more == 10 straight steps."""
    def train(steps, state=None):
        p = ember.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = ember.optim.Adam([p], lr=0.1)
        sched = elrs.OneCycleLR(opt, max_lr=0.3, total_steps=20)
        if state is not None:
            p.data = ember.tensor(state["p"])
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
        for _ in range(steps):
            opt.zero_grad()
            (p * p * ember.arange(1.0, 4.0)).sum().backward()
            opt.step()
            sched.step()
        return p, opt, sched
    straight, _, _ = train(10)
    p, opt, sched = train(5)
    blob = pickle.loads(pickle.dumps({"p": p.detach().numpy().copy(), "opt": opt.state_dict(),
                                      "sched": sched.state_dict()}))
    resumed, _, _ = train(5, blob)
    np.testing.assert_array_equal(resumed.detach().numpy(), straight.detach().numpy())


def test_tensor_lr_updated_in_place():
    p = ember.zeros(2, requires_grad=True)
    lr = ember.tensor(0.1)
    opt = ember.optim.Adam([p], lr=lr)
    sched = elrs.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and math.isclose(float(lr), 0.05, rel_tol=1e-6)


def test_errors():
    def both(fn, error, match):
        for lib in (torch, ember):
            with pytest.raises(error, match=match):
                fn(lib.optim.lr_scheduler, make_opt(lib))
    both(lambda m, o: m.StepLR(object(), 3), TypeError, "^object is not an Optimizer")
    both(lambda m, o: m.ConstantLR(o, factor=2.0), ValueError,
         "^Constant multiplicative factor expected to be between 0 and 1.")
    both(lambda m, o: m.LambdaLR(o, [lambda e: 1.0]), ValueError, "^Expected 2 lr_lambdas, but got 1")
    both(lambda m, o: m.ReduceLROnPlateau(o, factor=1.0), ValueError, r"^Factor should be < 1.0.")
    both(lambda m, o: m.ReduceLROnPlateau(o, mode="up"), ValueError, "^mode up is unknown!")
    both(lambda m, o: m.OneCycleLR(o, 0.1), ValueError,
         r"^You must define either total_steps OR \(epochs AND steps_per_epoch\)")
    both(lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0), ValueError,
         "^Expected positive integer T_0, but got 0")
    both(lambda m, o: m.CyclicLR(make_opt(ember if m is elrs else torch, "Adagrad"), 0.1, 1.0),
         ValueError, "^optimizer must support momentum or beta1 with `cycle_momentum`")
    both(lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2)], milestones=[3]), ValueError,
         "^Sequential Schedulers expects number of schedulers provided to be one more")

    def too_far(m, o):
        s = m.OneCycleLR(o, 0.1, total_steps=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                s.step()
    both(too_far, ValueError, "^Tried to step 3 times. The specified number of total steps is 2")
