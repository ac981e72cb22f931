"""ember.compile's traced plans (ember/_dynamo): compiled calls equal eager ones to the
bit, guards retrace, graph breaks fall back to eager, and what compile cannot replay
(watching modes, hooks) runs eagerly with a warning."""
import copy
import functools
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember
from ember._dynamo.exc import Unsupported
from oracle import assert_same

F = ember.nn.functional


def _batches(n, shape, classes, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape).astype(np.float32), rng.integers(0, classes, shape[0]))
            for _ in range(n)]


def _train_step(model, opt, loss_fn, scheduler=None):
    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if scheduler is not None:
            scheduler.step()
        return loss.detach()
    return step


def _side_by_side(make, shape, classes, steps=20, loss_fn=F.cross_entropy, optimizer=None,
                  scheduler=None):
    """Train two copies of make()'s model, one step eager and one compiled, on the same
    batches: losses and every state_dict entry stay bit-identical. Returns the compiled step."""
    ember.manual_seed(0)
    models = [make(), None]
    models[1] = copy.deepcopy(models[0])
    steps_fns = []
    for model in models:
        opt = (optimizer or (lambda p: ember.optim.Adam(p, lr=1e-2)))(model.parameters())
        sched = scheduler(opt) if scheduler else None
        steps_fns.append(_train_step(model, opt, loss_fn, sched))
    eager, compiled = steps_fns[0], ember.compile(steps_fns[1])
    for i, (x, y) in enumerate(_batches(steps, shape, classes)):
        losses = []
        for run in (eager, compiled):
            ember.manual_seed(i)
            losses.append(run(ember.tensor(x), ember.tensor(y)))
        assert np.array_equal(losses[0].numpy(), losses[1].numpy()), f"step {i}"
    for (name, a), (_, b) in zip(models[0].state_dict().items(), models[1].state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), name
    assert compiled._entries[0].confirmed
    return compiled


def test_mlp_adam_equals_eager_and_torch():
    nn = ember.nn
    compiled = _side_by_side(lambda: nn.Sequential(nn.Linear(20, 32), nn.ReLU(),
                                                   nn.Linear(32, 5)), (16, 20), 5)
    assert len(compiled.plan_source()) == 1
    # The same training in torch: compiled ember follows it to float32 tolerance.
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(),
                                  torch.nn.Linear(32, 5))
    e_model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    t_step = _train_step(t_model, torch.optim.Adam(t_model.parameters(), lr=1e-2),
                         torch.nn.functional.cross_entropy)
    e_step = ember.compile(_train_step(e_model, ember.optim.Adam(e_model.parameters(), lr=1e-2),
                                       F.cross_entropy))
    for x, y in _batches(10, (16, 20), 5):
        assert_same(e_step(ember.tensor(x), ember.tensor(y)),
                    t_step(torch.tensor(x), torch.tensor(y)), 1e-5, 1e-4)


def test_cnn_with_batchnorm_dropout_pooling_and_scheduler():
    nn = ember.nn

    def make():
        return nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(inplace=True),
                             nn.MaxPool2d(2), nn.Dropout(0.3), nn.Flatten(),
                             nn.Linear(4 * 5 * 5, 10), nn.LogSoftmax(dim=1))
    _side_by_side(make, (8, 1, 12, 12), 10, loss_fn=F.nll_loss,
                  optimizer=lambda p: ember.optim.SGD(p, lr=0.05, momentum=0.5),
                  scheduler=lambda o: ember.optim.lr_scheduler.StepLR(o, 3, gamma=0.5))


