"""GradScaler against torch's GradScaler('cpu'): same scales, same skipped steps, same
parameters, on identical gradient sequences with injected inf/NaN."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

LIBS = pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])


def train(lib, inject, dtype="float32", **scaler_kwargs):
    """A few SGD steps on a linear model; `inject[i]` poisons step i's gradient."""
    r = np.random.default_rng(0)
    w = lib.tensor(r.standard_normal((3, 4)).astype(dtype), requires_grad=True)
    b = lib.tensor(r.standard_normal(3).astype(dtype), requires_grad=True)
    opt = lib.optim.SGD([w, b], lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", **scaler_kwargs)
    history = []
    for i, poison in enumerate(inject):
        x = lib.tensor(r.standard_normal((5, 4)).astype(dtype))
        opt.zero_grad()
        loss = ((x @ w.t() + b) ** 2).mean()
        scaler.scale(loss).backward()
        if poison is not None:
            w.grad[i % 3, 1] = poison
        result = scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), scaler._get_growth_tracker(), result,
                        w.detach().float().numpy().copy(), b.detach().float().numpy().copy()))
    return history


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("inject", [
    [None] * 8,
    [INF, None, None, None, NAN, None, None, None, -INF, None],
    [NAN, NAN, NAN, None, None, None, None],
])
@pytest.mark.parametrize("kwargs", [
    {}, {"init_scale": 8.0, "growth_interval": 2}, {"growth_factor": 4.0, "backoff_factor": 0.25,
                                                     "growth_interval": 3},
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(inject, kwargs, dtype):
    expected = train(torch, inject, dtype, **kwargs)
    got = train(ember, inject, dtype, **kwargs)
    for step, (e, t) in enumerate(zip(got, expected)):
        assert e[:3] == t[:3], f"step {step}: scale/tracker/result {e[:3]} vs torch's {t[:3]}"
        np.testing.assert_allclose(e[3], t[3], rtol=1e-6, atol=1e-6, err_msg=f"w, step {step}")
        np.testing.assert_allclose(e[4], t[4], rtol=1e-6, atol=1e-6, err_msg=f"b, step {step}")


def test_scale_growth_stops_at_float32_overflow():
    for lib in (torch, ember):
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 127, growth_interval=1)
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        scaler.scale(w.sum()).backward()
        scaler.step(opt)
        scaler.update()
        assert scaler.get_scale() == 2.0 ** 127
        assert scaler._get_growth_tracker() == 0


@LIBS
def test_scale_outputs(lib):
    scaler = lib.amp.GradScaler("cpu", init_scale=4.0)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = scaler.scale(x)
    assert out.tolist() == [4.0, 8.0] and out.requires_grad
    assert type(scaler.scale([x, x])) is list and type(scaler.scale((x,))) is tuple
    assert [t.tolist() for t in scaler.scale(iter([x]))] == [[4.0, 8.0]]
    assert scaler.scale(x.to(lib.bfloat16)).dtype == lib.bfloat16
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3.0)


def run_errors(lib):
    w = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    return w, opt, scaler


