"""Dynamic sizes in compiled calls (`dynamic=True`, `mark_dynamic`; ember/_dynamo/_dynamic.py):
plans for new sizes come from a template made from two traces and verified on a third,
values equal eager ones to the bit, and what cannot be generalised traces per size."""
import copy
import warnings

import numpy as np
import pytest

import ember
from ember._dynamo import _dynamic

nn, F = ember.nn, ember.nn.functional


def _train_step(model, opt, loss_fn, loss_with_model=None):
    def step(*args):
        *inputs, y = args
        opt.zero_grad()
        loss = loss_with_model(model, inputs, y) if loss_with_model else \
            loss_fn(model(*inputs), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return step


def _side_by_side(make, batches, loss_fn, compile_step=True, wrap_inputs=False,
                  loss_with_model=None, **options):
    """Train two copies of make()'s model on `batches`, one eagerly, one compiled with
    `options` (the whole step, or only the model when compile_step is False): losses and
    state_dicts stay bit-identical. Returns the compiled callable. With wrap_inputs, a
    batch's x is a tuple of inputs; `loss_with_model(model, inputs, y)` replaces
    loss_fn(model(x), y)."""
    ember.manual_seed(0)
    models = [make()]
    models.append(copy.deepcopy(models[0]))
    runs, compiled = [], None
    for n, model in enumerate(models):
        if n == 1 and not compile_step:
            model = compiled = ember.compile(model, **options)
        opt = ember.optim.Adam(model.parameters(), lr=1e-2)
        runs.append(_train_step(model, opt, loss_fn, loss_with_model))
    if compile_step:
        runs[1] = compiled = ember.compile(runs[1], **options)
    for i, (x, y) in enumerate(batches):
        inputs = x if wrap_inputs else (x,)
        losses = []
        for run in runs:
            ember.manual_seed(i)
            losses.append(run(*map(ember.tensor, inputs), ember.tensor(y)).numpy())
        assert np.array_equal(losses[0], losses[1]), f"step {i}"
    for (name, a), (_, b) in zip(models[0].state_dict().items(), models[1].state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), name
    return compiled


def _plans(compiled):
    """The compiled function behind a compiled step or module."""
    return getattr(compiled, "_compiled", compiled)


def _input_shapes(entries) -> list:
    """The shape of the first tensor argument of each plan's calls."""
    return [next(item[1] for item in e.key[5] if item[0] == "T") for e in entries]


def _sequence_batches(shapes, vocab, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.integers(0, vocab, shape), rng.integers(0, vocab, shape)) for shape in shapes]


