"""examples/mnist.py: one short epoch per dataset, checkpoint + --resume, TensorBoard logs,
the plot, --amp and workers, and a run without the optional packages."""
import os
import subprocess
import sys

import pytest

import ember
from test_pytorch_mnist import ENV, EXAMPLES, write_mnist

SCRIPT = os.path.abspath(os.path.join(EXAMPLES, "mnist.py"))


def run_example(*args: str, prelude: str = "") -> str:
    """Run the example in a fresh interpreter (after `prelude`); return its stdout."""
    code = (f"import runpy, sys\n{prelude}\nsys.argv = [{SCRIPT!r}, *sys.argv[1:]]\n"
            f"runpy.run_path({SCRIPT!r}, run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                            text=True, env=ENV, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def epoch_lines(out: str) -> list:
    return [line for line in out.splitlines() if line.startswith("epoch ")]


def test_resume_continues_where_the_checkpoint_stopped(tmp_path):
    common = ("--dataset", "digits", "--batch-size", "128", "--seed", "3")
    first = run_example(*common, "--epochs", "1", "--save-dir", str(tmp_path / "a"),
                        "--logdir", str(tmp_path / "tb"))
    assert [line.split()[1] for line in epoch_lines(first)] == ["1"]
    assert "train loss" in first and "test loss" in first and "acc" in first
    assert os.listdir(tmp_path / "tb")                       # TensorBoard event file
    assert (tmp_path / "a" / "curves.png").read_bytes()[:4] == b"\x89PNG"

    second = run_example(*common, "--epochs", "2", "--resume", "--save-dir", str(tmp_path / "a"))
    assert "resumed from" in second
    assert [line.split()[1] for line in epoch_lines(second)] == ["2"]

    checkpoint = ember.load(tmp_path / "a" / "checkpoint.pt")
    batches_per_epoch = -(-1437 // 128)
    assert checkpoint["epoch"] == 2
    assert checkpoint["scheduler"]["last_epoch"] == 2
    steps = {int(s["step"]) for s in checkpoint["optimizer"]["state"].values()}
    assert steps == {2 * batches_per_epoch}                  # optimizer state carried over
    assert len(checkpoint["history"]["test_acc"]) == 2

    # Resuming reproduces the uninterrupted run: same weights, shuffles and dropout masks.
    straight = run_example(*common, "--epochs", "2", "--save-dir", str(tmp_path / "b"))
    assert epoch_lines(straight)[1].split("(")[0] == epoch_lines(second)[0].split("(")[0]


@pytest.mark.parametrize("args", [
    ("--dataset", "mnist1d", "--num-workers", "2"),
    ("--dataset", "mnist1d", "--model", "mlp", "--amp"),
])
def test_one_epoch(tmp_path, args):
    out = run_example(*args, "--epochs", "1", "--save-dir", str(tmp_path))
    assert out.startswith("mnist1d: 4000 train / 1000 test")
    assert len(epoch_lines(out)) == 1 and "final test accuracy" in out


def test_mnist_idx_files_from_data_dir(tmp_path):
    write_mnist(str(tmp_path / "data"))
    out = run_example("--data-dir", str(tmp_path / "data"), "--epochs", "1",
                      "--save-dir", str(tmp_path / "run"))
    assert out.startswith("mnist: 96 train / 48 test, model cnn")
    assert len(epoch_lines(out)) == 1


def test_runs_without_the_optional_packages(tmp_path):
    hide = "for name in ('tqdm', 'matplotlib', 'tensorboard'):\n    sys.modules[name] = None"
    out = run_example("--dataset", "digits", "--epochs", "1", "--save-dir", str(tmp_path),
                      "--logdir", str(tmp_path / "tb"), prelude=hide)
    notices = [line for line in out.splitlines() if line.startswith("note: ")]
    assert len(notices) == 3
    assert "tqdm is not installed" in notices[0] and "matplotlib" in notices[1]
    assert "tensorboard" in notices[2]
    assert len(epoch_lines(out)) == 1
    assert not (tmp_path / "curves.png").exists() and not (tmp_path / "tb").exists()
