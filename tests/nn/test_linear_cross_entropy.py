"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions
(ember/nn/functional/linear_cross_entropy.py, ember/nn/modules/linear_cross_entropy*.py)
against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import assert_same, check, check_error

N, IN, C = 6, 4, 5
REDUCTIONS = ["mean", "sum", "none"]


def _targets(shape, num_classes=C, ignored=(), seed=3, ignore_index=-100):
    """int64 class indices with the positions in `ignored` set to `ignore_index`."""
    t = np.random.default_rng(seed).integers(0, num_classes, shape)
    t.reshape(-1)[list(ignored)] = ignore_index
    return t


def _probabilities(shape, seed=4):
    p = np.random.default_rng(seed).random(shape)
    return p / p.sum(axis=1, keepdims=True)


def _options(lib, off=False, **kwargs):
    """LinearCrossEntropyOptions(**kwargs), or None (the reference path) when `off`."""
    return None if off else lib.nn.LinearCrossEntropyOptions(**kwargs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("bias", [False, True])
def test_class_indices_match_torch(dtype, reduction, bias):
    specs = [(N, IN), (C, IN), _targets(N, ignored=[1])] + ([(C,)] if bias else [])
    check(lambda lib, x, w, t, *b: lib.nn.functional.linear_cross_entropy(
        x, w, t, linear_bias=b[0] if b else None, reduction=reduction), *specs, dtype=dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_class_weight_and_ignore_index(reduction):
    target = _targets(N, ignored=[])
    target[2] = 1
    check(lambda lib, x, w, t, cw: lib.nn.functional.linear_cross_entropy(
        x, w, t, weight=cw, ignore_index=1, reduction=reduction),
        (N, IN), (C, IN), target, np.linspace(0.5, 2.0, C), dtype="float64",
        grad_inputs=(0, 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_probability_targets_with_label_smoothing(dtype, reduction):
    check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(
        x, w, t, reduction=reduction, label_smoothing=0.2),
        (N, IN), (C, IN), _probabilities((N, C)).astype(dtype), dtype=dtype, grad_inputs=(0, 1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_k_dimensional_loss(reduction):
    """linear_weight (C, d1, d2, in): logits (N, C, d1, d2), target (N, d1, d2)."""
    check(lambda lib, x, w, b, t: lib.nn.functional.linear_cross_entropy(
        x, w, t, linear_bias=b, reduction=reduction, label_smoothing=0.1),
        (N, IN), (C, 2, 3, IN), (C, 2, 3), _targets((N, 2, 3), ignored=[4]),
        dtype="float64")


def test_k_dimensional_probability_targets():
    check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(x, w, t),
          (N, IN), (C, 3, IN), _probabilities((N, C, 3)), dtype="float64", grad_inputs=(0, 1))


def test_unbatched_input_and_non_contiguous_weight():
    check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(x, w.t(), t),
          (IN,), (IN, C), np.array(2), dtype="float64")
    check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(x, w, t),
          (N, IN), (C, IN), _targets(N), non_contiguous=True)


def test_empty_batch():
    """Like cross_entropy: 'mean' over no rows is nan, 'sum' is 0."""
    for reduction in REDUCTIONS:
        for chunked in (False, True):
            check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(
                x, w, t, reduction=reduction, options=_options(lib, off=not chunked)),
                (0, IN), (C, IN), np.zeros(0, np.int64), grad=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("chunk", [1, 4, 6, 100])
def test_chunked_path_matches_torch(dtype, reduction, chunk):
    """options with batch_chunk_size: same values and gradients, in chunks of rows."""
    check(lambda lib, x, w, b, t, cw: lib.nn.functional.linear_cross_entropy(
        x, w, t, linear_bias=b, weight=cw, reduction=reduction,
        options=_options(lib, batch_chunk_size=chunk)),
        (N, IN), (C, IN), (C,), _targets(N, ignored=[0, 3]), np.linspace(1.0, 2.0, C).astype(dtype),
        dtype=dtype, grad_inputs=(0, 1, 2))


def test_chunked_path_unbatched_and_auto_chunking():
    check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(
        x, w, t, options=_options(lib)), (IN,), (C, IN), np.array(3), dtype="float64")
    check(lambda lib, x, w, t: lib.nn.functional.linear_cross_entropy(
        x, w, t, reduction="sum", options=_options(lib, chunking_method="aspect_ratio:4")),
        (40, 3), (30, 3), _targets(40, num_classes=30), dtype="float64")


def test_chunked_path_processes_rows_in_chunks():
    """With batch_chunk_size=2, the linear layer sees 2 rows at a time."""
    seen = []
    real_linear = ember.nn.functional.linear_cross_entropy.__globals__["linear"]

    def spy(x, w, b=None):
        seen.append(x.shape[0])
        return real_linear(x, w, b)

    namespace = ember.nn.functional.linear_cross_entropy.__globals__
    namespace["linear"] = spy
    try:
        x = ember.randn(5, IN, requires_grad=True)
        loss = ember.nn.functional.linear_cross_entropy(
            x, ember.randn(C, IN), ember.tensor(_targets(5)),
            options=ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
        loss.backward()
    finally:
        namespace["linear"] = real_linear
    assert seen[:3] == [2, 2, 1] and set(seen) == {1, 2}   # forward, then the recomputation
    assert x.grad is not None


def test_chunked_path_double_backward():
    """ember's chunked path keeps double backward (torch's does not; compare with the
    reference path)."""
    x = ember.randn(N, IN, dtype=ember.float64, requires_grad=True)
    w, t = ember.randn(C, IN, dtype=ember.float64), ember.tensor(_targets(N))
    grads = []
    for options in (None, ember.nn.LinearCrossEntropyOptions(batch_chunk_size=4)):
        loss = ember.nn.functional.linear_cross_entropy(x, w, t, options=options)
        (g,) = ember.autograd.grad(loss, x, create_graph=True)
        grads.append(ember.autograd.grad(g.pow(2).sum(), x)[0])
    np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=1e-10)
    assert np.abs(grads[0].numpy()).max() > 0


@pytest.mark.parametrize("kwargs", [dict(reduction="mean", label_smoothing=0.1),
                                    dict(out_features=True), dict(probabilities=True)])
def test_options_ignored_warning(kwargs):
    out_features = kwargs.pop("out_features", False)
    probabilities = kwargs.pop("probabilities", False)
    w_shape = (C, 2, IN) if out_features else (C, IN)
    t_shape = (N, 2) if out_features else (N,)
    target = _probabilities((N, C)) if probabilities else _targets(t_shape)

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.functional.linear_cross_entropy(
                lib.tensor(np.ones((N, IN))), lib.tensor(np.ones(w_shape)), lib.tensor(target),
                options=lib.nn.LinearCrossEntropyOptions(), **kwargs)
        return loss, [str(w.message) for w in caught if "options" in str(w.message)]

    t_loss, t_messages = run(torch)
    e_loss, e_messages = run(ember)
    assert_same(e_loss, t_loss, 1e-10, 1e-8)
    assert e_messages == t_messages and len(t_messages) == 1


def test_acc_dtype_other_than_input_dtype_is_not_implemented():
    with pytest.raises(NotImplementedError, match="acc_dtype"):
        ember.nn.functional.linear_cross_entropy(
            ember.randn(2, IN), ember.randn(C, IN), ember.tensor([0, 1]),
            options=ember.nn.LinearCrossEntropyOptions(acc_dtype=ember.float64))


@pytest.mark.parametrize("x_shape,w_shape,b_shape,t_shape,match", [
    ((2, 3, IN), (C, IN), None, (2,), "expected input with dimensionality 1 or 2, got 3"),
    ((), (C, IN), None, (), "expected input with dimensionality 1 or 2, got 0"),
    ((N, IN), (IN,), None, (N,), "linear_weight with dimensionality at least 2, got 1"),
    ((N, IN), (C, IN + 1), None, (N,), r"in_features\), got 4 and 5, respectively"),
    ((N, IN), (C, IN), (C + 1,), (N,), r"expected linear_bias shape \(5,\), got \(6,\)"),
    ((IN,), (C, 2, IN), None, (2,), "requires batched input, \\(N, 4\\), got unbatched"),
])
def test_shape_errors(x_shape, w_shape, b_shape, t_shape, match):
    def run(lib):
        bias = None if b_shape is None else lib.zeros(b_shape)
        lib.nn.functional.linear_cross_entropy(lib.zeros(x_shape), lib.zeros(w_shape),
                                               lib.zeros(t_shape, dtype=lib.int64),
                                               linear_bias=bias)
    check_error(run, RuntimeError, match)


def test_ignore_index_with_probabilities_is_an_error():
    check_error(lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.zeros(N, IN), lib.zeros(C, IN), lib.zeros(N, C), ignore_index=-100),
        RuntimeError, "ignore_index cannot be specified when target contains probabilities")