def test_errors_match_torch():
    def unscale_twice(lib):
        w, opt, scaler = run_errors(lib)
        scaler.scale(w.sum()).backward()
        scaler.unscale_(opt)
        scaler.unscale_(opt)
    check_error(unscale_twice, RuntimeError,
                r"^unscale_\(\) has already been called on this optimizer since the last update")

    def unscale_after_step(lib):
        w, opt, scaler = run_errors(lib)
        scaler.scale(w.sum()).backward()
        scaler.step(opt)
        scaler.unscale_(opt)
    check_error(unscale_after_step, RuntimeError, r"^unscale_\(\) is being called after step")

    def step_twice(lib):
        w, opt, scaler = run_errors(lib)
        scaler.scale(w.sum()).backward()
        scaler.step(opt)
        scaler.step(opt)
    check_error(step_twice, RuntimeError, r"^step\(\) has already been called since the last")

    def closure(lib):
        w, opt, scaler = run_errors(lib)
        scaler.scale(w.sum()).backward()
        scaler.step(opt, closure=lambda: 0)
    check_error(closure, RuntimeError, "^Closure use is not currently supported")

    def before_scale(lib):
        w, opt, scaler = run_errors(lib)
        scaler.step(opt)
    check_error(before_scale, AssertionError, r"^Attempted step but _scale is None.  This may")

    def update_without_step(lib):
        w, opt, scaler = run_errors(lib)
        scaler.scale(w.sum())
        scaler.update()
    check_error(update_without_step, AssertionError, "^No inf checks were recorded prior")

    def fp16_grads(lib):
        w = lib.ones(2, dtype=lib.float16, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(w.float().sum()).backward()
        scaler.unscale_(opt)
    check_error(fp16_grads, ValueError, "^Attempting to unscale FP16 gradients")
    check_error(lambda lib: lib.amp.GradScaler("cpu", growth_factor=1.0), AssertionError,
                r"^The growth factor must be > 1.0")
    check_error(lambda lib: lib.amp.GradScaler("cpu", backoff_factor=1.0), AssertionError,
                r"^The backoff factor must be < 1.0")
    check_error(lambda lib: lib.amp.GradScaler("cpu", enabled=False).load_state_dict({}) or
                lib.amp.GradScaler("cpu").load_state_dict({}), RuntimeError,
                "^The source state dict is empty")


@LIBS
def test_unscale_then_step_and_explicit_update(lib):
    w, opt, scaler = run_errors(lib)
    scaler.scale((w * 3).sum()).backward()
    scaler.unscale_(opt)
    assert w.grad.tolist() == [3.0, 3.0]
    assert scaler.step(opt) is None         # SGD.step returns None
    scaler.update(2.0)
    assert scaler.get_scale() == 2.0
    scaler.scale(w.sum())
    scaler.update(lib.tensor(8.0))
    assert scaler.get_scale() == 8.0
    with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
        scaler.update(lib.tensor([1.0, 2.0]))


def versions_through_a_step(lib, poison):
    """How much unscale_ moves the gradient's version, and update the scale's and the
    growth tracker's (torch counts only the scale's update)."""
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", growth_interval=1)
    scaler.scale((w * 3).sum()).backward()
    w.grad[0] = poison
    grad_version = w.grad._version
    scaler.unscale_(opt)
    moved = [w.grad._version - grad_version]
    scale_version, tracker_version = scaler._scale._version, scaler._growth_tracker._version
    scaler.step(opt)
    scaler.update()
    return moved + [scaler._scale._version - scale_version,
                    scaler._growth_tracker._version - tracker_version]


@pytest.mark.parametrize("poison", [3.0, INF])
def test_version_counters_move_as_in_torch(poison):
    assert versions_through_a_step(ember, poison) == versions_through_a_step(torch, poison)


@LIBS
def test_state_dict_round_trip(lib):
    inject = [INF, None, None, None]
    scaler = lib.amp.GradScaler("cpu", init_scale=16.0, growth_interval=3)
    w = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    for poison in inject:
        scaler.scale(w.sum()).backward()
        if poison is not None:
            w.grad[0] = poison
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
    state = scaler.state_dict()
    assert state == {"scale": 16.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                     "growth_interval": 3, "_growth_tracker": 0}
    fresh = lib.amp.GradScaler("cpu")
    fresh.load_state_dict(state)
    assert fresh.state_dict() == state
    fresh.scale(w.sum())
    fresh.load_state_dict({**state, "scale": 4.0, "_growth_tracker": 2})
    assert fresh.get_scale() == 4.0 and fresh._get_growth_tracker() == 2


@LIBS
def test_settings(lib):
    scaler = lib.amp.GradScaler("cpu")
    assert (scaler.get_scale(), scaler.get_growth_factor(), scaler.get_backoff_factor(),
            scaler.get_growth_interval(), scaler.is_enabled()) == (65536.0, 2.0, 0.5, 2000, True)
    scaler.set_growth_factor(3.0)
    scaler.set_backoff_factor(0.25)
    scaler.set_growth_interval(7)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor(),
            scaler.get_growth_interval()) == (3.0, 0.25, 7)


@LIBS
def test_disabled_scaler_passes_through(lib):
    scaler = lib.amp.GradScaler("cpu", enabled=False)
    w = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.5)
    loss = w.sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [0.5, 0.5]
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {} and not scaler.is_enabled()


@LIBS
def test_cuda_scaler_warns_and_disables(lib):
    with pytest.warns(UserWarning, match=r"torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                                         r"available.  Disabling."):
        assert not lib.amp.GradScaler().is_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not lib.cuda.amp.GradScaler().is_enabled()
    assert [w.category for w in caught] == [FutureWarning, UserWarning]
    assert "`torch.cuda.amp.GradScaler(args...)` is deprecated" in str(caught[0].message)
    with pytest.warns(FutureWarning, match="torch.cpu.amp.GradScaler"):
        assert lib.cpu.amp.GradScaler().is_enabled()
