"""nn.SyncBatchNorm (one process: torch's CPU behaviour; several MPI processes: the
statistics of the whole batch) and nn.CrossMapLRN2d."""
import os
import sys

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from module_oracle import build_pair, check_module
from oracle import check, check_error

DTYPES = ["float32", "float64"]


# ---------------------------------------------------------------- SyncBatchNorm, one process
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 3, 2)])
@pytest.mark.parametrize("train", [True, False])
def test_sync_batchnorm_without_process_group(dtype, shape, train):
    check_module(lambda lib: lib.nn.SyncBatchNorm(3), shape, dtype=dtype, train=train, steps=2)


@pytest.mark.parametrize("kwargs", [{"momentum": None}, {"affine": False}, {"bias": False},
                                    {"track_running_stats": False}, {"eps": 1e-3,
                                                                     "momentum": 0.3}])
def test_sync_batchnorm_options(kwargs):
    check_module(lambda lib: lib.nn.SyncBatchNorm(3, **kwargs), (4, 3, 5), steps=3)
    check_module(lambda lib: lib.nn.SyncBatchNorm(3, **kwargs), (4, 3, 5), train=False)


def test_sync_batchnorm_non_contiguous_input():
    def fn(lib, x):
        return lib.nn.SyncBatchNorm(4)(x.transpose(1, 3))
    check(fn, (2, 3, 5, 4))


def test_sync_batchnorm_errors():
    check_error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.randn(3)), ValueError,
                r"^expected at least 2D input \(got 1D input\)")
    check_error(lambda lib: lib.nn.SyncBatchNorm(0)(lib.randn(2, 0, 3)), ValueError,
                "^SyncBatchNorm number of input channels should be non-zero")
    check_error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.randn(1, 3)), ValueError,
                "^Expected more than 1 value per channel when training")


def test_sync_batchnorm_attributes_and_default_init():
    e, t = ember.nn.SyncBatchNorm(5), torch.nn.SyncBatchNorm(5)
    assert repr(e) == repr(t) and list(e.state_dict()) == list(t.state_dict())
    assert e.process_group is None
    for name, value in t.state_dict().items():
        assert np.array_equal(e.state_dict()[name].numpy(), value.numpy()), name
    group = object()
    assert ember.nn.SyncBatchNorm(2, process_group=group).process_group is group


def test_sync_batchnorm_loads_batchnorm_checkpoint():
    tmod, emod = build_pair(lambda lib: lib.nn.BatchNorm2d(3))
    sync = ember.nn.SyncBatchNorm(3)
    sync.load_state_dict(emod.state_dict())
    x = ember.randn(2, 3, 4, 4)
    assert ember.allclose(sync.eval()(x), emod.eval()(x))


def _network(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3),
                             lib.nn.Sequential(lib.nn.Flatten(), lib.nn.BatchNorm1d(48,
                                                                                    affine=False)),
                             lib.nn.ReLU())


