"""A seed gives torch's numbers: each sampler draws what torch's CPU kernels draw, and
leaves the generator in torch's state (compared through get_rng_state, byte for byte).

Exact where torch's arithmetic is reproduced; `_close` allows the last bit where NumPy's
log, sin, cos or exp stand for the C library's (float64 normals, log-normal, exponential)."""
import numpy as np
import pytest
import torch

import ember

SEEDS = (0, 1, 12345, 2 ** 40 + 3, -7)


def _both(draw, seed):
    """draw(lib) under `seed` in torch and ember: the two results as arrays, and whether the
    generators ended in the same state."""
    results = []
    for lib in (torch, ember):
        lib.manual_seed(seed)
        out = draw(lib)
        results.append(out.detach().numpy() if hasattr(out, "detach") else np.asarray(out))
    same_state = np.array_equal(torch.get_rng_state().numpy(), ember.get_rng_state().numpy())
    return results[0], results[1], same_state


def _exact(draw):
    for seed in SEEDS:
        expected, got, same_state = _both(draw, seed)
        assert expected.dtype == got.dtype and expected.shape == got.shape
        np.testing.assert_array_equal(got, expected)
        assert same_state


def _close(draw):
    for seed in SEEDS:
        expected, got, same_state = _both(draw, seed)
        assert expected.dtype == got.dtype and expected.shape == got.shape
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
        assert same_state


