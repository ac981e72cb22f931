"""Graph breaks in a top-level statement of the compiled function (ember/_dynamo/_split.py):
the statements before the break replay as a plan, the rest runs eagerly, and the values
equal eager ones to the bit; what cannot be cut runs eagerly as a whole."""
import copy
import functools
import warnings

import numpy as np
import pytest

import ember
from ember._dynamo.exc import Unsupported

F = ember.nn.functional


def _model():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 4))


def _batches(n=6):
    rng = np.random.default_rng(0)
    return [(ember.tensor(rng.standard_normal((5, 8)).astype(np.float32)),
             ember.tensor(rng.integers(0, 4, 5))) for _ in range(n)]


def _twins(make_step):
    """An eager and a compiled step, each with its own copy of the model and optimizer."""
    model = _model()
    steps = []
    for m in (model, copy.deepcopy(model)):
        steps.append(make_step(m, ember.optim.Adam(m.parameters(), lr=1e-2)))
    return steps[0], ember.compile(steps[1])


def _calls(eager, compiled, batches):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for x, y in batches:
            assert eager(x, y) == compiled(x, y)
    return [str(w.message) for w in caught]


def test_a_step_returning_loss_item_replays_everything_before_it():
    def make_step(model, opt):
        def step(x, y):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss.item()
        return step

    eager, compiled = _twins(make_step)
    messages = _calls(eager, compiled, _batches())
    assert any("the statements before it run compiled, the rest eagerly" in m
               for m in messages)
    prefix, _ = compiled._entries[0].split
    assert prefix._entries[0].confirmed and "Adam_step" in prefix.plan_source()[0]


def test_a_print_in_the_middle_and_a_branch_on_a_value_after_it(capsys):
    def make_step(model, opt):
        def step(x, y):
            opt.zero_grad()
            logits = model(x)
            print("mean", round(logits.mean().item(), 3))
            loss = F.cross_entropy(logits, y)
            if loss.item() > 1.3:            # the eager rest follows the value of each call
                loss = loss * 2
            loss.backward()
            opt.step()
            return loss.detach()
        return step

    eager, compiled = _twins(make_step)
    for x, y in _batches():
        assert np.array_equal(eager(x, y).numpy(), compiled(x, y).numpy())
    printed = capsys.readouterr().out.splitlines()
    assert printed[0::2] == printed[1::2] and len(printed) == 12
    assert compiled._entries[0].split[0]._entries[0].confirmed


def test_a_compiled_module_whose_forward_breaks_keeps_train_and_eval_apart(capsys):
    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.body, self.drop = _model(), ember.nn.Dropout(0.5)

        def forward(self, x):
            h = self.drop(self.body(x))
            print(h.abs().sum().item() > 0)
            return h * 2

    net = Net()
    compiled = ember.compile(net)
    x = _batches(1)[0][0]
    for training in (True, True, True, False, False, False, True):
        net.train(training)
        ember.manual_seed(1)
        expected = net(x)
        ember.manual_seed(1)
        assert np.array_equal(compiled(x).detach().numpy(), expected.detach().numpy())
    # train and eval are two signatures of the module's call, each cut at its break
    entries = compiled._compiled._entries
    assert len(entries) == 2 and all(e.split[0]._entries[0].confirmed for e in entries)


def _runs_whole_eagerly(fn, *args):
    compiled = ember.compile(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert np.array_equal(np.asarray(compiled(*args)), np.asarray(fn(*args)))
    assert compiled._entries[0].split is None
    return [str(w.message) for w in caught]


def _helper(t):
    return t.sum().item()


def test_a_break_inside_a_called_function_cuts_at_the_call():
    def inside_a_call(t):
        y = t * 2
        return _helper(y)

    compiled = ember.compile(inside_a_call)
    assert [compiled(ember.arange(4.0) + i) for i in range(4)] == [12.0, 20.0, 28.0, 36.0]
    assert compiled._entries[0].split[0]._entries[0].confirmed


def test_breaks_that_are_not_cut():
    x = ember.arange(4.0)

    def first_statement(t):
        return (t * 2).sum().item()

    def may_return_early(t):
        if t.numel() > 10:
            return 0.0
        y = t * 2
        return y.sum().item()

    def declares_global(t):
        global _COUNT
        y = t * 3
        return y.max().item()

    for fn in (first_statement, may_return_early, declares_global):
        assert any("calls with this signature run eagerly" in m
                   for m in _runs_whole_eagerly(fn, x)), fn.__name__


def test_a_wrapper_is_not_cut_along_the_source_of_the_function_it_wraps():
    """transformers' T5 forward is wrapped (functools.wraps) by a decorator in another file:
    the break's line in the wrapper's frame fell inside the wrapped function's source, which
    was cut and called without the wrapper (TypeError: missing required arguments)."""
    def scaled(t, scale=2.0):
        y = t * scale
        z = y + 1
        return z.sum().item()
    # The wrapper's call sits on the line of scaled's `z = y + 1`, as if in another file.
    line = scaled.__code__.co_firstlineno + 2
    source = "\n" * (line - 3) + ("def tenfold(fn):\n"
                                    "    def wrapper(*args, **kwargs):\n"
                                    "        return fn(*args, **kwargs) * 10\n"
                                    "    return functools.wraps(fn)(wrapper)\n")
    namespace = {"functools": functools}
    exec(compile(source, "<wrapper>", "exec"), namespace)
    wrapped = namespace["tenfold"](scaled)
    assert any("calls with this signature run eagerly" in m
               for m in _runs_whole_eagerly(wrapped, ember.arange(4.0)))


def test_a_list_made_before_the_break_is_not_frozen_into_a_plan():
    def collect(t):
        seen = []
        y = t * 2
        seen.append(y.sum().item())
        return seen

    compiled = ember.compile(collect)
    with pytest.warns(UserWarning, match="make list, which compile cannot replay"):
        results = [compiled(ember.arange(3.0) + i) for i in range(4)]
    assert results == [[6.0], [12.0], [18.0], [24.0]]
    assert len({id(r) for r in results}) == 4


def test_closures_are_shared_and_fullgraph_refuses_other_breaks():
    scale = 3.0
    calls = []

    def step(t):
        y = t * scale
        total = y.sum().item()
        calls.append(1)                     # after the break: the eager rest, every call
        return total

    compiled = ember.compile(step)
    assert [compiled(ember.ones(2)) for _ in range(4)] == [6.0] * 4
    assert len(calls) == 4 and compiled._entries[0].split is not None
    scale = 5.0                             # the prefix reads the closure's cell
    assert step(ember.ones(2)) == 10.0
    ember.compile(step, fullgraph=True)(ember.ones(2))    # torch keeps item() then
    with pytest.raises(Unsupported):
        ember.compile(lambda t: len(t.tolist()) + step(t), fullgraph=True)(ember.ones(2))
