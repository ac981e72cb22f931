"""Dropout, Embedding/EmbeddingBag, PixelShuffle, ChannelShuffle, Upsample, distance and
Fold/Unfold layers against torch."""
import numpy as np
import pytest
import torch

import ember
from module_oracle import build_pair, check_module
from oracle import check_error

DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                  "AlphaDropout", "FeatureAlphaDropout"])
def test_dropout_modules_repr_and_eval_identity(name):
    t, e = build_pair(lambda lib: getattr(lib.nn, name)(p=0.3, inplace=False))
    assert repr(e) == repr(t) == f"{name}(p=0.3, inplace=False)"
    shape = {"Dropout1d": (2, 3, 4), "Dropout3d": (2, 3, 2, 2, 2)}.get(name, (2, 3, 4, 4))
    check_module(lambda lib: getattr(lib.nn, name)(0.3), shape, train=False)


def test_dropout_default_repr_and_errors():
    t, e = build_pair(lambda lib: lib.nn.Dropout())
    assert repr(e) == "Dropout(p=0.5, inplace=False)"
    check_error(lambda lib: lib.nn.Dropout(1.5), ValueError,
                "dropout probability has to be between 0 and 1, but got 1.5")


def test_dropout_training_statistics():
    ember.manual_seed(0)
    x = ember.ones(200, 100)
    y = ember.nn.Dropout(0.25)(x).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02
    channels = ember.nn.Dropout2d(0.5)(ember.ones(50, 40, 3, 3)).numpy()
    per_channel = channels.reshape(50, 40, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))    # whole channels dropped
    m = ember.nn.Dropout(0.5)
    m.eval()
    assert m(x) is x


EMBEDDINGS = [
    (lambda lib: lib.nn.Embedding(10, 3), np.array([[1, 2, 4], [4, 3, 9]])),
    (lambda lib: lib.nn.Embedding(10, 3, padding_idx=2), np.array([[1, 2, 2], [0, 2, 9]])),
    (lambda lib: lib.nn.Embedding(10, 3, padding_idx=-1), np.array([1, 9, 9, 0])),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,idx", EMBEDDINGS)
def test_embedding(make, idx, dtype):
    check_module(make, idx, dtype=dtype)


def test_embedding_init_and_repr():
    ember.manual_seed(0)
    e = ember.nn.Embedding(20, 4, padding_idx=3)
    w = e.weight.detach().numpy()
    assert np.all(w[3] == 0) and np.abs(w).max() > 1    # N(0, 1) rows, padding row zero
    for make in [lambda lib: lib.nn.Embedding(10, 3, padding_idx=-2, max_norm=1.0),
                 lambda lib: lib.nn.Embedding(5, 2, norm_type=1.0, sparse=True),
                 lambda lib: lib.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=0),
                 lambda lib: lib.nn.EmbeddingBag(10, 3, max_norm=2.0)]:
        t, e = build_pair(make)
        assert repr(e) == repr(t)


def test_embedding_max_norm_renormalises_looked_up_rows():
    check_module(lambda lib: lib.nn.Embedding(6, 4, max_norm=0.5), np.array([0, 2, 2, 5]),
                 grad=False)
    t, e = check_module(lambda lib: lib.nn.Embedding(6, 4, max_norm=0.5), np.array([1, 3]))
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), atol=1e-6)


def test_embedding_from_pretrained():
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    for lib in (torch, ember):
        frozen = lib.nn.Embedding.from_pretrained(lib.tensor(w))
        free = lib.nn.Embedding.from_pretrained(lib.tensor(w), freeze=False, padding_idx=1)
        assert frozen.weight.requires_grad is False and free.weight.requires_grad is True
        assert free.padding_idx == 1
        np.testing.assert_array_equal(free.weight.detach().numpy()[1], w[1])  # not zeroed
        out = frozen(lib.tensor([[3, 0]]))
        np.testing.assert_array_equal(out.detach().numpy(), w[[[3, 0]]])
        bag = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(w), mode="max")
        assert bag.weight.requires_grad is False
        np.testing.assert_array_equal(bag(lib.tensor([[0, 3]])).numpy(), w[[3]])


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.Embedding(3, 2, padding_idx=3),
    lambda lib: lib.nn.Embedding(3, 2, padding_idx=-4),
    lambda lib: lib.nn.Embedding.from_pretrained(lib.zeros(3)),
    lambda lib: lib.nn.Embedding(3, 2, _weight=lib.zeros(2, 2)),
])
def test_embedding_errors(fn):
    check_error(fn, AssertionError)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = np.array([0, 3, 3, 6])
    check_module(lambda lib: lib.nn.EmbeddingBag(10, 3, mode=mode), idx, offsets)
    check_module(lambda lib: lib.nn.EmbeddingBag(10, 3, mode=mode, padding_idx=2),
                 idx.reshape(2, 4))
    check_module(lambda lib: lib.nn.EmbeddingBag(10, 3, mode=mode, include_last_offset=True),
                 idx, np.array([0, 3, 5, 8]))