@pytest.mark.parametrize("n", [0, 1, 3, 15, 16, 17, 33, 1000])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_and_randn(n, dtype):
    _exact(lambda t: t.rand(n, dtype=getattr(t, dtype)))
    _close(lambda t: t.randn(n, dtype=getattr(t, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_normals_are_exact_with_the_compiled_kernels(dtype):
    # with ember[fast], float64 normals call the C library's log, sin and cos as torch does
    if dtype == "float64" and not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed: float64 normals use NumPy's log, sin and cos")
    _exact(lambda t: t.randn(200_003, dtype=getattr(t, dtype)))
    _exact(lambda t: t.empty(50_000, dtype=getattr(t, dtype)).normal_(2.0, 0.5))


@pytest.mark.parametrize("draw", [lambda t: t.empty(100_000, dtype=t.float64).exponential_(1.5),
                                  lambda t: t.empty(100_000, dtype=t.float64).cauchy_(0.5, 2.0)],
                         ids=["exponential", "cauchy"])
def test_double_transforms_are_exact_with_the_compiled_kernels(draw):
    # with ember[fast] they call the C library's log1p and tan, as torch does
    if not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed: NumPy's log1p and tan stand in")
    _exact(draw)


def test_small_normals_cache_their_pair_in_the_generator():
    # torch's scalar normal sampler makes two values and keeps one for the next call,
    # in the generator's state
    _close(lambda t: t.cat([t.randn(1), t.randn(3), t.randn(2, 2).flatten(), t.randn(20)]))
    for lib in (torch, ember):
        lib.manual_seed(0)
        lib.randn(1)
    assert np.array_equal(torch.get_rng_state().numpy(), ember.get_rng_state().numpy())
    ember.set_rng_state(ember.tensor(torch.get_rng_state().numpy()))
    assert ember.randn(1).item() == pytest.approx(torch.randn(1).item(), abs=0)


@pytest.mark.parametrize("n", [5, 16, 20, 100])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rand_and_randn_of_half_precision(dtype, n):
    _exact(lambda t: t.rand(n, dtype=getattr(t, dtype)).float())
    _close(lambda t: t.randn(n, dtype=getattr(t, dtype)).float())


@pytest.mark.parametrize("draw", [
    lambda t: t.empty(3, 50).uniform_(-0.37, 0.91),
    lambda t: t.empty(3, 50, dtype=t.float64).uniform_(-0.37, 0.91),
    lambda t: t.empty(7).uniform_(2.0, 3.0),
    lambda t: t.randint(-5, 17, (7, 9)),
    lambda t: t.randint(0, 2 ** 40, (20,)),
    lambda t: t.randint(10, (4, 4), dtype=t.int32),
    lambda t: t.randint_like(t.ones(30), 3, 10),
    lambda t: t.randperm(1000),
    lambda t: t.randperm(1),
    lambda t: t.randperm(0),
    lambda t: t.rand_like(t.ones(3, 30)),
    lambda t: t.bernoulli(t.linspace(0, 1, 200)),
    lambda t: t.bernoulli(t.linspace(0, 1, 200, dtype=t.float64)),
    lambda t: t.ones(200).bernoulli(0.3),
    lambda t: t.empty(200).bernoulli_(0.3),
    lambda t: t.empty(200, dtype=t.float64).bernoulli_(t.linspace(0, 1, 200, dtype=t.float64)),
    lambda t: t.empty(200, dtype=t.float64).bernoulli_(t.linspace(0, 1, 200)),
    lambda t: t.empty(50).random_(2, 9),
    lambda t: t.empty(50, dtype=t.int64).random_(10),
    lambda t: t.empty(50, dtype=t.int64).random_(to=7),
    lambda t: t.empty(50, dtype=t.int64).random_(-5, None),
    lambda t: t.randn(5, generator=t.Generator().manual_seed(3)),
], ids=lambda f: None)
def test_uniform_integer_and_bernoulli_samplers(draw):
    _exact(draw)


@pytest.mark.parametrize("fill", [
    lambda x: x.uniform_(), lambda x: x.normal_(), lambda x: x.random_(0, 10),
    lambda x: x.bernoulli_(0.4), lambda x: x.exponential_(),
])
@pytest.mark.parametrize("view", [lambda x: x.t(), lambda x: x[:, ::2], lambda x: x[1:, 2:],
                                  lambda x: x.view(4, 3, 2).permute(2, 0, 1)],
                         ids=["transposed", "strided", "sliced", "permuted"])
def test_fills_of_views_follow_memory_order(fill, view):
    def draw(t):
        base = t.zeros(4, 6)
        fill(view(base))
        return base
    _close(draw)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int16",
                                   "int8", "uint8", "bool"])
def test_random_without_bounds_and_from_a_lower_bound(dtype):
    _exact(lambda t: t.empty(50, dtype=getattr(t, dtype)).random_())
    if dtype != "bool":
        _exact(lambda t: t.empty(50, dtype=getattr(t, dtype)).random_(3, None))


@pytest.mark.parametrize("draw", [
    lambda t: t.empty(3, 50).normal_(0.5, 2.0),
    lambda t: t.empty(5).normal_(0.5, 2.0),
    lambda t: t.normal(t.arange(40.), t.arange(40.) / 10 + 1),
    lambda t: t.normal(2.0, t.ones(3, 7)),
    lambda t: t.normal(2., 3., size=(4, 5)),
    lambda t: t.randn_like(t.ones(3, 30)),
    lambda t: t.view_as_real(t.randn(3, 5, dtype=t.complex64)),
    lambda t: t.view_as_real(t.rand(7, dtype=t.complex128)),
    lambda t: t.view_as_real(t.empty(2, 9, dtype=t.complex64).normal_(0.5, 2.0)),
    lambda t: t.view_as_real(t.empty(2, 9, dtype=t.complex128).uniform_(-1, 2)),
])
def test_normal_samplers(draw):
    _close(draw)


@pytest.mark.parametrize("draw", [
    lambda t: t.empty(300).exponential_(2.0),
    lambda t: t.empty(300).geometric_(0.3),
    lambda t: t.empty(300).cauchy_(1.0, 2.0),
    lambda t: t.multinomial(t.tensor([[0.1, 0.5, 0.0, 2.0, 1.0], [1, 1, 1, 1, 1]]), 1),
    lambda t: t.multinomial(t.tensor([[0.1, 0.5, 0.0, 2.0, 1.0], [1, 1, 1, 1, 1]]), 3),
    lambda t: t.multinomial(t.tensor([[0.1, 0.5, 0.0, 2.0, 1.0], [1, 1, 1, 1, 1]]), 20, True),
    lambda t: t.multinomial(t.tensor([0.2, 0.3, 0.5], dtype=t.float64), 50, True),
    lambda t: t.multinomial(t.rand(4, 1000), 10),
    lambda t: t.distributions.Categorical(probs=t.tensor([0.2, 0.3, 0.5])).sample((20,)),
    lambda t: t.distributions.Bernoulli(probs=t.full((20,), 0.3)).sample(),
    lambda t: t.tensor(list(t.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4], 12))),
    lambda t: t.poisson(t.tensor([0.5, 3.0, 20.0, 0.0, 100.0] * 8)),
    lambda t: t.distributions.Poisson(t.tensor([4.0, 40.0])).sample((10,)),
    lambda t: t.binomial(t.full((40,), 30.), t.linspace(0, 1, 40)),
    lambda t: t.binomial(t.tensor([10., 100., 1000., 0., 5.] * 6, dtype=t.float64),
                         t.tensor([0.2, 0.7, 0.9, 0.3, 1.0] * 6, dtype=t.float64)),
    lambda t: t.distributions.Binomial(50, t.tensor([0.1, 0.5, 0.95])).sample((10,)),
])
def test_other_samplers(draw):
    _exact(draw)


