"""BatchNorm*, InstanceNorm*, LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm against torch:
outputs, gradients, running statistics over several steps, eval mode, state_dict handling."""
import warnings

import numpy as np
import pytest
import torch

import ember
from module_oracle import build_pair, check_module
from oracle import check_error

DTYPES = ["float32", "float64"]

BATCHNORMS = [
    (lambda lib: lib.nn.BatchNorm1d(4), (8, 4)),
    (lambda lib: lib.nn.BatchNorm1d(4, momentum=None), (3, 4, 5)),
    (lambda lib: lib.nn.BatchNorm2d(3, eps=1e-3, momentum=0.3), (4, 3, 5, 6)),
    (lambda lib: lib.nn.BatchNorm2d(3, affine=False), (4, 3, 5, 6)),
    (lambda lib: lib.nn.BatchNorm2d(3, momentum=None, bias=False), (2, 3, 4, 4)),
    (lambda lib: lib.nn.BatchNorm2d(3, track_running_stats=False), (4, 3, 5, 6)),
    (lambda lib: lib.nn.BatchNorm3d(2), (2, 2, 3, 4, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("make,shape", BATCHNORMS)
def test_batchnorm(make, shape, train, dtype):
    # Three steps: running_mean/var and num_batches_tracked are compared after each.
    check_module(make, shape, dtype=dtype, train=train, steps=3)


def test_batchnorm_train_then_eval_uses_running_stats():
    t, e = check_module(lambda lib: lib.nn.BatchNorm2d(3, momentum=None), (4, 3, 5, 5),
                        steps=4)
    assert int(e.num_batches_tracked) == int(t.num_batches_tracked) == 4
    assert e.num_batches_tracked.dtype == ember.int64
    t.eval()
    e.eval()
    x = np.random.default_rng(7).standard_normal((2, 3, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), atol=1e-5, rtol=1e-5)


def test_batchnorm_repr_and_keys():
    t, e = build_pair(lambda lib: lib.nn.BatchNorm2d(512))
    assert repr(e) == repr(t)
    assert repr(e).startswith("BatchNorm2d(512, eps=1e-05, momentum=0.1, affine=True")
    assert list(e.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                    "num_batches_tracked"]
    t, e = build_pair(lambda lib: lib.nn.BatchNorm1d(3, affine=False,
                                                     track_running_stats=False))
    assert list(e.state_dict()) == [] and repr(e) == repr(t)


def test_batchnorm_loads_state_dict_without_num_batches_tracked():
    t, e = build_pair(lambda lib: lib.nn.BatchNorm1d(3))
    old = {k: v for k, v in e.state_dict().items() if k != "num_batches_tracked"}
    result = e.load_state_dict(old)
    assert not result.missing_keys and not result.unexpected_keys
    tres = t.load_state_dict({k: v for k, v in t.state_dict().items()
                              if k != "num_batches_tracked"})
    assert tres.missing_keys == result.missing_keys


def test_batchnorm_state_dict_version_metadata():
    bn = ember.nn.BatchNorm2d(2)
    assert bn.state_dict()._metadata[""]["version"] == 2
    # With current metadata a missing num_batches_tracked is reported, as in torch.
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    with pytest.raises(RuntimeError, match="Missing key"):
        bn.load_state_dict(sd)


@pytest.mark.parametrize("fn,match", [
    (lambda lib: lib.nn.BatchNorm2d(3)(lib.zeros(2, 3, 4)), r"expected 4D input \(got 3D input\)"),
    (lambda lib: lib.nn.BatchNorm1d(3)(lib.zeros(2, 3, 4, 5)),
     r"expected 2D or 3D input \(got 4D input\)"),
    (lambda lib: lib.nn.BatchNorm3d(3)(lib.zeros(2, 3, 4, 5)), r"expected 5D input \(got 4D"),
    (lambda lib: lib.nn.BatchNorm1d(3)(lib.zeros(1, 3)),
     "Expected more than 1 value per channel when training"),
    (lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.zeros(2, 4, 5)),
     r"expected input's size at dim=1 to match num_features \(3\), but got: 4."),
    (lambda lib: lib.nn.InstanceNorm2d(3)(lib.zeros(3, 4)), r"expected 3D or 4D input \(got 2D"),
    (lambda lib: lib.nn.GroupNorm(3, 4), r"num_channels \(4\) must be divisible by num_groups"),
])
def test_norm_errors(fn, match):
    check_error(fn, ValueError, match)


INSTANCENORMS = [
    (lambda lib: lib.nn.InstanceNorm1d(3), (2, 3, 6)),
    (lambda lib: lib.nn.InstanceNorm1d(3, affine=True), (3, 6)),
    (lambda lib: lib.nn.InstanceNorm2d(3, affine=True, track_running_stats=True), (2, 3, 4, 5)),
    (lambda lib: lib.nn.InstanceNorm2d(3, momentum=None, track_running_stats=True),
     (2, 3, 4, 5)),
    (lambda lib: lib.nn.InstanceNorm3d(2, affine=True), (2, 2, 3, 4, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("make,shape", INSTANCENORMS)
def test_instancenorm(make, shape, train, dtype):
    check_module(make, shape, dtype=dtype, train=train, steps=2)


def test_instancenorm_defaults_and_mismatch_warning():
    t, e = build_pair(lambda lib: lib.nn.InstanceNorm2d(3))
    assert repr(e) == repr(t)
    assert e.weight is None and e.running_mean is None and list(e.state_dict()) == []
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        e(ember.zeros(2, 4, 3, 3))


def test_instancenorm_rejects_pre_040_running_stats():
    def load(lib):
        m = lib.nn.InstanceNorm1d(2)
        m.load_state_dict({"running_mean": lib.zeros(2), "running_var": lib.ones(2)})
    check_error(load, RuntimeError, "Unexpected running stats buffer")


OTHER_NORMS = [
    (lambda lib: lib.nn.LayerNorm(5), (2, 3, 5)),
    (lambda lib: lib.nn.LayerNorm([3, 5], eps=1e-3), (2, 3, 5)),
    (lambda lib: lib.nn.LayerNorm(5, elementwise_affine=False), (4, 5)),
    (lambda lib: lib.nn.LayerNorm(5, bias=False), (4, 5)),
    (lambda lib: lib.nn.GroupNorm(2, 4), (3, 4, 5)),
    (lambda lib: lib.nn.GroupNorm(3, 6, affine=False), (2, 6, 3, 3)),
    (lambda lib: lib.nn.GroupNorm(1, 4, eps=1e-3, bias=False), (2, 4, 3, 2, 2)),
    (lambda lib: lib.nn.RMSNorm(5), (2, 3, 5)),
    (lambda lib: lib.nn.RMSNorm([3, 5], eps=1e-4), (2, 3, 5)),
    (lambda lib: lib.nn.RMSNorm(5, elementwise_affine=False), (4, 5)),
    (lambda lib: lib.nn.LocalResponseNorm(3), (2, 5, 4)),
    (lambda lib: lib.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), (2, 6, 3, 4)),
    (lambda lib: lib.nn.LocalResponseNorm(4), (1, 3, 2, 2, 2)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", OTHER_NORMS)
def test_other_norms(make, shape, dtype):
    check_module(make, shape, dtype=dtype)


def test_mobilenet_v2_block():
    """Depthwise-separable block: conv/bn/relu6 repr, keys, and train + eval steps."""
    def make(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.Conv2d(8, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(inplace=True),
            nn.Conv2d(32, 32, 3, stride=1, padding=1, groups=32, bias=False),
            nn.BatchNorm2d(32), nn.ReLU6(inplace=True),
            nn.Conv2d(32, 8, 1, bias=False), nn.BatchNorm2d(8))
    t, e = build_pair(make)
    assert "(3): Conv2d(32, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), " \
           "groups=32, bias=False)" in repr(e)
    assert "(5): ReLU6(inplace=True)" in repr(e)
    check_module(make, (2, 8, 6, 6), steps=3, atol=1e-4, rtol=1e-4)
    check_module(make, (2, 8, 6, 6), train=False, atol=1e-5, rtol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_module(make, (2, 8, 6, 6), dtype="float64")