def test_convert_sync_batchnorm():
    tnet, enet = build_pair(_network)
    enet[1].eval()
    tnet[1].eval()
    tsync = torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet)
    esync = ember.nn.SyncBatchNorm.convert_sync_batchnorm(enet, process_group="group")
    assert repr(esync) == repr(tsync)
    assert list(esync.state_dict()) == list(tsync.state_dict())
    bn, sync = enet[1], esync[1]
    assert type(sync) is ember.nn.SyncBatchNorm and sync.process_group == "group"
    assert sync.weight is bn.weight and sync.bias is bn.bias
    assert sync.running_mean is bn.running_mean and sync.running_var is bn.running_var
    assert sync.num_batches_tracked is bn.num_batches_tracked
    assert not sync.training and esync[2][1].training and esync[2][1].weight is None
    assert esync[0] is enet[0]
    x = np.random.default_rng(0).standard_normal((2, 2, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(esync(ember.tensor(x)).detach().numpy(),
                               tsync(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_convert_keeps_a_lone_batchnorm_qconfig_and_other_modules():
    bn = ember.nn.BatchNorm1d(4, bias=False)
    bn.qconfig = "q"
    sync = ember.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
    assert isinstance(sync, ember.nn.SyncBatchNorm) and sync.qconfig == "q"
    assert sync.bias is None and "bias=False" in repr(sync)
    linear = ember.nn.Linear(2, 2)
    assert ember.nn.SyncBatchNorm.convert_sync_batchnorm(linear) is linear


# ---------------------------------------------------------------- SyncBatchNorm under MPI
@pytest.mark.parametrize("processes", [2, 3])
def test_sync_batchnorm_across_processes(processes):
    pytest.importorskip("mpi4py")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "distributed"))
    from _jobs import mpiexec
    job = mpiexec(processes, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          "_sync_batchnorm_job.py"), timeout=120)
    results = job.results()
    assert results, f"no report:\n{job.stdout}\n{job.stderr}"
    failed = {name: detail for name, (kind, detail) in results.items() if kind != "PASS"}
    assert not failed, failed
    assert len(results) == 5 and job.returncode == 0, job.stderr


# ---------------------------------------------------------------- CrossMapLRN2d
def _lrn_reference(lib, x, size, alpha, beta, k):
    """The formula CrossMapLRN2d documents: x / (k + alpha/size * sum of x^2 over the size
    channels centred on x) ** beta, which local_response_norm computes for odd sizes."""
    return lib.nn.functional.local_response_norm(x, size, alpha, beta, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size,alpha,beta,k", [(5, 1e-4, 0.75, 1), (3, 0.5, 0.75, 2.0),
                                               (1, 0.2, 0.5, 1), (7, 1.0, 1.0, 1)])
def test_cross_map_lrn2d_formula(dtype, size, alpha, beta, k):
    # torch 2.13's CrossMapLRN2d is buggy (channel 0 never leaves its running window sum and
    # its backward does not differentiate its forward), so compare with the formula.
    check(lambda lib, x: lib.nn.CrossMapLRN2d(size, alpha, beta, k)(x)
          if lib is ember else _lrn_reference(lib, x, size, alpha, beta, k),
          (2, 9, 3, 4), dtype=dtype)


def test_cross_map_lrn2d_agrees_with_torch_where_torch_is_right():
    # torch's forward is right for channels c <= size // 2 (the window has not slid yet) ...
    size, alpha, beta, k = 5, 0.5, 0.75, 1.0
    x = np.random.default_rng(0).standard_normal((2, 7, 3, 3))
    e = ember.nn.CrossMapLRN2d(size, alpha, beta, k)(ember.tensor(x)).numpy()
    t = torch.nn.CrossMapLRN2d(size, alpha, beta, k)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(e[:, :size // 2 + 1], t[:, :size // 2 + 1], rtol=1e-12)
    # ... and past them its window sum still holds channel 0's square (fails once fixed).
    square = x * x
    window = np.stack([square[:, max(0, c - 2):c + 3].sum(1) for c in range(7)], 1)
    window[:, size // 2 + 1:] += square[:, :1]
    np.testing.assert_allclose(t, x * (k + alpha / size * window) ** -beta, rtol=1e-12)
    assert not np.allclose(e[:, size // 2 + 1:], t[:, size // 2 + 1:])


def test_cross_map_lrn2d_double_backward_and_non_contiguous():
    def second(lib, x):
        y = lib.nn.CrossMapLRN2d(3, 0.5)(x) if lib is ember else _lrn_reference(
            lib, x, 3, 0.5, 0.75, 1)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (2, 5, 3, 3), dtype="float64")
    check(lambda lib, x: lib.nn.CrossMapLRN2d(3)(x.transpose(2, 3)) if lib is ember
          else _lrn_reference(lib, x.transpose(2, 3), 3, 1e-4, 0.75, 1), (2, 4, 3, 5))


def test_cross_map_lrn2d_module():
    for args in [(5,), (3, 0.1, 0.5, 2.0), (3, 1e-3)]:
        e, t = ember.nn.CrossMapLRN2d(*args), torch.nn.CrossMapLRN2d(*args)
        assert repr(e) == repr(t)
        assert e.state_dict() == {} and list(e.parameters()) == []
    check_error(lambda lib: lib.nn.CrossMapLRN2d(3)(lib.randn(2, 3, 4)), ValueError,
                "^CrossMapLRN2d: Expected input to be 4D, got 3D instead.")
    with pytest.raises(NotImplementedError, match="size=4"):
        ember.nn.CrossMapLRN2d(4)(ember.randn(1, 6, 2, 2))
