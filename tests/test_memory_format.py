"""Memory formats (contiguous, channels_last, channels_last_3d, preserve): strides,
aliasing and errors of the conversions, the layouts ops give their outputs, and the
gradient layout contract, each compared with torch."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error

LIBS = (torch, ember)


def _layout(t):
    """What a memory format decides about a tensor (its values are the same anyway)."""
    return t.shape, t.stride(), t.is_contiguous(), (
        t.is_contiguous(memory_format=_lib(t).channels_last) if t.dim() == 4 else None)


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else ember


def _same(fn):
    """fn(lib) on both libraries: equal layouts and values."""
    got, want = fn(ember), fn(torch)
    assert _layout(got) == _layout(want)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                               atol=1e-5)


def _nchw(lib, shape=(2, 3, 4, 5)):
    return lib.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))


def _channels_last(lib, shape=(2, 3, 4, 5)):
    return _nchw(lib, shape).contiguous(memory_format=lib.channels_last)


@pytest.mark.parametrize("convert", [
    lambda lib, x: x.contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last),
    lambda lib, x: x.clone(memory_format=lib.channels_last),
    lambda lib, x: x.double(memory_format=lib.channels_last),
    lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).contiguous(),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).clone(),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).to(
        memory_format=lib.contiguous_format),
])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 2, 1, 1), (2, 1, 4, 5), (1, 3, 1, 1)])
def test_conversions(convert, shape):
    # Not covered, known to differ: the stride ember reports for a size-1 dim after
    # copying a non-row-major layout (NumPy picks it, torch infers it from its
    # neighbours), and the layout of empty tensors (NumPy gives them zero strides).
    _same(lambda lib: convert(lib, _nchw(lib, shape)))


@pytest.mark.parametrize("convert", [
    lambda lib, x: x.contiguous(memory_format=lib.channels_last)[:, :2].clone(),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).transpose(1, 2).clone(),
])
def test_clone_keeps_a_permuted_order(convert):
    _same(lambda lib: convert(lib, _nchw(lib)))


def test_channels_last_3d():
    def convert(lib):
        x = lib.tensor(np.arange(120, dtype=np.float32).reshape(1, 2, 3, 4, 5))
        return x.contiguous(memory_format=lib.channels_last_3d)
    got, want = convert(ember), convert(torch)
    assert got.stride() == want.stride() == (120, 1, 40, 10, 2)
    assert got.is_contiguous(memory_format=ember.channels_last_3d)
    assert not got.is_contiguous(memory_format=ember.channels_last)


@pytest.mark.parametrize("make", [
    lambda lib: _channels_last(lib),
    lambda lib: _nchw(lib),
    lambda lib: _nchw(lib, (2, 3, 1, 5)).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
    lambda lib: _nchw(lib, (3, 2, 1, 1)).to(memory_format=lib.channels_last),
])
def test_to_and_contiguous_alias_as_torch(make):
    """to() returns self when the strides already suggest the format; contiguous() when
    the tensor is contiguous in it."""
    for fmt in ("channels_last", "contiguous_format"):
        x, t = make(ember), make(torch)
        assert (x.to(memory_format=getattr(ember, fmt)) is x) == \
            (t.to(memory_format=getattr(torch, fmt)) is t)
        assert (x.contiguous(memory_format=getattr(ember, fmt)) is x) == \
            (t.contiguous(memory_format=getattr(torch, fmt)) is t)


def test_is_contiguous_answers_as_torch():
    cases = [lambda lib: _nchw(lib), lambda lib: _channels_last(lib),
             lambda lib: lib.zeros(2, 3), lambda lib: lib.zeros(2, 3).t(),
             lambda lib: lib.zeros(0, 3, 2, 2), lambda lib: lib.zeros(1, 1, 3, 4),
             lambda lib: lib.zeros(2, 3, 4, 5, 6)]
    for make in cases:
        for fmt in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
            assert make(ember).is_contiguous(memory_format=getattr(ember, fmt)) == \
                make(torch).is_contiguous(memory_format=getattr(torch, fmt)), fmt


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.zeros(2, 3).contiguous(memory_format=lib.channels_last), RuntimeError),
    (lambda lib: lib.tensor(1.).contiguous(memory_format=lib.channels_last), RuntimeError),
    (lambda lib: lib.zeros(2, 3, 4, 5).contiguous(memory_format=lib.channels_last_3d),
     RuntimeError),
    (lambda lib: lib.zeros(2, 3).clone(memory_format=lib.channels_last), RuntimeError),
    (lambda lib: lib.zeros(2, 3).to(memory_format=lib.channels_last), RuntimeError),
    (lambda lib: lib.empty_like(lib.zeros(2, 3), memory_format=lib.channels_last),
     RuntimeError),
    (lambda lib: lib.empty(2, 3, memory_format=lib.channels_last), RuntimeError),
    (lambda lib: lib.empty(2, 3, memory_format=lib.preserve_format), RuntimeError),
    (lambda lib: lib.zeros(2, 3).t().contiguous(memory_format=lib.preserve_format),
     RuntimeError),
    (lambda lib: lib.nn.Conv3d(2, 3, 1).to(memory_format=lib.channels_last), RuntimeError),
    (lambda lib: lib.zeros(2, 3).is_contiguous(memory_format=1), TypeError),
    (lambda lib: lib.empty(2, 3, memory_format=1), TypeError),
    (lambda lib: lib.zeros_like(lib.zeros(2), memory_format="channels_last"), TypeError),
])
def test_errors(call, error):
    with pytest.raises(error) as want:
        call(torch)
    with pytest.raises(error) as got:
        call(ember)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("factory", [
    lambda lib, x, **kw: lib.empty_like(x, **kw).zero_(),
    lambda lib, x, **kw: lib.zeros_like(x, **kw),
    lambda lib, x, **kw: lib.ones_like(x, **kw),
    lambda lib, x, **kw: lib.full_like(x, 7.0, **kw),
    lambda lib, x, **kw: lib.rand_like(x, **kw).mul(0),
    lambda lib, x, **kw: lib.randn_like(x, **kw).mul(0),
    lambda lib, x, **kw: lib.randint_like(x, 5, **kw).mul(0),
])
@pytest.mark.parametrize("source", [
    lambda lib: _channels_last(lib),
    lambda lib: _channels_last(lib)[:, :, ::2],          # not dense: its order is kept
    lambda lib: _nchw(lib).permute(0, 3, 1, 2),
    lambda lib: _nchw(lib),
])
@pytest.mark.parametrize("fmt", [None, "contiguous_format", "channels_last"])
def test_like_factories(factory, source, fmt):
    def make(lib):
        kw = {} if fmt is None else {"memory_format": getattr(lib, fmt)}
        return factory(lib, source(lib), **kw)
    _same(make)


def test_like_factories_of_transposed_matrices():
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like"):
        strides = [getattr(lib, name)(lib.zeros(2, 3).t()).stride() for lib in LIBS]
        assert strides[0] == strides[1] == (1, 3)


def test_empty_in_a_format():
    for fmt, shape in (("channels_last", (2, 3, 4, 5)), ("channels_last_3d", (1, 2, 3, 4, 5)),
                       ("contiguous_format", (2, 3))):
        strides = [lib.empty(*shape, memory_format=getattr(lib, fmt)).stride() for lib in LIBS]
        assert strides[0] == strides[1]


def test_module_to_converts_4d_parameters_only():
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3),
                                 lib.nn.Conv2d(3, 3, 1), lib.nn.Linear(4, 2)
                                 ).to(memory_format=lib.channels_last)
    got, want = build(ember), build(torch)
    for (name, a), (_, b) in zip(got.named_parameters(), want.named_parameters()):
        assert a.stride() == b.stride(), name
        assert isinstance(a, ember.nn.Parameter)


@pytest.mark.parametrize("op", [
    lambda lib, F, y: y + 1, lambda lib, F, y: F.relu(y), lambda lib, F, y: y.exp(),
    lambda lib, F, y: F.conv2d(y, lib.ones(4, 3, 3, 3)),
    lambda lib, F, y: F.conv2d(y, lib.ones(4, 3, 1, 1), padding=1),
    lambda lib, F, y: F.conv2d(y.contiguous(), lib.ones(4, 3, 3, 3).contiguous(
        memory_format=lib.channels_last)),
    lambda lib, F, y: F.conv_transpose2d(y, lib.ones(3, 2, 3, 3)),
    lambda lib, F, y: F.batch_norm(y, lib.zeros(3), lib.ones(3)),
    lambda lib, F, y: F.batch_norm(y, None, None, training=True),
    lambda lib, F, y: F.max_pool2d(y, 2), lambda lib, F, y: F.max_pool2d(y, 3, 1, 1),
    lambda lib, F, y: F.avg_pool2d(y, 2), lambda lib, F, y: F.avg_pool2d(y, 3, 1, 1),
    lambda lib, F, y: F.adaptive_avg_pool2d(y, 2),
    lambda lib, F, y: F.interpolate(y, scale_factor=2),
    lambda lib, F, y: F.interpolate(y, scale_factor=2, mode="bilinear"),
    lambda lib, F, y: lib.cat([y, y], 1),
    lambda lib, F, y: F.group_norm(y, 3),
])
def test_op_outputs_keep_channels_last(op):
    _same(lambda lib: op(lib, lib.nn.functional, _channels_last(lib)))


def test_view_of_channels_last_asks_for_reshape():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            _channels_last(lib).view(-1)
    _same(lambda lib: _channels_last(lib).reshape(2, -1))


@pytest.mark.parametrize("make", [
    lambda lib: _channels_last(lib),
    lambda lib: _nchw(lib, (3, 4, 2, 2)).permute(0, 2, 3, 1),   # any dense permutation
    lambda lib: lib.zeros(3, 4).t(),
    lambda lib: lib.zeros(4, 6)[:, ::2],                       # not dense: row-major grad
])
@pytest.mark.parametrize("through", ["pointwise", "conv", "broadcast"])
def test_leaf_gradients_follow_the_leaf_layout(make, through):
    def grad(lib):
        x = make(lib).clone().detach() if through != "broadcast" else make(lib).detach()
        x = lib.nn.Parameter(x) if x.dim() == 4 else x.requires_grad_()
        if through == "conv" and x.dim() == 4:
            out = lib.nn.functional.conv2d(x, lib.ones(2, x.shape[1], 1, 1))
        elif through == "broadcast":
            out = x + lib.ones(x.shape[-1])
        else:
            out = x * 2
        out.sum().backward()
        return x.grad
    got, want = grad(ember), grad(torch)
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_channels_last_training_matches_torch():
    """A small CNN converted with model.to(memory_format=channels_last): same losses and
    weights as torch after three SGD steps, and the weights stay channels-last."""
    init = {}

    def train(lib):
        lib.manual_seed(0)
        nn, F = lib.nn, lib.nn.functional
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Conv2d(8, 4, 3), nn.ReLU(),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 5))
        if not init:
            init.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})
        model.load_state_dict({k: lib.tensor(v) for k, v in init.items()})
        model = model.to(memory_format=lib.channels_last)
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = lib.tensor(np.random.default_rng(0).standard_normal((4, 3, 10, 10), np.float32))
        x = x.contiguous(memory_format=lib.channels_last)
        target = lib.tensor(np.array([0, 1, 2, 3]))
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return model, losses
    (got, got_losses), (want, want_losses) = train(torch), train(ember)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-5)
    for (name, a), (_, b) in zip(got.named_parameters(), want.named_parameters()):
        assert a.stride() == b.stride() and a.grad.stride() == b.grad.stride(), name
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4,
                                   atol=1e-6)


def test_checkpoints_keep_channels_last(tmp_path):
    x = _channels_last(torch)
    torch.save({"x": x}, tmp_path / "torch.pt")
    loaded = ember.load(tmp_path / "torch.pt")["x"]
    assert loaded.stride() == x.stride()
    ember.save({"x": _channels_last(ember)}, tmp_path / "ember.pt")
    back = torch.load(tmp_path / "ember.pt")["x"]
    assert back.stride() == x.stride() and torch.equal(back, x)


@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros(1, 3).t(), lambda lib: lib.zeros(3, 4)[:, None],
    lambda lib: lib.zeros(0, 3), lambda lib: lib.zeros(3, 4)[:0],
    lambda lib: lib.zeros(4, 1), lambda lib: lib.zeros(3).expand(2, 3),
])
def test_strides_of_size_one_and_empty_dims(make):
    assert make(ember).stride() == make(torch).stride()


CONVERSIONS = ["float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte",
               "bool", "cfloat", "cdouble"]


@pytest.mark.parametrize("method", CONVERSIONS)
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_dtype_conversion_methods_take_memory_format(method, fmt):
    results = []
    for lib in (torch, ember):
        x = lib.arange(120.0).reshape(2, 3, 4, 5).permute(0, 2, 3, 1)  # a channels-last layout
        y = getattr(x, method)(memory_format=getattr(lib, fmt))
        results.append((str(y.dtype), y.stride(), y.is_contiguous(), y.tolist()))
    assert results[1] == results[0]


@pytest.mark.parametrize("method", CONVERSIONS)
def test_dtype_conversion_methods_take_memory_format_by_keyword_only(method):
    check_error(lambda lib: getattr(lib.ones(2, 3, 4, 5), method)(lib.channels_last), TypeError,
                rf"^{method}\(\) takes 0 positional arguments but 1 was given")
    check_error(lambda lib: getattr(lib.ones(2), method)(memory_format=lib.channels_last),
                RuntimeError, "^required rank 4 tensor to use channels_last format")


def test_chalf_is_refused_naming_complex32():
    with pytest.raises(NotImplementedError, match="complex32"):
        ember.ones(2).chalf()
    with pytest.raises(NotImplementedError, match="complex32"):
        ember.ones(2, 3, 4, 5).chalf(memory_format=ember.channels_last)