@pytest.mark.parametrize("draw", [
    lambda t: t.empty(300, dtype=t.float64).exponential_(0.37),
    lambda t: t.empty(30).log_normal_(),
    lambda t: t.nn.functional.gumbel_softmax(t.arange(12.).reshape(3, 4), tau=0.5),
    lambda t: t.nn.functional.rrelu(t.linspace(-1, 1, 41), training=True),
    lambda t: t.distributions.Gamma(t.tensor([0.5, 2.0, 3.0]), t.tensor([1.0, 2.0, 0.5])).sample(
        (30,)),
    lambda t: t.distributions.Gamma(t.tensor([0.05, 7.0], dtype=t.float64), 1.0).sample((30,)),
    lambda t: t.distributions.Beta(t.tensor([0.5, 2.0]), t.tensor([1.5, 3.0])).sample((30,)),
    lambda t: t.distributions.Dirichlet(t.tensor([0.5, 2.0, 1.0])).sample((30,)),
    lambda t: t.distributions.StudentT(t.tensor([3.0])).sample((30,)),
    lambda t: t.distributions.NegativeBinomial(t.tensor([3.0, 10.0]),
                                               probs=t.tensor([0.3, 0.6])).sample((20,)),
    lambda t: t.distributions.Normal(t.zeros(20), t.ones(20)).sample(),
    lambda t: t.distributions.Uniform(t.zeros(20), t.ones(20) * 3).sample(),
])
def test_other_samplers_to_the_last_bit(draw):
    _close(draw)


@pytest.mark.parametrize("module", [
    lambda nn: nn.Linear(30, 20), lambda nn: nn.Bilinear(3, 4, 2),
    lambda nn: nn.Conv2d(2, 4, 3, groups=2), lambda nn: nn.Conv3d(2, 2, 2),
    lambda nn: nn.ConvTranspose1d(4, 2, 3, groups=2), lambda nn: nn.LSTM(3, 6, proj_size=2),
    lambda nn: nn.RNN(3, 5, num_layers=2, bidirectional=True),
    lambda nn: nn.GRU(4, 6, num_layers=2), lambda nn: nn.GRUCell(3, 4),
    lambda nn: nn.Embedding(7, 3, padding_idx=2), lambda nn: nn.EmbeddingBag(7, 3),
    lambda nn: nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True),
    lambda nn: nn.Transformer(8, 2, 1, 1, 16),
    lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 20, [5, 10]),
    lambda nn: nn.Sequential(nn.Conv1d(2, 4, 3), nn.BatchNorm1d(4), nn.Linear(5, 3)),
], ids=["linear", "bilinear", "conv2d", "conv3d", "conv_transpose1d", "lstm", "rnn", "gru",
        "gru_cell", "embedding", "embedding_bag", "attention", "transformer",
        "adaptive_softmax", "sequential"])
def test_modules_start_from_torchs_weights(module):
    _close(lambda t: t.cat([p.detach().flatten() for p in module(t.nn).parameters()]))


@pytest.mark.parametrize("init", [
    lambda t, w: t.nn.init.xavier_uniform_(w), lambda t, w: t.nn.init.xavier_normal_(w),
    lambda t, w: t.nn.init.kaiming_uniform_(w), lambda t, w: t.nn.init.kaiming_normal_(w),
    lambda t, w: t.nn.init.trunc_normal_(w), lambda t, w: t.nn.init.trunc_normal_(w, std=0.02),
    lambda t, w: t.nn.init.trunc_normal_(w, 0, 1, -0.1, 0.1),
    lambda t, w: t.nn.init.trunc_normal_(w, 0, 1, 0.5, 3.0),
    lambda t, w: t.nn.init.orthogonal_(w), lambda t, w: t.nn.init.sparse_(w, 0.3),
    lambda t, w: t.nn.init.uniform_(w, -2, 3), lambda t, w: t.nn.init.normal_(w, 1, 2),
])
def test_init_functions(init):
    _close(lambda t: init(t, t.empty(20, 30)))


