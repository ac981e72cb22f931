"""A compiled function's plan bakes in the Python values the traced call read by name, so
the globals, closure variables and default arguments it reads are guarded
(ember/_dynamo/_reads.py): binding one to another object traces again, as torch
recompiles; unchanged ones never do."""
import warnings

import numpy as np

import ember

SCALE = 1.0
USE_DOUBLE = False
step = 0            # a global named like the optimizer's method the functions call


def _scaled(x):
    return x * SCALE


def _helper_reader(x):
    return _scaled(x) + 1


def _calls(compiled, eager, settings, apply):
    """Call both after each setting; every result must be equal."""
    x = ember.arange(4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for value in settings:
            apply(value)
            np.testing.assert_array_equal(compiled(x).numpy(), eager(x).numpy())


def _set(name):
    def apply(value):
        globals()[name] = value
    return apply


def test_rebinding_a_global_float_or_flag_traces_again():
    def scaled(x):
        return x * SCALE * 2 if USE_DOUBLE else x * SCALE

    compiled = ember.compile(scaled)
    _calls(compiled, scaled, [1.0, 1.0, 1.0, 3.0, 1.0], _set("SCALE"))
    assert len(compiled._entries) == 2          # 1.0 and 3.0; back to 1.0 replays
    _calls(compiled, scaled, [False, True, False], _set("USE_DOUBLE"))
    assert len(compiled._entries) == 3


def test_a_helper_of_the_same_module_is_read_through():
    compiled = ember.compile(_helper_reader)
    _calls(compiled, _helper_reader, [1.0, 1.0, 5.0, 0.5], _set("SCALE"))
    assert len(compiled._entries) == 3


def test_closure_variables_rebound_by_the_enclosing_function():
    factor = 2.0

    def by_factor(x):
        return x * factor

    def apply(value):
        nonlocal factor
        factor = value

    compiled = ember.compile(by_factor)
    _calls(compiled, by_factor, [2.0, 2.0, 7.0, 7.0], apply)
    assert len(compiled._entries) == 2


def test_a_compiled_modules_forward_reads_are_guarded():
    class Scaled(ember.nn.Module):
        def forward(self, x):
            return x * SCALE

    module = Scaled()
    compiled = ember.compile(module)
    _calls(compiled, module, [1.0, 1.0, 4.0], _set("SCALE"))


def test_attribute_names_are_not_guarded_as_globals():
    model = ember.nn.Linear(4, 1)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)

    def train_step(x):
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()                  # an attribute: the global `step` is not read
        return loss.detach()

    compiled = ember.compile(train_step)
    global step
    for step in range(6):
        compiled(ember.ones(2, 4))
    assert len(compiled._entries) == 1 and compiled._entries[0].plan is not None


def test_rebound_default_arguments_trace_again():
    def scaled(x, weight=ember.ones(4)):
        return x * weight

    compiled = ember.compile(scaled)
    _calls(compiled, scaled, [2.0, 3.0],      # each a new defaults tuple
           lambda value: setattr(scaled, "__defaults__", (ember.full((4,), value),)))
    assert len(compiled._entries) == 2