# ---------------------------------------------------------------- the module

def _module_pair(make_kwargs):
    """The same LinearCrossEntropyLoss in torch and ember (weights copied from torch)."""
    torch.manual_seed(0)
    t_mod = torch.nn.LinearCrossEntropyLoss(IN, C, **make_kwargs(torch))
    e_mod = ember.nn.LinearCrossEntropyLoss(IN, C, **make_kwargs(ember))
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


@pytest.mark.parametrize("kwargs", [
    lambda lib: {},
    lambda lib: dict(bias=True, reduction="sum", label_smoothing=0.3),
    lambda lib: dict(out_features=(2, 3), bias=True, ignore_index=1),
    lambda lib: dict(bias=True, weight=lib.linspace(0.5, 1.5, C), reduction="none",
                     options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=4)),
    lambda lib: dict(dtype=lib.float64, options=lib.nn.LinearCrossEntropyOptions()),
])
def test_module_matches_torch(kwargs):
    t_mod, e_mod = _module_pair(kwargs)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    dtype = t_mod.linear.weight.dtype
    x = np.random.default_rng(5).standard_normal((N, IN))
    ignore_index = -100 if t_mod.ignore_index is None else t_mod.ignore_index
    target = _targets((N, *t_mod.out_features), ignored=[1], ignore_index=ignore_index)
    t_x = torch.tensor(x, dtype=dtype, requires_grad=True)
    e_x = ember.tensor(x, dtype=ember.float64 if dtype == torch.float64 else ember.float32,
                       requires_grad=True)
    t_loss, e_loss = t_mod(t_x, torch.tensor(target)), e_mod(e_x, ember.tensor(target))
    assert_same(e_loss, t_loss, 1e-5, 1e-4)
    t_loss.sum().backward()
    e_loss.sum().backward()
    assert_same(e_x.grad, t_x.grad, 1e-5, 1e-4, "input grad")
    for (name, t_p), e_p in zip(t_mod.named_parameters(), e_mod.parameters()):
        assert_same(e_p.grad, t_p.grad, 1e-5, 1e-4, name)