class _TinyGPT(nn.Module):
    """Token and position embeddings, one causal self-attention block, a head: sizes
    enter the code through arange(T), a slice of the mask buffer and view(B, T, ...)."""

    def __init__(self, vocab=11, width=16, heads=2, block=32):
        super().__init__()
        self.heads = heads
        self.tokens, self.positions = nn.Embedding(vocab, width), nn.Embedding(block, width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.norm, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)
        self.register_buffer("mask", ember.tril(ember.ones(block, block)).view(1, 1, block, block))

    def forward(self, idx):
        B, T = idx.size()
        x = self.tokens(idx) + self.positions(ember.arange(0, T, dtype=ember.long))
        C = x.size(-1)
        q, k, v = self.qkv(self.norm(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (C // self.heads) ** 0.5)
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.head(x + self.proj(y))


def _sequence_loss(logits, targets):
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


SEQUENCE_SHAPES = [(4, 6), (4, 9), (4, 6), (4, 13), (4, 7), (4, 20), (4, 7), (4, 31), (4, 5)]


def test_whole_step_of_a_gpt_over_varying_lengths_traces_three_sizes():
    compiled = _side_by_side(_TinyGPT, _sequence_batches(SEQUENCE_SHAPES, 11), _sequence_loss,
                             dynamic=True)
    # lengths 6 and 9 make the template, 13 verifies it; 7, 20, 31 and 5 use it untraced
    assert _input_shapes(compiled._entries) == [(4, 6), (4, 9), (4, 13)]
    assert [d.template.verified for d in compiled._templates] == [True]
    assert _input_shapes(compiled._sized) == [(4, 7), (4, 20), (4, 31), (4, 5)]
    assert compiled._entries[2].confirmed and not compiled._entries[1].confirmed


def test_compiled_gpt_module_in_an_eager_loop_over_varying_batch_and_length():
    shapes = [(2, 6), (3, 9), (2, 6), (5, 12), (4, 7), (6, 20), (4, 7), (3, 5)]
    compiled = _side_by_side(_TinyGPT, _sequence_batches(shapes, 11), _sequence_loss,
                             compile_step=False, dynamic=True)
    plans = _plans(compiled)
    # (2, 6) and (3, 9) fit T = 3 B, which (5, 12) refutes: fitted again on the three
    # calls, the template is verified at (4, 7); (6, 20) and (3, 5) are not traced.
    assert _input_shapes(plans._entries) == [(2, 6), (3, 9), (5, 12), (4, 7)]
    assert len(plans._templates[0].template.points) == 3
    assert _input_shapes(plans._sized) == [(6, 20), (3, 5)]
    assert plans._sized[0].plan.backward_function is not None    # forward and backward parts


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(), nn.Linear(4 * 16, 10))


def test_cnn_with_batchnorm_and_dropout_over_varying_batch_sizes():
    rng = np.random.default_rng(1)
    batches = [(rng.standard_normal((n, 1, 8, 8)).astype(np.float32), rng.integers(0, 10, n))
               for n in (8, 5, 8, 12, 3, 17, 12, 6)]
    compiled = _side_by_side(_cnn, batches, F.cross_entropy, dynamic=True)
    assert _input_shapes(compiled._entries) == [(8, 1, 8, 8), (5, 1, 8, 8),
                                                           (12, 1, 8, 8)]
    assert [shape[0] for shape in _input_shapes(compiled._sized)] == [3, 17, 6]


class _LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed, self.lstm, self.head = nn.Embedding(9, 8), nn.LSTM(8, 12), nn.Linear(12, 9)

    def forward(self, x):                   # x: (T, B)
        out, _ = self.lstm(self.embed(x))
        return self.head(out)


def test_lstm_over_varying_lengths_and_batches():
    shapes = [(5, 3), (7, 3), (5, 3), (6, 4), (9, 2), (12, 3), (4, 4)]
    compiled = _side_by_side(_LSTMModel, _sequence_batches(shapes, 9), _sequence_loss,
                             dynamic=True)
    # lengths 5 and 7 at batch 3 make a template over the length; the batch's change
    # at (6, 4) starts one over both, verified at (9, 2)
    assert _input_shapes(compiled._entries) == [(5, 3), (7, 3), (6, 4), (9, 2)]
    assert _input_shapes(compiled._sized) == [(12, 3), (4, 4)]


def test_a_loop_over_a_size_is_not_generalised_and_each_size_has_its_plan():
    def cumulative(x):                      # one op per row: the code grows with the size
        total = x[0]
        for i in range(1, x.shape[0]):
            total = total + x[i]
        return total * 2.0

    fn = ember.compile(cumulative, dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for rows in (3, 4, 3, 5, 6, 6, 7):
            x = ember.arange(rows * 2, dtype=ember.float32).view(rows, 2)
            assert np.array_equal(fn(x).numpy(), cumulative(x).numpy())
    assert any("cannot generalise" in str(w.message) for w in caught)
    assert fn._templates[0].template is None
    assert fn._sized == [] and len(fn._entries) == 5


def test_a_size_that_enters_the_code_squared_fails_verification():
    def first_square(x):
        n = x.shape[0]
        return x.reshape(-1)[: n * n - 1] * 3.0

    fn = ember.compile(first_square, dynamic=True)
    with pytest.warns(UserWarning, match="cannot generalise"):
        for n in (3, 4, 3, 5, 6, 5, 6):
            x = ember.arange(n * 9, dtype=ember.float32).view(n, 9)
            assert np.array_equal(fn(x).numpy(), first_square(x).numpy())
    assert fn._sized == []


def _double_rows(x):
    return (x * 2.0).sum(0)


def test_mark_dynamic_generalises_only_the_marked_dim():
    fn = ember.compile(_double_rows)        # dynamic=None: only marked dims vary
    for rows in (3, 5, 4, 7, 9):
        x = ember.ones(rows, 4)
        ember._dynamo.mark_dynamic(x, 0)
        assert fn(x).tolist() == [2.0 * rows] * 4
    assert len(fn._entries) == 3 and len(fn._sized) == 2
    x = ember.ones(5, 6)                    # an unmarked dim changed: traced
    ember._dynamo.mark_dynamic(x, -2)
    assert fn(x).tolist() == [10.0] * 6 and len(fn._entries) == 4


def test_without_marks_or_with_dynamic_false_each_size_traces():
    for options in ({}, {"dynamic": False}):
        fn = ember.compile(_double_rows, **options)
        for rows in (3, 5, 4, 7):
            x = ember.ones(rows, 4)
            if options:
                ember._dynamo.mark_dynamic(x, 0)
            assert fn(x).tolist() == [2.0 * rows] * 4
        assert len(fn._entries) == 4 and fn._templates == []


def test_mark_static_keeps_a_dim_fixed_under_dynamic_true():
    fn = ember.compile(_double_rows, dynamic=True)
    for rows in (3, 5, 4, 7):
        x = ember.ones(rows, 4)
        ember._dynamo.mark_static(x, 0)
        assert fn(x).tolist() == [2.0 * rows] * 4
    assert len(fn._entries) == 4 and fn._templates == []


def test_sizes_below_two_and_unequal_tied_dims_trace_their_own_plan():
    fn = ember.compile(lambda a, b: (a * b).sum(), dynamic=True)
    for n in (3, 5, 4, 6):                  # a and b always of one size: one symbol
        assert fn(ember.ones(n), ember.ones(n)).item() == n
    assert len(fn._entries) == 3 and len(fn._sized) == 1
    assert fn(ember.ones(1), ember.ones(1)).item() == 1.0       # size 1: traced
    assert fn(ember.ones(7), ember.ones(1)).item() == 7.0       # no longer equal: traced
    assert len(fn._entries) == 5 and len(fn._sized) == 1


def test_fused_kernels_serve_every_size(monkeypatch, tmp_path):
    monkeypatch.setattr(ember._dynamo.config, "cache_dir", str(tmp_path))
    if ember.backends.cpu.kernels != "numba":
        pytest.skip("fusion needs the ember[fast] kernels")
    fn = ember.compile(lambda t: ((t * 2.0 + 1.0) * t).relu(), dynamic=True)
    for n in (3, 5, 3, 5, 4, 8, 11):
        x = ember.arange(n, dtype=ember.float32) - 2.0
        assert np.array_equal(fn(x).numpy(), ((x * 2.0 + 1.0) * x).relu().numpy())
    kernels = {id(v) for e in fn._entries + fn._sized
               for k, v in e.plan.function.__globals__.items() if k.startswith("fused")}
    assert len(kernels) == 1 and len(fn._sized) == 2


def test_template_refuses_plans_that_differ_in_more_than_sizes():
    def traced(fn, x):
        compiled = ember.compile(fn)
        for _ in range(2):
            compiled(x)
        return compiled._entries[0].plan

    first = (traced(lambda t: t * 2.0, ember.ones(3)), (3,))
    with pytest.raises(_dynamic.NotGeneral):
        _dynamic.Template([first, (traced(lambda t: t * 3.0, ember.ones(5)), (5,))])
    with pytest.raises(_dynamic.NotGeneral):
        _dynamic.Template([first, (traced(lambda t: (t * 2.0).exp(), ember.ones(5)), (5,))])
    template = _dynamic.Template([first, (traced(lambda t: t * 2.0, ember.ones(5)), (5,))])
    assert template.plan((1,)) is None
    assert template.plan((9,)).run([ember.ones(9)]).tolist() == [2.0] * 9


def test_fitted_sizes_are_integers_or_the_template_does_not_apply():
    fit = _dynamic._Fitter([[4, 3], [8, 5]])
    half = fit([2, 4])                      # n // 2 seen as n / 2
    assert half([6, 3]) == 3
    with pytest.raises(_dynamic._NotInteger):
        half([7, 3])
    assert fit([24, 80])([10, 3]) == 60     # a product of two sizes, with a factor
    assert fit([3, 7])([10, 3]) == 9        # n - 1
    three = _dynamic._Fitter([[3], [4], [5]])
    with pytest.raises(_dynamic.NotGeneral):
        three([9, 16, 25])                  # n * n: no line through three calls


def test_a_buffer_of_one_value_written_by_the_plan_is_not_generalised():
    caches = {n: ember.zeros(n) for n in range(3, 8)}     # a buffer per size, kept outside

    def fill(x):
        cache = caches[x.shape[0]]
        cache.copy_(x)
        return cache * 2.0

    fn = ember.compile(fill, dynamic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (3, 5, 3, 4, 6, 7):
            caches[n].zero_()
            x = ember.ones(n)               # the buffers the plans read hold one value
            assert fn(x).tolist() == [2.0] * n
            assert caches[n].tolist() == [1.0] * n
    assert fn._sized == []


def test_at_the_recompile_limit_sizes_become_dynamic_as_in_torch():
    """dynamic=None: each size traces its own plan up to recompile_limit; past it, the
    traced plans that differ only in sizes are fitted into a template (torch's automatic
    dynamic shapes) instead of running eagerly; dynamic=False runs them eagerly."""
    shapes = [(4, n) for n in (6, 9, 7, 12, 5, 8, 10, 11, 14, 20, 3, 31)]
    compiled = _side_by_side(_TinyGPT, _sequence_batches(shapes, 11), _sequence_loss,
                             recompile_limit=4)
    assert len(compiled._entries) == 4 and [d.template.verified for d in
                                            compiled._templates] == [True]
    assert _input_shapes(compiled._sized) == shapes[4:]
    fixed = ember.compile(_double_rows, dynamic=False, recompile_limit=3)
    with pytest.warns(UserWarning, match="run eagerly"):
        for rows in (3, 5, 4, 7, 9):
            assert fixed(ember.ones(rows, 4)).tolist() == [2.0 * rows] * 4
    assert fixed._templates == [] and fixed._sized == []


def test_at_the_recompile_limit_a_loop_over_a_size_still_runs_eagerly():
    def cumulative(x):
        total = x[0]
        for i in range(1, x.shape[0]):
            total = total + x[i]
        return total

    fn = ember.compile(cumulative, recompile_limit=3)
    with pytest.warns(UserWarning, match="hit the recompile limit"):
        for rows in (3, 4, 5, 6, 7):
            x = ember.arange(rows * 2, dtype=ember.float32).view(rows, 2)
            assert np.array_equal(fn(x).numpy(), cumulative(x).numpy())
    assert fn._sized == []


def test_transformer_encoder_with_padding_masks_and_attention_dropout():
    """Lengths and padding change at every call; attention dropout draws a fresh mask
    at every replay (its mask was frozen into the plan, which two traces then refused)."""
    def make():
        ember.manual_seed(0)
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
        return nn.ModuleDict({"encoder": nn.TransformerEncoder(layer, 2,
                                                               enable_nested_tensor=False),
                              "head": nn.Linear(16, 3)})

    def loss_fn(model, inputs, target):
        x, pad = inputs
        h = model["encoder"](x, src_key_padding_mask=pad)
        h = h.masked_fill(pad.unsqueeze(-1), 0.0).sum(1) / (~pad).sum(1, keepdim=True)
        return F.cross_entropy(model["head"](h), target)

    rng = np.random.default_rng(0)
    batches = []
    for length in (6, 9, 6, 12, 7, 15, 10, 8):
        x = rng.standard_normal((4, length, 16)).astype(np.float32)
        pad = np.arange(length)[None, :] >= rng.integers(1, length + 1, 4)[:, None]
        batches.append(((x, pad), rng.integers(0, 3, 4)))
    compiled = _side_by_side(make, batches, None, wrap_inputs=True, loss_with_model=loss_fn,
                             dynamic=True)
    assert len(compiled._entries) == 3 and len(compiled._sized) == 4
