"""nn.utils.fusion: conv/linear + eval-mode BatchNorm folded into one layer, against torch."""
import numpy as np
import pytest
import torch

import ember
from module_oracle import build_pair
from oracle import TOL, assert_same, check_error, rng


def trained_pair(make, dtype):
    """(torch, ember) layer + BatchNorm pairs with equal, non-trivial running statistics."""
    tmods, emods = build_pair(make, dtype)
    r = rng(3)
    for name, buf in tmods.named_buffers():
        if buf.is_floating_point():
            value = r.uniform(0.5, 2.0, buf.shape).astype(dtype)
            buf.copy_(torch.tensor(value))
            emods.get_buffer(name).copy_(ember.tensor(value))
    return tmods.eval(), emods.eval()


CASES = [
    (lambda lib: lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4)),
     (2, 3, 6, 6), False),
    (lambda lib: lib.nn.Sequential(lib.nn.Conv1d(3, 5, 2, bias=False), lib.nn.BatchNorm1d(5)),
     (2, 3, 7), False),
    (lambda lib: lib.nn.Sequential(lib.nn.Conv2d(4, 6, 3, groups=2, bias=False),
                                   lib.nn.BatchNorm2d(6, affine=False)), (1, 4, 5, 5), False),
    (lambda lib: lib.nn.Sequential(lib.nn.ConvTranspose2d(3, 4, 2, stride=2),
                                   lib.nn.BatchNorm2d(4)), (2, 3, 3, 3), True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, shape, transpose", CASES)
def test_fuse_conv_bn_eval_matches_torch_and_the_unfused_pair(make, shape, transpose, dtype):
    tmods, emods = trained_pair(make, dtype)
    tfused = torch.nn.utils.fuse_conv_bn_eval(tmods[0], tmods[1], transpose=transpose)
    efused = ember.nn.utils.fuse_conv_bn_eval(emods[0], emods[1], transpose=transpose)
    assert repr(efused) == repr(tfused) and efused is not emods[0]
    for name, tp in tfused.named_parameters():
        ep = efused.get_parameter(name)
        assert type(ep) is ember.nn.Parameter and ep.is_leaf
        assert ep.requires_grad == tp.requires_grad
        assert_same(ep, tp, *TOL[dtype])
    x = rng(0).standard_normal(shape).astype(dtype)
    np.testing.assert_allclose(efused(ember.tensor(x)).detach().numpy(),
                               emods(ember.tensor(x)).detach().numpy(), *TOL[dtype][::-1])
    assert_same(efused(ember.tensor(x)), tfused(torch.tensor(x)), *TOL[dtype])
    # the originals are untouched
    assert_same(emods[0].weight, tmods[0].weight, 0, 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("features, bias", [(4, True), (1, False)])
def test_fuse_linear_bn_eval(features, bias, dtype):
    tmods, emods = trained_pair(
        lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4, bias=bias),
                                      lib.nn.BatchNorm1d(features)), dtype)
    tfused = torch.nn.utils.fuse_linear_bn_eval(tmods[0], tmods[1])
    efused = ember.nn.utils.fuse_linear_bn_eval(emods[0], emods[1])
    assert repr(efused) == repr(tfused)
    assert_same(efused.weight, tfused.weight, *TOL[dtype])
    assert_same(efused.bias, tfused.bias, *TOL[dtype])
    assert efused.bias.requires_grad == tfused.bias.requires_grad
    x = rng(1).standard_normal((5, 3)).astype(dtype)
    assert_same(efused(ember.tensor(x)), tfused(torch.tensor(x)), *TOL[dtype])


def test_fuse_weights_functions_and_dtypes():
    r = rng(5)
    w, b = r.standard_normal((4, 2, 3)), r.standard_normal(4)
    rm, rv = r.standard_normal(4), r.uniform(0.5, 2, 4)
    bw, bb = r.standard_normal(4), r.standard_normal(4)

    def run(lib, name, *arrays, eps=1e-3, **kw):
        args = [None if a is None else lib.tensor(a) for a in arrays]
        args.insert(4, eps)
        return getattr(lib.nn.utils, name)(*args, **kw)

    for arrays in [(w.astype(np.float32), b, rm, rv, bw, bb), (w, None, rm, rv, None, None)]:
        tw, tb = run(torch, "fuse_conv_bn_weights", *arrays)
        ew, eb = run(ember, "fuse_conv_bn_weights", *arrays)
        assert str(ew.dtype) == str(tw.dtype) and str(eb.dtype) == str(tb.dtype)
        assert eb.requires_grad == tb.requires_grad
        assert_same(ew, tw, 1e-6, 1e-6)
        assert_same(eb, tb, 1e-6, 1e-6)
    lin = (w[:, :, 0], b, rm, rv, bw, bb)
    for out_t, out_e in zip(run(torch, "fuse_linear_bn_weights", *lin),
                            run(ember, "fuse_linear_bn_weights", *lin)):
        assert_same(out_e, out_t, 1e-12, 1e-12)


def test_fusion_errors():
    check_error(lambda lib: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1),
                                                           lib.nn.BatchNorm2d(2)),
                AssertionError, "^Fusion only for eval!$")
    check_error(lambda lib: lib.nn.utils.fuse_linear_bn_eval(
        lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval()), AssertionError,
        r"^To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
        r"linear.out_features=3 and bn.num_features=2$")
    check_error(lambda lib: lib.nn.utils.fuse_conv_bn_eval(
        lib.nn.Conv2d(1, 2, 1).eval(), lib.nn.BatchNorm2d(2, track_running_stats=False).eval()),
        AssertionError, "^bn.running_mean and bn.running_var must not be None$")
