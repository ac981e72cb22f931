"""dropout1d/2d/3d and feature_alpha_dropout (functional and modules) on every input rank,
against torch: warnings and errors exactly, which dims share one keep-or-drop draw, the kept
fraction and scale, and the autograd graph."""
import warnings

import numpy as np
import pytest
import torch

import ember

FEATURE_DROPOUTS = ["dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout",
                    "Dropout1d", "Dropout2d", "Dropout3d"]


def _call(lib, name: str, x, **kwargs):
    if name[0].isupper():                    # a module: p and inplace only, training mode
        return getattr(lib.nn, name)(kwargs.get("p", 0.5))(x)
    return getattr(lib.nn.functional, name)(x, **kwargs)


def _shape(ndim: int) -> tuple:
    return (8, 8, 3, 3, 3, 3, 3)[:ndim]      # many draws along the dims that may get their own


def _mask_dims(y: np.ndarray) -> tuple:
    """The dims along which the output (of an all-ones input) is not constant."""
    return tuple(d for d in range(y.ndim) if not np.all(y == y.take([0], axis=d)))


def _outcome(lib, name: str, ndim: int, **kwargs):
    """What the call gives: (output shape, mask dims) or (error type, message), and the
    warnings it raised."""
    lib.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kwargs.setdefault("training", True) if name[0].islower() else None
            y = _call(lib, name, lib.ones(_shape(ndim)), **kwargs)
            result = tuple(y.shape), _mask_dims(y.detach().numpy())
        except Exception as error:      # the type and message are what is compared
            result = type(error).__name__, str(error)
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", FEATURE_DROPOUTS)
@pytest.mark.parametrize("ndim", range(7))
def test_each_rank_warns_fails_or_masks_like_torch(name, ndim):
    assert _outcome(ember, name, ndim, p=0.5) == _outcome(torch, name, ndim, p=0.5)


@pytest.mark.parametrize("name", ["dropout2d", "dropout3d", "feature_alpha_dropout"])
@pytest.mark.parametrize("kwargs", [dict(p=1.0), dict(p=0.0), dict(p=0.5, training=False)])
def test_small_ranks_need_no_mask_when_nothing_is_random(name, kwargs):
    for ndim in (0, 1):
        assert _outcome(ember, name, ndim, **kwargs) == _outcome(torch, name, ndim, **kwargs)


@pytest.mark.parametrize("name,shape", [("dropout2d", (300, 200)), ("dropout3d", (2000, 3)),
                                        ("dropout1d", (3000, 4)), ("Dropout2d", (300, 200))])
def test_kept_fraction_and_scale(name, shape):
    ember.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        y = _call(ember, name, ember.ones(shape), p=0.3, training=True).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.03
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)


def _graph(y) -> list:
    """grad_fn names from the output back to the input's AccumulateGrad."""
    names, node = [], y.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


@pytest.mark.parametrize("name,ndim", [("dropout1d", 2), ("dropout1d", 3), ("dropout2d", 2),
                                       ("dropout2d", 4), ("dropout3d", 3), ("dropout3d", 5)])
def test_autograd_graph_and_gradient(name, ndim):
    graphs = []
    for lib in (torch, ember):
        x = lib.ones(_shape(ndim), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            y = _call(lib, name, x, p=0.4)
        y.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())   # grad = mask
        graphs.append(_graph(y))
    assert graphs[1] == graphs[0]


@pytest.mark.parametrize("name,ndim", [("dropout1d", 2), ("dropout3d", 4), ("dropout3d", 3),
                                       ("dropout2d", 2)])
def test_inplace_keeps_the_tensor_and_its_shape(name, ndim):
    for lib in (torch, ember):
        x = lib.ones(_shape(ndim))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            out = _call(lib, name, x, p=0.5, inplace=True)
        assert out is x and tuple(x.shape) == _shape(ndim) and (x.numpy() == 0).any()


@pytest.mark.parametrize("name,ndim", [("dropout1d", 2), ("dropout3d", 4), ("dropout2d", 3),
                                       ("dropout3d", 5)])
def test_eval_returns_the_input_or_a_view_like_torch(name, ndim):
    kinds = []
    for lib in (torch, ember):
        x = lib.ones(_shape(ndim))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            out = _call(lib, name, x, p=0.5, training=False)
        assert np.array_equal(out.numpy(), x.numpy())
        kinds.append(out is x)
    assert kinds[1] == kinds[0]


def _node_names(t) -> list:
    """The names of every node of t's graph, sorted (AccumulateGrad included)."""
    names, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(next_node for next_node, _ in node.next_functions)
    return sorted(names)


@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_gradient_is_differentiable_like_torch(inplace):
    """create_graph through dropout: the gradient's graph has torch's nodes, and the first
    and second derivatives are the output's own mask (dropout is linear)."""
    graphs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        w = lib.randn(6, 5, dtype=lib.float64, requires_grad=True)
        u = lib.randn(6, 5, dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.dropout(w.sin(), 0.4, inplace=inplace)
        (first,) = lib.autograd.grad(y.sum(), w, create_graph=True)
        d_w, d_u = lib.autograd.grad((first * u).sum(), (w, u))
        mask = (y.detach().numpy() != 0) / 0.6
        e_w, e_u = w.detach().numpy(), u.detach().numpy()
        np.testing.assert_allclose(first.detach().numpy(), np.cos(e_w) * mask, rtol=1e-12)
        np.testing.assert_allclose(d_w.numpy(), -np.sin(e_w) * e_u * mask, rtol=1e-12)
        np.testing.assert_allclose(d_u.numpy(), first.detach().numpy(), rtol=1e-12)
        graphs.append(_node_names(first))
    assert graphs[1] == graphs[0]


_LAYOUTS = {
    "transposed": lambda lib: lib.arange(1.0, 25.0).reshape(4, 6).t(),
    "permuted": lambda lib: lib.arange(1.0, 25.0).reshape(2, 3, 4).permute(2, 0, 1),
    "channels_last": lambda lib: lib.arange(1.0, 121.0).reshape(2, 3, 4, 5).to(
        memory_format=lib.channels_last),
    "strided": lambda lib: lib.arange(1.0, 25.0).reshape(4, 6)[:, ::2],
}


@pytest.mark.parametrize("layout", _LAYOUTS)
@pytest.mark.parametrize("name", ["dropout", "alpha_dropout"])
def test_masks_follow_a_dense_inputs_memory(layout, name):
    """torch draws the mask of empty_like(input), which keeps a transposed or channels_last
    layout, in memory order (a Transformer's attention output is such a transpose: its
    dropout1 masked other elements than torch's)."""
    def masked(lib):
        lib.manual_seed(3)
        out = getattr(lib.nn.functional, name)(_LAYOUTS[layout](lib), 0.5, True)
        return out.contiguous().numpy(), lib.rand(1).item()
    (got, after), (expected, torch_after) = masked(ember), masked(torch)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert after == torch_after


def test_transformer_layer_trains_as_torch_with_dropout():
    def output(lib):
        lib.manual_seed(0)
        x = lib.randn(4, 8, 16)
        layer = lib.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1,
                                               batch_first=True, norm_first=True)
        return layer(x).detach().numpy()
    np.testing.assert_allclose(output(ember), output(torch), rtol=1e-4, atol=1e-5)
