"""ember.compile side by side with torch eager: the nn suite's training steps (and the op
chain's forward+backward) as one compiled function each, the pattern of JAX's
jit(train_step). ember's column runs the compiled step, torch's its eager step: the
ratio is what issue 19's table asks for (ember compiled vs torch eager). torch.compile
itself is not run here (inductor compiles with gcc for minutes on this machine).

A row runs nanoGPT's step on batches of 16 sequence lengths in turn, ember's compiled with
dynamic=True (three lengths traced, the others' plans from the template).

The second group compiles only ember's model and keeps the training loop eager (the
plain `model = torch.compile(model)`): forward and backward replay as plans inside one
autograd node, the optimizer runs eagerly.

Each row also prints the first two calls' time: ember traces the first call of a
signature, traces it again to confirm the plan, and replays from the third call.
"""
from __future__ import annotations

import time

from bench import core, nn
from bench.runner import compare


def _timed_first_calls(setup, step):
    """Call ember's step twice (trace, confirm), noting the time for the ember column
    (set up first), and return it."""
    start = time.perf_counter()
    step()
    step()
    if setup.first_calls is None:
        setup.first_calls = time.perf_counter() - start
    return step


def _compiled(workload):
    """workload's step, compiled when the library is ember."""
    def setup(lib):
        step, units = workload(lib)
        if lib.__name__ != "ember":
            return step, units
        return _timed_first_calls(setup, lib.compile(step)), units
    setup.first_calls = None
    return setup


def _compiled_model(workload):
    """workload with ember's model compiled and the training loop left eager (the plain
    `model = torch.compile(model)`); torch's column runs its eager step."""
    def setup(lib):
        if lib.__name__ != "ember":
            return workload(lib)
        step, units = workload(lib, wrap=lambda lib, model: lib.compile(model))
        return _timed_first_calls(setup, step), units
    setup.first_calls = None
    return setup


def _dynamic(workload):
    """workload with ember's step compiled with dynamic=True; torch's runs eagerly. The
    time of ember's first pass over the batches (each length once) is noted."""
    def setup(lib):
        if lib.__name__ != "ember":
            return workload(lib)
        step, units = workload(lib, compile_step=lambda f: lib.compile(f, dynamic=True))
        start = time.perf_counter()
        for _ in range(16):
            step()
        if setup.first_calls is None:
            setup.first_calls = time.perf_counter() - start
        return step, units
    setup.first_calls = None
    return setup


WORKLOADS = [("MLP 784-256-256-10 Adam step (batch 128)", nn.mlp, 0.8),
             ("MNIST CNN train step (batch 64)", nn.mnist_cnn, 0.8),
             ("LSTM LM step (seq 35, batch 20)", nn.lstm_lm, 0.8),
             ("nanoGPT 4x128 step (block 64, batch 12)", nn.gpt, 0.8)]


def run() -> None:
    for name, workload, seconds in WORKLOADS:
        setup = _compiled(workload)
        compare(f"{name}, ember compiled", setup, unit="steps/s", min_seconds=seconds,
                rounds=5, higher_is_better=True)
        print(f"  ember's first two calls (trace, confirm): {setup.first_calls:.2f} s")
    for name, workload, seconds in WORKLOADS:
        setup = _compiled_model(workload)
        compare(f"{name.split(' (')[0]}, ember compiled model", setup, unit="steps/s",
                min_seconds=seconds, rounds=5, higher_is_better=True)
        print(f"  ember's first two calls (trace, confirm): {setup.first_calls:.2f} s")
    setup = _dynamic(nn.gpt_lengths)
    compare("nanoGPT 4x128 step, 16 lengths in turn, ember compiled dynamic=True", setup,
            unit="steps/s", min_seconds=1.6, rounds=5, higher_is_better=True)
    print(f"  ember's first 16 calls (3 traces, 13 plans from the template): "
          f"{setup.first_calls:.2f} s")
    setup = _compiled(core.op_chain_backward)
    compare("op chain forward+backward, ember compiled", setup)
    print(f"  ember's first two calls (trace, confirm): {setup.first_calls:.2f} s")
