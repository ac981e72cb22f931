"""Fusion of pointwise chains in compiled plans (ember/_dynamo/_fusion.py): runs of
elementwise ops become one generated numba kernel whose results equal eager's to the bit,
kernels are written to the cache folder and reused, and without numba's kernels plans
call the ops one by one."""
import glob
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from ember._cpu import kernels
from ember._dynamo import config

pytestmark = pytest.mark.skipif(not kernels.numba_available(),
                                reason="fusion needs numba (the ember[fast] extra)")


@pytest.fixture(autouse=True)
def cache_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path / "cache"))
    with ember.backends.cpu.flags(kernels="numba"):
        yield tmp_path / "cache"


def _bits(array: np.ndarray) -> np.ndarray:
    """The array's bit patterns: equal bits mean equal values, NaNs and signed zeros too."""
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")


def _compiled_and_eager(fn, *arrays, calls=4):
    """fn's results and input gradients, eager and compiled (the last of `calls` calls, so
    the compiled one replays its plan); returns (eager, compiled, compiled function)."""
    compiled = ember.compile(fn)
    runs = []
    for run in (fn, compiled):
        for _ in range(calls):
            inputs = [ember.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
            outs = run(*inputs)
            outs = outs if isinstance(outs, tuple) else (outs,)
        runs.append([o.detach().numpy() for o in outs] +
                    [t.grad.numpy() for t in inputs if t.grad is not None])
    return runs[0], runs[1], compiled


def _fused_lines(compiled) -> list:
    source, = compiled.plan_source()
    return [line for line in source.splitlines() if "# fused:" in line]


def chain(x):
    for _ in range(50):
        x = x * 1.0001 + 0.0001
    x.sum().backward()
    return x.detach()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chain_forward_and_backward_fuse_bit_identical(dtype):
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(dtype)
    eager, compiled, fn = _compiled_and_eager(chain, x)
    assert [_bits(a).tolist() for a in eager] == [_bits(a).tolist() for a in compiled]
    fused = _fused_lines(fn)
    assert len(fused) == 2          # the forward's 100 ops, the backward's 50 products
    assert fused[0].count("MulBackward0") == 50 and fused[0].count("AddBackward0") == 50
    t = torch.tensor(x, requires_grad=True)
    y = t
    for _ in range(50):
        y = y * 1.0001 + 0.0001
    y.sum().backward()
    np.testing.assert_array_equal(compiled[0], y.detach().numpy())
    np.testing.assert_array_equal(compiled[1], t.grad.numpy())


def bias_relu(x, w, b):
    h = (x @ w + b).relu()
    y = (h * 2.0 - b) / 3.0
    z = (y + 1).sqrt() - y.neg()
    z.sum().backward()
    return z.detach(), h.detach()


def test_broadcast_operands_and_intermediates_read_later():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((6, 4)), rng.standard_normal((4, 3))
    b = rng.standard_normal(3)
    args = [a.astype(np.float32) for a in (x, w, b)]
    eager, compiled, fn = _compiled_and_eager(bias_relu, *args)
    assert [_bits(a).tolist() for a in eager] == [_bits(a).tolist() for a in compiled]
    assert _fused_lines(fn), "no chain was fused"
    # h is read after its chain (returned): the kernel writes it besides the chain's end
    assert any(line.split(" = ")[0].count(",") >= 2 for line in _fused_lines(fn))
    ts = [torch.tensor(a, requires_grad=True) for a in args]
    h = (ts[0] @ ts[1] + ts[2]).relu()
    y = (h * 2.0 - ts[2]) / 3.0
    z = (y + 1).sqrt() - y.neg()
    z.sum().backward()
    np.testing.assert_allclose(compiled[0], z.detach().numpy(), rtol=1e-6)
    for ours, theirs in zip(compiled[2:], [t.grad for t in ts]):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-5, atol=1e-6)


def special_values(x, y):
    return (x / y).relu() * -1.0 + (x * y).sqrt(), (x - y).relu() / y


def test_nan_inf_and_signed_zeros_round_as_numpy():
    x = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0], np.float32)
    y = np.array([0.0, 2.0, -0.0, np.inf, np.inf, 1.0, 1.0, -np.nan], np.float32)
    with np.errstate(all="ignore"):
        eager, compiled, fn = _compiled_and_eager(lambda a, b: tuple(
            t.detach() for t in special_values(a, b)), x, y)
    assert [_bits(a).tolist() for a in eager] == [_bits(a).tolist() for a in compiled]
    assert _fused_lines(fn)


