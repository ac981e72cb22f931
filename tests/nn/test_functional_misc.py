"""F.dropout*, F.pad, F.embedding(_bag), F.one_hot against torch."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from oracle import check, check_error


@pytest.mark.parametrize("fn,shape,channel_dims", [
    (F.dropout, (200, 50), None), (F.dropout2d, (8, 30, 4, 4), (2, 3)),
    (F.dropout1d, (8, 30, 5), (2,)), (F.dropout3d, (4, 20, 2, 2, 2), (2, 3, 4))])
def test_dropout_statistics_and_gradient(fn, shape, channel_dims):
    ember.manual_seed(0)
    x = ember.ones(shape, requires_grad=True)
    y = fn(x, p=0.3, training=True)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.05
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.7, rtol=1e-6)
    if channel_dims:  # whole channels are dropped together
        assert np.all(kept.all(axis=channel_dims) | (~kept).all(axis=channel_dims))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy() != 0, kept)
    assert fn(x, p=0.3, training=False) is x


def test_dropout_errors_and_inplace():
    check_error(lambda lib: lib.nn.functional.dropout(lib.ones(3), p=1.5), ValueError,
                r"dropout probability has to be between 0 and 1, but got 1.5")
    x = ember.ones(10, 10)
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and (x.numpy() == 0).any()


def test_alpha_dropout_keeps_selu_statistics():
    ember.manual_seed(0)
    x = ember.randn(200000)
    y = F.alpha_dropout(x, 0.2, training=True)
    assert abs(float(y.mean())) < 0.02 and abs(float(y.std()) - 1) < 0.02


@pytest.mark.parametrize("pad,mode", [((1, 2), "constant"), ((1, 1, 2, 0), "constant"),
                                      ((-1, 2, 0, -2), "constant"), ((2, 1, 1, 2), "reflect"),
                                      ((2, 1, 1, 2), "replicate"), ((2, 1, 1, 2), "circular"),
                                      ((3, 1), "reflect"), ((1, 2), "replicate"),
                                      ((1, 1, 1, 1, 1, 1), "replicate")])
def test_pad(pad, mode):
    shape = {1: (2, 3, 6), 2: (2, 3, 5, 6), 3: (1, 2, 3, 4, 5)}[len(pad) // 2]
    check(lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode), shape)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(-1, 2), (2, -3), (-1, -1), (3, 3), (-4, 1), (1, -1), (-2, 1),
                                 (-1, 1, -2, 1), (0, 2, 1, -1), (-1, 0, 2, 1, 1, -1)])
def test_pad_modes_with_negative_pads(pad, mode):
    """Negative pads crop; replicate and reflect read the original input, circular wraps
    around what is left after cropping (as torch does)."""
    shape = {1: (2, 3, 4), 2: (1, 3, 4, 4), 3: (1, 2, 3, 4, 4)}[len(pad) // 2]
    if mode == "circular" and pad in ((2, -3), (-4, 1)):
        # more padding than what the crop leaves: torch reads uninitialised memory, ember
        # raises torch's error for wrapping around more than once
        with pytest.raises(RuntimeError, match="Padding value causes wrapping around more"):
            ember.nn.functional.pad(ember.ones(shape), pad, mode=mode)
        return
    check(lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode), shape)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_on_an_empty_batch(mode):
    check(lambda lib, x: lib.nn.functional.pad(x, (0, 2, 0, 1), mode=mode), (0, 3, 3, 3))


@pytest.mark.parametrize("shape, pad, mode, match", [
    ((1, 3, 4), (4, 0), "reflect", r"Argument #4: Padding size should be less than the "
     r"corresponding input dimension, but got: padding \(4, 0\) at dimension 2 of input "
     r"\[1, 3, 4\]"),
    ((1, 3, 4, 4), (1, 1, 0, 4), "reflect", r"padding \(0, 4\) at dimension 2 of input"),
    ((1, 3, 4), (0, 5), "circular", r"Padding value causes wrapping around more than once"),
    ((1, 0, 3), (1, 1), "reflect", r"Expected 2D or 3D \(batch mode\) tensor with possibly 0 "
     r"batch size and other non-zero dimensions for input, but got: \[1, 0, 3\]"),
    ((3, 0), (1, 1), "replicate", r"Expected 2D or 3D \(batch mode\) tensor"),
    ((2, 0, 3), (1, 1, 1, 1), "replicate", r"Expected 3D or 4D \(batch mode\) tensor"),
])
def test_pad_mode_errors(shape, pad, mode, match):
    check_error(lambda lib: lib.nn.functional.pad(lib.ones(shape), pad, mode=mode),
                RuntimeError, match)


def test_pad_value_and_errors():
    check(lambda lib, x: lib.nn.functional.pad(x, (1, 1), value=2.5), (3, 4))
    check_error(lambda lib: lib.nn.functional.pad(lib.ones(2, 3), (1,)), RuntimeError,
                r"Padding length must be divisible by 2")
    check_error(lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 3, 4), (1, 1), mode="reflect"),
                NotImplementedError, r"Padding size 2 is not supported for 4D input tensor")


def test_embedding():
    idx = np.array([[0, 2, 4], [4, 3, 0]])
    check(lambda lib, w, i: lib.nn.functional.embedding(i, w), (5, 3), idx, grad_inputs=[0])
    check(lambda lib, w, i: lib.nn.functional.embedding(i, w, padding_idx=0), (5, 3), idx,
          grad_inputs=[0])


def test_embedding_max_norm_renormalises_rows():
    w = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32) * 3
    tw, ew = torch.tensor(w), ember.tensor(w)
    idx = [1, 3, 3]
    torch.nn.functional.embedding(torch.tensor(idx), tw, max_norm=1.0)
    F.embedding(ember.tensor(idx), ew, max_norm=1.0)
    np.testing.assert_allclose(ew.numpy(), tw.numpy(), rtol=1e-5)


def test_embedding_out_of_range_hint():
    err = check_error(lambda lib: lib.nn.functional.embedding(lib.tensor([5]), lib.ones(3, 2)),
                      IndexError, r"index out of range in self")
    assert "3 rows" in str(err)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    idx, off = np.array([1, 2, 4, 4, 3]), np.array([0, 2])
    check(lambda lib, w, i, o: lib.nn.functional.embedding_bag(i, w, o, mode=mode), (5, 3),
          idx, off, grad_inputs=[0])
    check(lambda lib, w, i: lib.nn.functional.embedding_bag(i, w, mode=mode), (5, 3),
          np.array([[1, 2], [4, 3]]), grad_inputs=[0])


@pytest.mark.parametrize("padding_idx", [-1, 4, -5, 0])
@pytest.mark.parametrize("mode, weighted", [("sum", True), ("sum", False), ("mean", False),
                                            ("max", False)])
def test_embedding_bag_padding_idx(padding_idx, mode, weighted):
    """padding_idx (negative counts from the end) drops its rows from every bag, also with
    per_sample_weights; a bag of padding only is zeros."""
    idx, off = np.array([1, 4, 4, 0, 3, 4]), np.array([0, 2, 3])

    def bag(lib, w, i, o, p):
        return lib.nn.functional.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx,
                                               per_sample_weights=p if weighted else None)
    check(bag, (5, 3), idx, off, (6,), grad_inputs=[0, 3])


def test_embedding_bag_padding_idx_out_of_range():
    check_error(lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[0, 1]]), lib.ones(3, 2),
                                                            padding_idx=5), RuntimeError,
                r"padding_idx must be within the number of embeddings, -3 through 2, but got 5")


def test_one_hot():
    check(lambda lib, i: lib.nn.functional.one_hot(i), np.array([0, 3, 1]), grad=False)
    check(lambda lib, i: lib.nn.functional.one_hot(i, 5), np.array([[0, 3], [1, 4]]), grad=False)
    check_error(lambda lib: lib.nn.functional.one_hot(lib.tensor([0, 5]), 3), RuntimeError,
                r"Class values must be smaller than num_classes")
