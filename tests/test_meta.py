"""The meta device: tensors with shape, dtype and strides but no data, compared with torch."""
import io

import numpy as np
import pytest
import torch

import ember

FACTORIES = [
    lambda t: t.empty(2, 3, device="meta"),
    lambda t: t.zeros(2, 3, dtype=t.float64, device="meta"),
    lambda t: t.ones(4, device="meta", requires_grad=True),
    lambda t: t.full((2, 2), 7, device="meta"),
    lambda t: t.rand(3, 1, device="meta"),
    lambda t: t.randn(2, 0, 3, device="meta"),
    lambda t: t.randint(0, 5, (2, 4), device="meta"),
    lambda t: t.arange(10, device="meta"),
    lambda t: t.arange(0.0, 1.0, 0.25, device="meta"),
    lambda t: t.linspace(0, 1, 5, device="meta"),
    lambda t: t.eye(3, 4, device="meta"),
    lambda t: t.tensor([[1, 2], [3, 4]], device="meta"),
    lambda t: t.tensor(1.5, device="meta"),
    lambda t: t.empty_strided((2, 3), (1, 2), device="meta"),
    lambda t: t.empty_like(t.ones(2, 3).t(), device="meta"),
    lambda t: t.zeros_like(t.empty(2, 3, device="meta"), dtype=t.int32),
    lambda t: t.ones(2, 3).to("meta"),
    lambda t: t.empty(2, 3, device="meta").new_zeros(5),
    lambda t: t.empty(2, 3, dtype=t.bool, device="meta"),
]


def _same_meta(e, t):
    assert e.is_meta and t.is_meta
    assert repr(e) == repr(t)
    assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
    assert e.stride() == t.stride()
    assert e.is_contiguous() == t.is_contiguous()
    assert e.requires_grad == t.requires_grad
    assert str(e.device) == str(t.device) == "meta"


@pytest.mark.parametrize("make", FACTORIES)
def test_factories_match_torch(make):
    _same_meta(make(ember), make(torch))


def test_huge_tensor_takes_no_memory():
    x = ember.empty(100000, 100000, device="meta")
    assert x.shape == (100000, 100000) and x.stride() == (100000, 1) and x.is_meta
    assert x.data_ptr() == torch.empty(1, device="meta").data_ptr() == 0


OPS = [
    lambda t, x, w: x * 2 + 1,
    lambda t, x, w: (x @ w.t()).relu(),
    lambda t, x, w: t.nn.functional.linear(x, w),
    lambda t, x, w: x.sum(),
    lambda t, x, w: x.mean(0, keepdim=True),
    lambda t, x, w: x.t(),
    lambda t, x, w: x.t() * 3,
    lambda t, x, w: x.view(12).view(2, 6),
    lambda t, x, w: x.reshape(3, 4),
    lambda t, x, w: x.permute(1, 0)[1:, None],
    lambda t, x, w: x[:, :1].expand(4, 5),
    lambda t, x, w: x[1:, [0, 2]],
    lambda t, x, w: x[::2, 1],
    lambda t, x, w: t.cat([x, x], 1),
    lambda t, x, w: t.stack([x, x], 1),
    lambda t, x, w: x.max(1).values,
    lambda t, x, w: x.argmax(1),
    lambda t, x, w: x > 0,
    lambda t, x, w: x.to(t.float64),
    lambda t, x, w: x + t.tensor(2.0),
    lambda t, x, w: x.unsqueeze(0).squeeze(0),
    lambda t, x, w: 1.0 / (10000.0 ** (x / 3)),     # transformers' RoPE inv_freq, built on meta
    lambda t, x, w: x ** 3,
]


@pytest.mark.parametrize("op", OPS)
def test_ops_compute_metadata(op):
    results = []
    for t in (ember, torch):
        x = t.empty(4, 3, device="meta")
        w = t.empty(2, 3, device="meta", requires_grad=True)
        results.append(op(t, x, w))
    e, t = results
    _same_meta(e, t)
    assert (e.grad_fn is None) == (t.grad_fn is None)


@pytest.mark.parametrize("default", ["bfloat16", "float64"])
def test_ops_on_meta_promote_as_torch_under_another_default_dtype(default):
    """transformers' from_pretrained(dtype=torch.bfloat16) builds the model on meta with
    bfloat16 as the default dtype: ember took a meta operand for a Python scalar (so for the
    default dtype) and asked the meta array for data ('Div is not supported')."""
    results = []
    for lib in (ember, torch):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            with lib.device("meta"):
                a = lib.arange(0, 8, 2, dtype=lib.float)
                results.append([str(r.dtype) for r in (a / 8, 1.0 / (10000.0 ** (a / 8)),
                                                        lib.ones(3) * 2, a + lib.ones(4))])
        finally:
            lib.set_default_dtype(previous)
    assert results[0] == results[1]