@pytest.mark.parametrize("draw", [
    lambda t: t.nn.functional.dropout(t.ones(300), 0.4),
    lambda t: t.nn.functional.dropout(t.ones(3, 100, dtype=t.float64), 0.1),
    lambda t: t.nn.functional.dropout2d(t.ones(4, 6, 3, 3), 0.4),
    lambda t: t.nn.Dropout(0.2)(t.ones(10, 30)),
    lambda t: t.nn.functional.alpha_dropout(t.ones(300), 0.4, True),
    lambda t: t.nn.functional.scaled_dot_product_attention(
        t.ones(2, 3, 4), t.ones(2, 5, 4), t.arange(40.).reshape(2, 5, 4), dropout_p=0.5),
])
def test_dropout_masks(draw):
    _close(draw)


def test_data_loader_shuffles_and_splits_as_torch():
    def batches(t):
        data = t.utils.data
        dataset = data.TensorDataset(t.arange(100.))
        train, _ = data.random_split(dataset, [70, 30])
        out = [x for _ in range(2) for (x,) in data.DataLoader(train, batch_size=16,
                                                                shuffle=True)]
        sampler = data.RandomSampler(dataset, replacement=True, num_samples=40)
        out += [x for (x,) in data.DataLoader(dataset, batch_size=10, sampler=sampler)]
        subset = data.SubsetRandomSampler(list(range(0, 100, 3)))
        out.append(t.tensor([float(i) for i in subset]))
        return t.cat(out + [t.rand(2)])
    _exact(batches)


def test_states_move_between_torch_and_ember():
    torch.manual_seed(3)
    torch.randn(1)
    torch.rand(7)
    state = torch.get_rng_state()
    ember.set_rng_state(ember.tensor(state.numpy()))
    assert np.array_equal(ember.get_rng_state().numpy(), state.numpy())
    np.testing.assert_allclose(ember.randn(30).numpy(), torch.randn(30).numpy(), rtol=1e-6)
    ember.manual_seed(4)
    ember.rand(3)
    torch.set_rng_state(torch.from_numpy(ember.get_rng_state().numpy()))
    np.testing.assert_array_equal(ember.rand(10).numpy(), torch.rand(10).numpy())


def test_a_state_that_is_not_torchs_is_refused():
    for lib, convert in ((torch, torch.from_numpy), (ember, ember.from_numpy)):
        state = lib.get_rng_state().numpy().copy()
        state[8:12] = 0                                     # `left` out of range
        with pytest.raises(RuntimeError, match="^Invalid mt19937 state"):
            lib.set_rng_state(convert(state))
        with pytest.raises(RuntimeError, match="^Expected a CPUGeneratorImplState of size 5056"):
            lib.set_rng_state(convert(np.zeros(5059, np.uint8)))


def test_the_default_generator_starts_from_entropy_a_new_one_from_torchs_seed():
    import subprocess
    import sys
    code = "import {0}; print({0}.initial_seed(), {0}.Generator().initial_seed())"
    for lib in ("torch", "ember"):
        runs = [subprocess.run([sys.executable, "-c", code.format(lib)], capture_output=True,
                               text=True, check=True).stdout.split() for _ in range(2)]
        assert runs[0][0] != runs[1][0]                 # a new seed at every start
        assert runs[0][1] == runs[1][1] == str(torch.Generator().initial_seed())


@pytest.mark.parametrize("draw", [lambda t: t.ones(3).bernoulli(1.5),
                                  lambda t: t.empty(3).bernoulli_(-0.1),
                                  lambda t: t.bernoulli(t.ones(3), p=2.0),
                                  lambda t: t.empty(3).bernoulli_(t.tensor([1.5, 0., 0.])),
                                  lambda t: t.bernoulli(t.tensor([0.5, -0.5]))])
def test_a_probability_outside_0_1_is_refused(draw):
    messages = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            draw(lib)
        messages.append(str(info.value))
    assert messages[0].startswith(messages[1])