def test_embedding_bag_per_sample_weights():
    check_module(lambda lib: lib.nn.EmbeddingBag(10, 3, mode="sum"), np.array([1, 2, 4, 5]),
                 np.array([0, 2]), (4,),
                 call=lambda m, i, o, w: m(i, o, per_sample_weights=w))


SHAPE_LAYERS = [
    (lambda lib: lib.nn.PixelShuffle(2), (2, 8, 3, 4)),
    (lambda lib: lib.nn.PixelShuffle(3), (9, 2, 2)),
    (lambda lib: lib.nn.PixelUnshuffle(2), (2, 3, 4, 6)),
    (lambda lib: lib.nn.ChannelShuffle(3), (2, 6, 2, 2)),
    (lambda lib: lib.nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    (lambda lib: lib.nn.Upsample(size=(5, 7), mode="bilinear"), (2, 3, 4, 5)),
    (lambda lib: lib.nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True),
     (1, 2, 4, 5)),
    (lambda lib: lib.nn.Upsample(scale_factor=(2, 1.5, 1), mode="trilinear"), (1, 2, 3, 4, 2)),
    (lambda lib: lib.nn.Upsample(scale_factor=2.5, mode="linear",
                                 recompute_scale_factor=True), (2, 3, 4)),
    (lambda lib: lib.nn.UpsamplingNearest2d(scale_factor=3), (2, 3, 2, 3)),
    (lambda lib: lib.nn.UpsamplingBilinear2d(size=(6, 5)), (2, 3, 4, 3)),
    (lambda lib: lib.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=2), (2, 3, 6, 7)),
    (lambda lib: lib.nn.Unfold(2), (3, 4, 5)),
    (lambda lib: lib.nn.Fold((5, 6), (2, 3), padding=1, stride=(2, 1)), (2, 12, 18)),
    (lambda lib: lib.nn.Fold(4, 2, stride=2), (8, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", SHAPE_LAYERS)
def test_shape_layers(make, shape, dtype):
    check_module(make, shape, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,s1,s2", [
    (lambda lib: lib.nn.PairwiseDistance(), (4, 5), (4, 5)),
    (lambda lib: lib.nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True), (4, 5), (5,)),
    (lambda lib: lib.nn.PairwiseDistance(p=3), (5,), (5,)),
    (lambda lib: lib.nn.CosineSimilarity(), (3, 4, 5), (1, 4, 5)),
    (lambda lib: lib.nn.CosineSimilarity(dim=-1, eps=1e-3), (3, 4), (3, 4)),
])
def test_distance_layers(make, s1, s2, dtype):
    check_module(make, s1, s2, dtype=dtype)


def test_misc_reprs():
    for make in [lambda lib: lib.nn.PixelShuffle(2), lambda lib: lib.nn.PixelUnshuffle(3),
                 lambda lib: lib.nn.ChannelShuffle(2), lambda lib: lib.nn.Upsample(size=3),
                 lambda lib: lib.nn.Upsample(scale_factor=(2, 3), mode="bilinear"),
                 lambda lib: lib.nn.UpsamplingBilinear2d(scale_factor=2),
                 lambda lib: lib.nn.PairwiseDistance(), lambda lib: lib.nn.CosineSimilarity(),
                 lambda lib: lib.nn.Fold(3, 2), lambda lib: lib.nn.Unfold((2, 3), stride=2)]:
        t, e = build_pair(make)
        assert repr(e) == repr(t)