def test_backward_on_meta_gives_meta_grads():
    grads = []
    for t in (ember, torch):
        w = t.empty(1, 3, device="meta", requires_grad=True)
        x = t.empty(5, 3, device="meta")
        loss = (x * w).relu().sum()
        assert type(loss.grad_fn).__name__ == "SumBackward0"
        loss.backward()
        grads.append(w.grad)
    _same_meta(*grads)


def test_in_place_ops_check_shapes_and_do_nothing():
    x = ember.empty(4, 3, device="meta")
    for fn in (lambda: x.zero_(), lambda: x.fill_(2), lambda: x.uniform_(),
               lambda: x.normal_(), lambda: x.copy_(ember.empty(3, device="meta")),
               lambda: ember.nn.init.kaiming_uniform_(x), lambda: ember.nn.init.zeros_(x)):
        assert fn() is x and x.is_meta
    with pytest.raises(RuntimeError):
        x.copy_(ember.empty(5, device="meta"))


def test_init_on_meta_draws_nothing():
    ember.manual_seed(0)
    ember.nn.init.normal_(ember.empty(1000, device="meta"))
    after_meta = ember.rand(3)
    ember.manual_seed(0)
    assert ember.equal(after_meta, ember.rand(3))


VALUE_ACCESS = [
    (lambda x: x.item(), RuntimeError, "a Tensor with 6 elements cannot be converted"),
    (lambda x: x[0, 0].item(), RuntimeError, "Tensor.item\\(\\) cannot be called on meta"),
    (lambda x: float(x[0, 0]), RuntimeError, "Tensor.item\\(\\) cannot be called on meta"),
    (lambda x: bool(x[0, 0]), RuntimeError, "Tensor.item\\(\\) cannot be called on meta"),
    (lambda x: x.tolist(), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (lambda x: x.numpy(), TypeError, "can't convert meta device type tensor to numpy"),
    (lambda x: np.asarray(x), TypeError, "can't convert meta device type tensor to numpy"),
    (lambda x: x.to("cpu"), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (lambda x: x + x.new_ones(2, 3, device="cpu"), RuntimeError,
     "Tensor on device cpu is not on the expected device meta!"),
]


@pytest.mark.parametrize("access, error, message", VALUE_ACCESS)
def test_value_access_raises_torchs_error(access, error, message):
    for t in (ember, torch):
        with pytest.raises(error, match=message):
            access(t.empty(2, 3, device="meta"))


def test_data_dependent_and_unsupported_ops_raise_not_implemented():
    x = ember.empty(4, 3, device="meta")
    with pytest.raises(NotImplementedError):
        x.nonzero()
    with pytest.raises(NotImplementedError):
        x[x > 0]
    with pytest.raises(NotImplementedError, match="Conv.* meta device"):
        ember.nn.functional.conv2d(ember.empty(1, 3, 8, 8, device="meta"),
                                   ember.empty(4, 3, 3, 3, device="meta"))


def test_device_context_manager_and_default_device():
    for t in (ember, torch):
        assert str(t.get_default_device()) == "cpu"
        with t.device("meta"):
            assert str(t.get_default_device()) == "meta"
            assert t.ones(2).is_meta and t.tensor([1.0]).is_meta and t.arange(3).is_meta
            assert not t.empty_like(t.ones(1, device="cpu")).is_meta
            assert not t.zeros(2, device="cpu").is_meta
            with t.device("cpu"):
                assert not t.ones(1).is_meta
            assert t.ones(1).is_meta
        assert str(t.get_default_device()) == "cpu"
        t.set_default_device("meta")
        try:
            assert t.randn(2).is_meta and str(t.get_default_device()) == "meta"
        finally:
            t.set_default_device(None)
        assert not t.ones(1).is_meta


def test_modules_built_on_meta():
    for t in (ember, torch):
        with t.device("meta"):
            linear = t.nn.Linear(4096, 4096)
        assert linear.weight.is_meta and repr(linear.weight).startswith("Parameter containing")
        with pytest.raises(NotImplementedError, match="Please use torch.nn.Module.to_empty"):
            linear.to("cpu")
        linear.to_empty(device="cpu")
        assert not linear.weight.is_meta and linear.weight.requires_grad
        assert type(linear.weight).__name__ == "Parameter"
        linear.reset_parameters()
        assert float(linear.weight.abs().max()) <= 1 / 64
        assert t.nn.Linear(2, 3).to("meta").weight.is_meta
        assert t.nn.utils.skip_init(t.nn.Linear, 3, 4).weight.shape == (4, 3)


def _tiny_transformer(t):
    class Tiny(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = t.nn.Embedding(50, 16)
            self.layer = t.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
            self.norm = t.nn.LayerNorm(16)
            self.head = t.nn.Linear(16, 50)

        def forward(self, ids):
            return self.head(self.norm(self.layer(self.embed(ids))))
    return Tiny


def test_large_model_loading_pattern_matches_torch():
    torch.manual_seed(0)
    reference = _tiny_transformer(torch)().eval()
    buffer = io.BytesIO()
    torch.save(reference.state_dict(), buffer)
    with ember.device("meta"):
        model = _tiny_transformer(ember)()
    assert all(p.is_meta for p in model.parameters())
    model.to_empty(device="cpu")
    buffer.seek(0)
    model.load_state_dict(ember.load(buffer), assign=True)
    model.eval()
    ids = np.array([[1, 5, 7, 49], [0, 2, 3, 4]])
    with torch.no_grad():
        expected = reference(torch.from_numpy(ids)).numpy()
    with ember.no_grad():
        got = model(ember.from_numpy(ids)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_init_empty_weights_pattern():
    """accelerate's init_empty_weights: register_parameter moves each new parameter to meta."""
    for t in (ember, torch):
        original = t.nn.Module.register_parameter

        def register_on_meta(module, name, param):
            original(module, name, param)
            if param is not None:
                cls = type(module._parameters[name])
                module._parameters[name] = cls(module._parameters[name].to("meta"),
                                               requires_grad=param.requires_grad)
        t.nn.Module.register_parameter = register_on_meta
        try:
            with t.no_grad():
                layer = t.nn.Linear(8, 4)
        finally:
            t.nn.Module.register_parameter = original
        assert layer.weight.is_meta and layer.bias.is_meta



@pytest.mark.parametrize("kernels", ["numpy", "numba"])
def test_ops_with_compiled_kernels_take_the_reference_path_on_meta(kernels):
    """numba's kernels take NumPy arrays only: on meta storage the families use their
    NumPy reference, which computes the metadata."""
    from ember._cpu import kernels as choice
    if kernels == "numba" and not choice.numba_available():
        pytest.skip("numba is not installed")
    F = {ember: ember.nn.functional, torch: torch.nn.functional}
    with ember.backends.cpu.flags(kernels=kernels):
        for name, op in [("gelu", lambda t, x: F[t].gelu(x)),
                         ("silu", lambda t, x: F[t].silu(x)),
                         ("softmax", lambda t, x: F[t].softmax(x, -1)),
                         ("log_softmax", lambda t, x: F[t].log_softmax(x, 1)),
                         ("layer_norm", lambda t, x: F[t].layer_norm(x, (8,)))]:
            ours, theirs = (op(t, t.empty(2, 3, 8, device="meta")) for t in (ember, torch))
            assert ours.is_meta and tuple(ours.shape) == tuple(theirs.shape), name
            assert ours.stride() == theirs.stride() and str(ours.dtype) == str(theirs.dtype)


def test_embedding_on_meta_and_losses_refused_by_name():
    """Embedding looks rows up without reading the indices (no range check on meta, as
    torch's meta kernel); cross_entropy's kernel reads the targets: refused by name."""
    for t in (ember, torch):
        weight = t.empty(10, 4, device="meta", requires_grad=True)
        out = t.nn.functional.embedding(t.empty(2, 3, dtype=t.long, device="meta"), weight)
        module = t.nn.Embedding(100, 8, device="meta")
        found = module(t.empty(5, dtype=t.long, device="meta"))
        assert out.is_meta and (tuple(out.shape), out.stride()) == ((2, 3, 4), (12, 4, 1))
        assert type(out.grad_fn).__name__ == "EmbeddingBackward0" and found.shape == (5, 8)
    with pytest.raises(NotImplementedError, match="CrossEntropy is not supported on the meta"):
        ember.nn.functional.cross_entropy(ember.empty(4, 5, device="meta"),
                                          ember.empty(4, dtype=ember.long, device="meta"))
