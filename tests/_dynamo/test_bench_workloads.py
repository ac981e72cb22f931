"""bench/'s training workloads, compiled and eager side by side (issue 19: "every bench
workload runs compiled and eager: equal losses and weights after 20 steps"): the whole
step compiled, and the model alone compiled inside an eager loop. The plans run the eager
kernels, so weights stay bit-identical."""
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest

import ember

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))      # the repo's bench/
from bench import nn as workloads  # noqa: E402

STEPS = 20


def _trained(workload, wrap=None, compile_step=False):
    """The workload's model after STEPS steps (its setup seeds the generator)."""
    step, _ = workload(ember, wrap=wrap)
    model = inspect.getclosurevars(step).nonlocals["model"]
    run = ember.compile(step) if compile_step else step
    for _ in range(STEPS):
        run()
    if compile_step or wrap:
        plans = (run if compile_step else model._compiled)._entries
        assert plans and plans[0].confirmed          # replayed, not run eagerly
    return getattr(model, "_orig_mod", model)


@pytest.mark.parametrize("workload", [workloads.mlp, workloads.mnist_cnn, workloads.lstm_lm,
                                      workloads.gpt], ids=lambda w: w.__name__)
@pytest.mark.parametrize("how", ["whole step", "model"])
def test_compiled_training_equals_eager(workload, how):
    eager = _trained(workload).state_dict()
    if how == "whole step":
        compiled = _trained(workload, compile_step=True).state_dict()
    else:
        compiled = _trained(workload, wrap=lambda lib, model: lib.compile(model)).state_dict()
    assert list(eager) == list(compiled)
    for name in eager:
        assert np.array_equal(eager[name].numpy(), compiled[name].numpy()), name
