"""examples/pytorch_mnist.py, a PyTorch-examples-style MNIST script, runs unmodified under
`ember run` on tiny MNIST IDX files, and the weights it saves load in real torch."""
import gzip
import os
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
SCRIPT = os.path.abspath(os.path.join(EXAMPLES, "pytorch_mnist.py"))
# One BLAS thread per run: the suite runs in parallel, and oversubscribed BLAS threads
# spin-wait (a small run takes ten times longer).
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def write_idx(path: str, array: np.ndarray) -> None:
    """An IDX file of uint8 values: magic 0x0000 08 <ndim>, big-endian sizes, the data."""
    header = bytes([0, 0, 8, array.ndim]) + b"".join(
        int(size).to_bytes(4, "big") for size in array.shape)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def write_mnist(root: str, n_train: int = 96, n_test: int = 48) -> None:
    """Tiny learnable MNIST under root/MNIST/raw/: each digit is a bright 4x4 square at a
    position of its own, on a noisy background (the test files gzipped, as downloaded)."""
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    rng = np.random.default_rng(0)
    for prefix, count, suffix in (("train", n_train, ""), ("t10k", n_test, ".gz")):
        labels = np.arange(count) % 10
        images = rng.integers(0, 60, size=(count, 28, 28))
        for i, label in enumerate(labels):
            row, col = 2 + 8 * (label // 3), 2 + 8 * (label % 3)
            images[i, row:row + 4, col:col + 4] = 255
        write_idx(os.path.join(raw, f"{prefix}-images-idx3-ubyte{suffix}"), images)
        write_idx(os.path.join(raw, f"{prefix}-labels-idx1-ubyte{suffix}"), labels)


def test_script_is_plain_pytorch():
    with open(SCRIPT) as f:
        source = f.read()
    assert "ember" not in source.lower()
    assert "import torch\n" in source and "from torchvision import datasets" in source


def test_runs_under_ember_run(tmp_path):
    write_mnist(str(tmp_path / "data"))
    result = subprocess.run(
        [sys.executable, "-m", "ember", "run", SCRIPT, "--epochs", "1", "--batch-size", "32",
         "--test-batch-size", "16", "--log-interval", "1", "--data-dir", str(tmp_path / "data"),
         "--save-model"],
        cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=300)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("Train Epoch: 1 [") == 3        # 96 images in batches of 32
    assert "Train Epoch: 1 [64/96 (67%)]" in out
    assert "Test set: Average loss: " in out and "/48 (" in out

    torch = pytest.importorskip("torch")            # real torch reads ember's checkpoint
    state = torch.load(tmp_path / "mnist_cnn.pt")
    assert {name: tuple(value.shape) for name, value in state.items()} == {
        "conv1.weight": (32, 1, 3, 3), "conv1.bias": (32,),
        "conv2.weight": (64, 32, 3, 3), "conv2.bias": (64,),
        "fc1.weight": (128, 9216), "fc1.bias": (128,),
        "fc2.weight": (10, 128), "fc2.bias": (10,)}
    assert all(value.dtype == torch.float32 for value in state.values())


def test_missing_files_fail_like_torchvision(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "ember", "run", SCRIPT, "--epochs", "1",
         "--data-dir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=300)
    assert result.returncode == 1
    assert "RuntimeError: Dataset not found." in result.stderr