def test_zero_dim_chain():
    def scalar_chain(x):
        return (x * 3.0 + 1.0) / 2.0 - x
    eager, compiled, fn = _compiled_and_eager(lambda x: scalar_chain(x).detach(),
                                              np.array(1.7, np.float32))
    assert _bits(eager[0]).tolist() == _bits(compiled[0]).tolist()
    assert compiled[0].shape == () and _fused_lines(fn)


def test_transposed_inputs_keep_numpy_layout():
    """An elementwise result of a transposed array keeps NumPy's (column-major) layout:
    such ops are not fused, and the strides stay eager's."""
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    fn = ember.compile(lambda t: (t.t() * 2.0 + 1.0).relu())
    eager = (ember.tensor(x).t() * 2.0 + 1.0).relu()
    for _ in range(3):
        out = fn(ember.tensor(x))
    assert out.stride() == eager.stride()
    assert _bits(out.numpy()).tolist() == _bits(eager.numpy()).tolist()


def test_mixed_dtypes_and_integers_are_not_fused():
    fn = ember.compile(lambda a, b, i: ((a * b + 1.0) * 2.0, (i * 2 + 1) * 3))
    a = ember.ones(3, dtype=ember.float32)
    b = ember.ones(3, dtype=ember.float64)
    i = ember.arange(3)
    for _ in range(3):
        floats, ints = fn(a, b, i)
    assert floats.dtype == ember.float64 and ints.tolist() == [3, 9, 15]
    # only the float64 ops after the promoting product, none of the integer ones
    fused, = _fused_lines(fn)
    assert fused.endswith("# fused: AddBackward0, MulBackward0")


def test_without_numba_kernels_plans_do_not_fuse():
    x = np.ones((2, 2), np.float32)
    with ember.backends.cpu.flags(kernels="numpy"):
        eager, compiled, fn = _compiled_and_eager(chain, x)
        assert not _fused_lines(fn)
    assert [_bits(a).tolist() for a in eager] == [_bits(a).tolist() for a in compiled]


def test_kernel_choice_is_a_guard():
    fn = ember.compile(lambda t: (t * 2.0 + 1.0) * 3.0)
    for _ in range(3):
        fn(ember.ones(2))
    with ember.backends.cpu.flags(kernels="numpy"):
        for _ in range(3):
            fn(ember.ones(2))
    sources = fn.plan_source()
    assert len(sources) == 2 and ["# fused:" in s for s in sources] == [True, False]


def test_kernels_are_files_in_the_cache_folder_and_are_reused(cache_folder):
    code = ("import ember, numpy as np\n"
            "f = ember.compile(lambda t: ((t * 2.0 + 1.0) * t).relu())\n"
            "for _ in range(3): out = f(ember.ones(4))\n"
            "print(out.tolist())\n")
    env = dict(os.environ, EMBER_CACHE_DIR=str(cache_folder), EMBER_KERNELS="numba")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout == "[3.0, 3.0, 3.0, 3.0]\n"
    sources = glob.glob(str(cache_folder / "fused" / "k*.py"))
    assert len(sources) == 1 and "def kernel(shape, x0):" in open(sources[0]).read()
    assert glob.glob(str(cache_folder / "fused" / "__pycache__" / "*.nbi"))


def test_kernels_refuse_arrays_of_other_shapes(cache_folder):
    fn = ember.compile(lambda t: t * 2.0 + 1.0)
    for _ in range(3):
        fn(ember.ones(4))
    kernel = next(v for k, v in fn._entries[0].plan.function.__globals__.items()
                  if k.startswith("fused"))
    with pytest.raises(ValueError, match="other shapes than it was made for"):
        kernel((4,), np.ones(5, np.float32))


def test_an_unwritable_cache_folder_leaves_the_ops_unfused(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(config, "cache_dir", str(blocked))
    x = np.ones((2, 2), np.float32)
    eager, compiled, fn = _compiled_and_eager(chain, x)
    assert not _fused_lines(fn) and fn._entries[0].confirmed
    assert [_bits(a).tolist() for a in eager] == [_bits(a).tolist() for a in compiled]