def test_lstm_language_model_with_grad_clipping():
    nn = ember.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed, self.rnn = nn.Embedding(30, 8), nn.LSTM(8, 16, batch_first=True)
            self.out = nn.Linear(16, 30)

        def forward(self, tokens):
            h, _ = self.rnn(self.embed(tokens))
            return self.out(h).reshape(-1, 30)

    model = LM()

    def clipped(logits, targets):
        return F.cross_entropy(logits, targets.reshape(-1))
    ember.manual_seed(0)
    models = [model, copy.deepcopy(model)]
    fns = []
    for m in models:
        opt = ember.optim.Adam(m.parameters(), lr=1e-2)

        def step(x, y, m=m, opt=opt):
            opt.zero_grad()
            loss = clipped(m(x), y)
            loss.backward()
            ember.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
            opt.step()
            return loss.detach()
        fns.append(step)
    compiled = ember.compile(fns[1])
    rng = np.random.default_rng(1)
    for _ in range(8):
        tokens = ember.tensor(rng.integers(0, 30, (4, 7)))
        targets = ember.tensor(rng.integers(0, 30, (4, 7)))
        assert np.array_equal(fns[0](tokens, targets).numpy(), compiled(tokens, targets).numpy())
    assert compiled._entries[0].confirmed
    for a, b in zip(models[0].parameters(), models[1].parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_gradient_accumulation_adds_into_existing_grads():
    model = ember.nn.Linear(3, 2)
    twin = copy.deepcopy(model)

    def forward_backward(m, x):
        loss = m(x).square().sum()
        loss.backward()
        return loss.detach()
    compiled = ember.compile(functools.partial(forward_backward, twin))
    rng = np.random.default_rng(0)
    for _ in range(5):      # grads are never zeroed: each call adds into them
        x = ember.tensor(rng.standard_normal((4, 3)).astype(np.float32))
        forward_backward(model, x), compiled(x)
    assert np.array_equal(model.weight.grad.numpy(), twin.weight.grad.numpy())
    assert compiled._entries[0].confirmed


def test_inference_under_no_grad_replays():
    model = ember.nn.Sequential(ember.nn.Linear(4, 4), ember.nn.GELU())
    compiled = ember.compile(model)
    x = ember.randn(2, 4)
    with ember.no_grad():
        outs = [compiled(x) for _ in range(3)]
        assert np.array_equal(outs[-1].numpy(), model(x).numpy())
    entries = compiled._compiled._entries
    assert entries[0].confirmed and not outs[-1].requires_grad


def test_dropout_draws_fresh_numbers_like_eager():
    def noisy(x):
        return F.dropout(x, 0.5) + ember.randn(3, 4)
    compiled = ember.compile(noisy)
    x = ember.ones(3, 4)
    for seed in range(4):
        ember.manual_seed(seed)
        expected = noisy(x)
        ember.manual_seed(seed)
        assert np.array_equal(compiled(x).numpy(), expected.numpy())
    assert compiled._entries[0].confirmed


@pytest.mark.parametrize("change", ["shape", "dtype", "train/eval", "requires_grad",
                                    "grad mode"])
def test_guards_retrace(change):
    model = ember.nn.Sequential(ember.nn.Linear(4, 4), ember.nn.Dropout(0.5))
    compiled = ember.compile(model)
    x = ember.randn(2, 4)
    with ember.no_grad():
        for _ in range(3):
            compiled(x)
    assert len(compiled._compiled._entries) == 1
    if change == "shape":
        x = ember.randn(5, 4)
    elif change == "dtype":
        model.double()
        x = x.double()
    elif change == "train/eval":
        model.eval()
    elif change == "requires_grad":
        model[0].weight.requires_grad_(False)
    context = ember.enable_grad() if change == "grad mode" else ember.no_grad()
    with context, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.manual_seed(0)
        out = compiled(x)
    assert len(compiled._compiled._entries) == 2
    ember.manual_seed(0)
    with context:
        assert np.array_equal(out.detach().numpy(), model(x).detach().numpy())


def test_recompile_limit_warns_and_runs_eagerly():
    compiled = ember.compile(lambda x: x * 2, recompile_limit=2)
    for n in (1, 2):
        compiled(ember.ones(n))
    with pytest.warns(UserWarning, match=r"hit the recompile limit \(2\)"):
        assert compiled(ember.ones(3)).tolist() == [2.0, 2.0, 2.0]
    ember.compiler.reset()
    assert compiled._entries == []


@pytest.mark.parametrize("conversion", [lambda y: y.sum().item(), lambda y: bool(y.sum() > 0),
                                        lambda y: y.tolist(), lambda y: y.numpy(),
                                        lambda y: print(y)])
def test_tensor_values_leaving_break_the_graph(conversion, capsys):
    def f(x):
        y = x * 2
        conversion(y)
        return y + 1
    compiled = ember.compile(f)
    with pytest.warns(UserWarning, match="graph break at .*test_eval_frame.py:[0-9]+: a tensor "
                                         "was (converted to a Python|printed)"):
        out = compiled(ember.ones(2))
    assert out.tolist() == [3.0, 3.0]
    assert compiled(ember.ones(2) * 2).tolist() == [5.0, 5.0]    # eagerly, every time


# Conversions of a tensor y inside a compiled function, as source (torch runs them in a
# subprocess: a compile error leaves torch's frame-evaluation hook in this process).
CONVERSIONS = ["y.sum().item()", "float(y.sum())", "bool(y.sum() > 0)", "y.numpy()",
               "y.tolist()", "print(y)"]
_FULLGRAPH_CALLS = """
import json, sys, torch
def make(conversion):
    convert = eval("lambda y: " + conversion)
    def f(x):
        y = x * 2
        scale = convert(y)
        return y * (2.0 if scale is None else 1.0) + 1
    return f
def run(lib, conversion, **options):
    compiled = lib.compile(make(conversion), **options)
    return [compiled(lib.ones(2) * k).tolist() for k in (1, 2, 3)]
"""


@functools.lru_cache(maxsize=1)
def _torch_fullgraph_results() -> dict:
    code = _FULLGRAPH_CALLS + """
found = {}
for conversion in json.loads(sys.argv[1]):
    try:
        found[conversion] = run(torch, conversion, fullgraph=True, backend="eager")
    except torch._dynamo.exc.Unsupported:
        found[conversion] = "Unsupported"
print(json.dumps(found))
"""
    done = subprocess.run([sys.executable, "-c", code, json.dumps(CONVERSIONS)],
                          capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_fullgraph_keeps_numbers_as_torch_does(conversion, capsys):
    """Under fullgraph=True (or capture_scalar_outputs) torch keeps Python numbers and
    NumPy conversions in its graph: no error, no warning. ember ends the plan there and runs
    the rest eagerly, with the same values; the other breaks raise, as torch's do."""
    namespace = {}
    exec(_FULLGRAPH_CALLS, namespace)
    expected = _torch_fullgraph_results()[conversion]
    if expected == "Unsupported":
        with pytest.raises(Unsupported, match="fullgraph=True does not allow graph breaks"):
            namespace["run"](ember, conversion, fullgraph=True)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert namespace["run"](ember, conversion, fullgraph=True) == expected
        with ember._dynamo.config.patch(capture_scalar_outputs=True):
            assert namespace["run"](ember, conversion) == expected


def test_values_made_outside_the_op_layer_are_not_frozen():
    rng = np.random.default_rng(0)

    def f(x):       # numbers drawn by NumPy on each call, unseen by ember's ops
        return x + ember.from_numpy(rng.standard_normal(3))
    compiled = ember.compile(f)
    with pytest.warns(UserWarning, match="made inside the call by code compile does not "
                                         "record"):
        for _ in range(3):
            compiled(ember.zeros(3, dtype=ember.float64))
    a, b = compiled(ember.zeros(3, dtype=ember.float64)), compiled(ember.zeros(3, dtype=ember.float64))
    assert not np.array_equal(a.numpy(), b.numpy())


def test_module_attribute_changed_by_the_call_runs_eagerly():
    class Counting(ember.nn.Linear):
        def forward(self, x):
            self.calls = getattr(self, "calls", 0) + 1
            return super().forward(x)
    model = Counting(2, 2)
    compiled = ember.compile(model)
    with ember.no_grad(), pytest.warns(UserWarning, match="changed attributes of Counting"):
        for _ in range(4):
            compiled(ember.ones(1, 2))
    assert model.calls == 4


def test_watching_modes_and_hooks_run_eagerly_with_a_warning():
    model = ember.nn.Linear(2, 2)
    compiled = ember.compile(model)
    x = ember.ones(1, 2)
    with ember.autograd.detect_anomaly(), pytest.warns(UserWarning, match="anomaly detection"):
        compiled(x)
    with ember.profiler.profile() as prof, pytest.warns(UserWarning, match="the profiler"):
        compiled(x)
    assert any("linear" in e.key for e in prof.key_averages())
    calls = []
    model.register_forward_hook(lambda *a: calls.append(1))
    with ember.no_grad(), pytest.warns(UserWarning, match="has forward or backward hooks"):
        for _ in range(3):
            compiled(x)
    assert calls == [1, 1, 1]


def test_hook_on_a_parameter_gradient_is_honoured():
    model = ember.nn.Linear(2, 1)
    seen = []
    model.weight.register_hook(lambda g: seen.append(g.clone()))

    def step(x):
        model(x).sum().backward()
    compiled = ember.compile(step)
    with pytest.warns(UserWarning, match="hook on a leaf's gradient"):
        for _ in range(3):
            compiled(ember.ones(1, 2))
    assert len(seen) == 3


def test_module_compile_in_place_replays():
    model = ember.nn.Sequential(ember.nn.Linear(3, 3), ember.nn.Tanh())
    model.compile()
    assert list(model.state_dict()) == ["0.weight", "0.bias"]
    x = ember.randn(2, 3)
    with ember.no_grad():
        outs = [model(x) for _ in range(3)]
        assert model._compiled_call._entries[0].confirmed
        assert np.array_equal(outs[2].numpy(), model._call_impl(x).numpy())
    clone = copy.deepcopy(model)
    with ember.no_grad():
        clone[0].weight.add_(1)
        assert not np.array_equal(clone(x).numpy(), model(x).numpy())


def test_explain_reports_plans_and_breaks():
    model = ember.nn.Linear(3, 2)

    def f(x):
        return model(x).relu().sum()
    with ember.no_grad():
        report = ember.compiler.explain(f)(ember.ones(1, 3))
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    assert report.ops_per_graph[0][:2] == ["AddmmBackward0", "ReluBackward0"]
    assert "def plan(T, a1):" in report.graphs[0]
    assert str(report).startswith("Graph Count: 1\nGraph Break Count: 0\nOp Count: 3\n")

    def g(x):
        return x * 2 if x.sum() > 0 else x
    with pytest.warns(UserWarning):
        report = ember._dynamo.explain(g, ember.ones(2))
    assert (report.graph_count, report.graph_break_count) == (0, 1)
    assert "Tensor.bool" in report.break_reasons[0].reason
    assert report.break_reasons[0].user_stack[0].lineno > 0


def test_sparse_gradients_run_eagerly():
    embed = ember.nn.Embedding(10, 3, sparse=True)
    opt = ember.optim.SparseAdam(embed.parameters(), lr=0.1)

    def step(idx):
        opt.zero_grad()
        embed(idx).sum().backward()
        opt.step()
    compiled = ember.compile(step)
    before = embed.weight.detach().clone()
    # the sparse gradient is built from a NumPy view of the indices: that breaks first
    with pytest.warns(UserWarning, match="SparseCoo.* NumPy view"):
        for _ in range(3):
            compiled(ember.tensor([1, 2]))
    changed = (embed.weight.detach() != before).any(dim=1).tolist()
    assert changed == [False, True, True] + [False] * 7


def test_masks_computed_in_the_call_are_replayed_not_frozen():
    """A mask computed from an argument (padding positions) changes between calls: the
    plan broadcasts it with an op, so a replay uses each call's mask (the first two calls,
    traced, have the same one)."""
    def masked(x, rows, tokens):
        pad = (tokens == 0).unsqueeze(1)                    # (B, 1, T), broadcast to (B, T, T)
        return (x.masked_fill(pad, float("-inf")).softmax(-1),
                x.masked_fill(pad.expand_as(x), 2.0), rows.masked_fill(tokens == 0, 0.0))

    compiled = ember.compile(masked)
    x = ember.arange(2 * 3 * 3, dtype=ember.float32).view(2, 3, 3)
    rows = ember.arange(1.0, 7.0).view(2, 3)
    for tokens in ([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]], [[1, 2, 0], [4, 0, 0]],
                   [[0, 2, 3], [4, 5, 0]]):
        tokens = ember.tensor(tokens)
        for a, b in zip(masked(x, rows, tokens), compiled(x, rows, tokens)):
            assert np.array_equal(a.numpy(), b.numpy())
    assert all(e.confirmed for e in compiled._entries)


def test_masked_scatter_takes_a_count_from_values_and_breaks_the_graph():
    compiled = ember.compile(lambda x, m, s: x.masked_scatter(m, s))
    x, s = ember.zeros(4), ember.arange(1.0, 5.0)
    with pytest.warns(UserWarning, match="masked_scatter"):
        for mask in ([True, False, True, False], [True, False, True, False],
                     [False, True, True, True]):
            out = compiled(x, ember.tensor(mask), s)
            assert out.tolist() == x.masked_scatter(ember.tensor(mask), s).tolist()


def test_grad_scaler_steps_replay_and_skip_overflowing_steps_as_eager():
    def make():
        ember.manual_seed(0)
        model = ember.nn.Sequential(ember.nn.Linear(6, 8), ember.nn.ReLU(),
                                    ember.nn.Linear(8, 3))
        opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        scaler = ember.amp.GradScaler("cpu", init_scale=2.0 ** 16, growth_interval=2)

        def step(x, y):
            opt.zero_grad()
            scaler.scale(F.cross_entropy(model(x), y)).backward()
            scaler.unscale_(opt)
            ember.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            return scaler._scale.detach()
        return model, step

    (eager_model, eager), (model, step) = make(), make()
    compiled = ember.compile(step)
    batches = _batches(7, (6, 6), 3)
    batches[4] = (batches[4][0] * np.float32(1e36), batches[4][1])     # gradients overflow
    for x, y in batches:
        scales = [run(ember.tensor(x), ember.tensor(y)).item() for run in (eager, compiled)]
        assert scales[0] == scales[1]
    for (name, a), (_, b) in zip(eager_model.state_dict().items(), model.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), name
    assert compiled._entries[0].confirmed
    assert "GradScaler_step" in compiled.plan_source()[0]


def test_grad_enabled_inside_a_call_made_under_no_grad():
    """The call turns grad mode on itself: its replays return results with a graph, as
    eager calls do, whose backward reaches the weights."""
    def scaled_sum(x, w):
        with ember.enable_grad():
            return (x * w).sum()

    compiled = ember.compile(scaled_sum)
    w, w_twin = ember.ones(3, requires_grad=True), ember.ones(3, requires_grad=True)
    for step in range(4):
        x = ember.arange(3.0) + step
        with ember.no_grad():
            eager, replayed = scaled_sum(x, w), compiled(x, w_twin)
        assert replayed.requires_grad and replayed.item() == eager.item()
        eager.backward()
        replayed.backward()
        assert np.array_equal(w_twin.grad.numpy(), w.grad.numpy())
    assert compiled._entries[0].confirmed


def test_a_call_that_swaps_module_attributes_runs_eagerly_without_retracing():
    """torch.func.functional_call swaps a module's parameters during the call (a graph
    break): the eager signature matches the module as the call left it, so later calls
    run eagerly at once instead of tracing again until the recompile limit."""
    from ember.func import functional_call
    model = ember.nn.Linear(3, 1)
    params = {name: p.detach() * 2 for name, p in model.named_parameters()}
    compiled = ember.compile(lambda x: functional_call(model, params, (x,)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(5):
            x = ember.ones(2, 3) * step
            expected = functional_call(model, params, (x,))
            assert np.array_equal(compiled(x).detach().numpy(), expected.detach().numpy())
    assert len(compiled._entries) == 1 and compiled._entries[0].plan is None