def test_module_defaults_and_attributes():
    t_mod, e_mod = _module_pair(lambda lib: {})
    for name in ("num_classes", "out_features", "reduction", "ignore_index",
                 "label_smoothing", "options", "weight"):
        assert getattr(e_mod, name) == getattr(t_mod, name), name
    assert e_mod.linear.bias is None and e_mod.linear.weight.shape == (C, IN)


def test_module_argument_errors():
    check_error(lambda lib: lib.nn.LinearCrossEntropyLoss(IN, C, weight=lib.ones(C + 1)),
                RuntimeError, r"expected weight shape to be \(5,\), got \(6,\)")
    check_error(lambda lib: lib.nn.LinearCrossEntropyLoss(IN, C, label_smoothing=1.5),
                RuntimeError, r"expected label_smoothing to be in range \[0, 1\], got 1.5")


# ---------------------------------------------------------------- the options

def test_options_repr_and_frozen():
    for kwargs in ({}, dict(batch_chunk_size=3, chunking_method=None, acc_policy="compact",
                            allow_retain_graph=True)):
        t_opt = torch.nn.LinearCrossEntropyOptions(**kwargs)
        e_opt = ember.nn.LinearCrossEntropyOptions(**kwargs)
        assert repr(e_opt) == repr(t_opt)
    with pytest.raises(AttributeError):
        e_opt.batch_chunk_size = 4
    assert repr(ember.nn.LinearCrossEntropyOptions(acc_dtype=ember.float32)) == \
        repr(torch.nn.LinearCrossEntropyOptions(acc_dtype=torch.float32))


@pytest.mark.parametrize("kwargs,match", [
    (dict(acc_policy="fast"), "invalid acc_policy: 'fast'"),
    (dict(chunking_method="aspect_ratio:0"), "invalid chunking_method: 'aspect_ratio:0'"),
    (dict(chunking_method="rows"), "invalid chunking_method: 'rows'"),
    (dict(batch_chunk_size=0), "batch_chunk_size must be positive int or None, got 0"),
    (dict(batch_chunk_size=2.0), "batch_chunk_size must be positive int or None, got 2.0"),
])
def test_options_validation(kwargs, match):
    check_error(lambda lib: lib.nn.LinearCrossEntropyOptions(**kwargs), ValueError, match)


def test_options_acc_dtype_validation():
    check_error(lambda lib: lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.int32), ValueError,
                r"acc_dtype must be one of \{None, torch.float16, torch.bfloat16, "
                r"torch.float32, torch.float64\}, got torch.int32")


@pytest.mark.parametrize("rows,in_features,classes,kwargs", [
    (100, 8, 50, {}), (100, 8, 50, dict(batch_chunk_size=7)), (7, 8, 50, {}),
    (100, 8, 50, dict(chunking_method="aspect_ratio")), (3, 2, 1000, {}),
    (100, 8, 50, dict(chunking_method=None)), (100, 8, 50, dict(chunking_method="aspect_ratio:3")),
])
def test_chunk_size_matches_torch(rows, in_features, classes, kwargs):
    expected = torch.nn.LinearCrossEntropyOptions(**kwargs)._adjust(
        rows, in_features, classes, torch.float32, torch.device("cpu")).batch_chunk_size
    got = ember.nn.LinearCrossEntropyOptions(**kwargs)._chunk_size(
        rows, in_features, classes, ember.float32)
    assert got == expected


def test_conflicting_chunk_size_and_method():
    def run(lib):
        x, w, t = lib.zeros(100, 8), lib.zeros(50, 8), lib.zeros(100, dtype=lib.int64)
        options = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=5,
                                                   chunking_method="aspect_ratio")
        lib.nn.functional.linear_cross_entropy(x, w, t, options=options)
    check_error(run, ValueError, r"batch_chunk_size \(=5\) and chunking_method "
                                 r"\('aspect_ratio'\) give different chunk sizes \(5 vs 16\)")