def test_generator_methods_as_torchs():
    for lib in (torch, ember):
        g = lib.Generator().manual_seed(3)
        clone = g.clone_state()
        assert clone is not g and clone.initial_seed() == 3
        assert lib.equal(clone.get_state(), g.get_state())
        assert lib.equal(lib.rand(4, generator=clone), lib.rand(4, generator=g))
        assert str(g.device) == "cpu" and isinstance(g.device, lib.device)
        with pytest.raises(RuntimeError, match="^CPU Generator does not use offset"):
            g.get_offset()
        with pytest.raises(NotImplementedError, match="^graphsafe_get_state is not supported"):
            g.graphsafe_get_state()


def test_an_endless_sampler_with_replacement_draws_lazily_as_torchs():
    import itertools
    firsts = []
    for lib in (torch, ember):
        lib.manual_seed(1)
        sampler = lib.utils.data.RandomSampler(range(10), replacement=True,
                                               num_samples=10 ** 10)
        firsts.append(list(itertools.islice(iter(sampler), 100)))
    assert firsts[0] == firsts[1]


@pytest.mark.parametrize("draw", [
    lambda t: t.rand(5000),
    lambda t: t.rand(3001, dtype=t.float64),                   # 6002 words
    lambda t: (t.rand(7), t.rand(70, 90))[1],                  # starts off a state boundary
    lambda t: t.empty(64, 129).uniform_(-0.3, 0.3),
    lambda t: t.empty(4100, dtype=t.float64).uniform_(2, 5),
    lambda t: t.randn(5003),
    lambda t: t.randint(0, 1000, (6000,)),
    lambda t: t.randint(0, 2 ** 40, (2500,)),                  # 64-bit draws
    lambda t: t.randperm(9000),
    lambda t: t.nn.init.kaiming_uniform_(t.empty(300, 40)),
], ids=["rand", "rand64", "offset", "uniform_", "uniform64", "randn", "randint", "randint64",
        "randperm", "kaiming_uniform_"])
def test_long_reads_of_the_stream(draw, kernels):
    """Reads of thousands of words (numba's twin runs the twister itself for them) give
    torch's numbers and leave torch's state."""
    _exact(draw)


@pytest.mark.parametrize("layout", ["transposed", "permuted", "channels_last", "strided"])
@pytest.mark.parametrize("factory", ["rand_like", "randn_like", "randint_like"])
def test_like_factories_draw_in_the_results_memory_order(layout, factory):
    """rand_like(x.t()) keeps x.t()'s strides and draws along that memory, as torch does."""
    make = {"transposed": lambda t: t.arange(24.0).reshape(4, 6).t(),
            "permuted": lambda t: t.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
            "channels_last": lambda t: t.ones(2, 3, 4, 5).to(memory_format=t.channels_last),
            "strided": lambda t: t.arange(24.0).reshape(4, 6)[:, ::2]}[layout]

    def draw(t):
        like = make(t)
        out = t.randint_like(like, 10) if factory == "randint_like" else \
            getattr(t, factory)(like)
        assert out.stride() == t.empty_like(like).stride()
        return out.contiguous()
    (_close if factory == "randn_like" else _exact)(draw)


@pytest.mark.parametrize("draw", [
    lambda t: t.multinomial((t.arange(1.0, 25.0).reshape(4, 6) / 30).t(), 2),
    lambda t: t.distributions.Categorical(probs=(t.arange(1.0, 25.0).reshape(4, 6)).t())
    .sample(),
    lambda t: t.nn.functional.gumbel_softmax((t.arange(24.0).reshape(4, 6) / 30).t()),
    lambda t: t.bernoulli((t.arange(24.0).reshape(4, 6) / 30).t()),
    lambda t: t.normal((t.arange(24.0).reshape(4, 6) / 30).t(), 1.0),
], ids=["multinomial", "Categorical", "gumbel_softmax", "bernoulli", "normal"])
def test_samplers_of_transposed_parameters(draw, request):
    """multinomial draws its noise into empty_like(probs) (along a transposed input's
    memory); gumbel_softmax asks for row-major noise whatever the logits' layout."""
    (_close if request.node.callspec.id in ("gumbel_softmax", "normal") else _exact)(draw)
