"""Modes are per thread, as in torch: while one thread is inside no_grad / inference_mode /
autocast, another thread's ops record and compute as usual. Anomaly mode is process-wide
in torch, and so in ember. Each scenario runs on torch and on ember and must observe the
same things."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import ember


def _observe(lib) -> dict:
    """What an op in this thread sees of the modes."""
    x = lib.ones(2, 2, requires_grad=True)
    y = x * 2
    return {"grad_fn": None if y.grad_fn is None else y.grad_fn.name(),
            "grad_enabled": lib.is_grad_enabled(),
            "inference": lib.is_inference_mode_enabled(),
            "autocast": lib.is_autocast_enabled("cpu"),
            "autocast_dtype": str(lib.get_autocast_dtype("cpu")),
            "mm_dtype": str(lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype),
            "anomaly": lib.is_anomaly_enabled()}


def _while_other_thread_holds(lib, make_context) -> tuple[dict, dict]:
    """(what a second thread observes while this one is inside the context, what this
    thread observes inside it)."""
    entered, observed = threading.Event(), threading.Event()
    seen = {}

    def other():
        entered.wait()
        seen.update(_observe(lib))
        observed.set()

    thread = threading.Thread(target=other)
    thread.start()
    with make_context(lib):
        inside = _observe(lib)
        entered.set()
        observed.wait(30)
    thread.join()
    return seen, inside


CONTEXTS = {
    "no_grad": lambda lib: lib.no_grad(),
    "inference_mode": lambda lib: lib.inference_mode(),
    "set_grad_enabled": lambda lib: lib.set_grad_enabled(False),
    "autocast_bf16": lambda lib: lib.autocast("cpu", dtype=lib.bfloat16),
    "autocast_fp16": lambda lib: lib.autocast("cpu", dtype=lib.float16),
    "detect_anomaly": lambda lib: lib.autograd.detect_anomaly(),
}


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
@pytest.mark.parametrize("name", list(CONTEXTS))
def test_modes_of_one_thread_leave_the_other_alone(name):
    torch_other, torch_inside = _while_other_thread_holds(torch, CONTEXTS[name])
    ember_other, ember_inside = _while_other_thread_holds(ember, CONTEXTS[name])
    assert ember_other == torch_other
    assert ember_inside == torch_inside
    assert _observe(ember) == _observe(torch)       # and everything is restored after


def test_a_thread_starts_with_default_modes_whatever_its_parent_holds():
    def started_inside(lib):
        seen = {}
        with lib.no_grad(), lib.autocast("cpu"):
            thread = threading.Thread(target=lambda: seen.update(_observe(lib)))
            thread.start()
            thread.join()
        return seen
    assert started_inside(ember) == started_inside(torch)


def test_modes_set_in_a_thread_stay_in_it():
    def set_in_thread(lib):
        def body():
            lib.set_grad_enabled(False)
            lib.set_autocast_enabled("cpu", True)
        thread = threading.Thread(target=body)
        thread.start()
        thread.join()
        return _observe(lib)
    assert set_in_thread(ember) == set_in_thread(torch)


def test_backward_passes_in_two_threads_are_independent():
    # Each thread differentiates its own graph; the gradients equal a one-thread run's.
    def grads(seed):
        rng = np.random.default_rng(seed)
        w = ember.tensor(rng.standard_normal((4, 8)), requires_grad=True)
        x = ember.tensor(rng.standard_normal((16, 8)))
        for _ in range(20):
            w.grad = None
            (x @ w.t()).tanh().pow(2).sum().backward()
        return w.grad.clone()

    expected = {seed: grads(seed) for seed in range(4)}
    results = {}
    threads = [threading.Thread(target=lambda s=seed: results.__setitem__(s, grads(s)))
               for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(4))
    for seed, grad in results.items():
        assert ember.equal(grad, expected[seed])


def test_profiler_records_only_its_own_thread():
    def profiled_adds(lib):
        def work():
            lib.ones(3).add(1)
        with lib.profiler.profile() as prof:
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
            lib.ones(3).mul(2)
        return sorted(e.key for e in prof.key_averages() if e.key in ("aten::add", "aten::mul"))
    assert profiled_adds(ember) == profiled_adds(torch) == ["aten::mul"]
