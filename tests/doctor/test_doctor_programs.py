"""`ember run --doctor` as a user runs it: an unmodified torch script in a subprocess.

A buggy script gets its finding on stderr at its own line, with stdout, exceptions and the
exit status unchanged. Real programs print no finding: the PyTorch-examples-style programs
of tests/programs (their harness starts them), examples/mnist.py in its modes and
examples/pytorch_mnist.py (PyTorch's own MNIST example). They run two at a time: the
machine has two cores.
"""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from doctor_scripts import marked_lines
from examples.test_pytorch_mnist import SCRIPT as PYTORCH_MNIST, write_mnist
from programs.test_programs import HERE as PROGRAMS_DIR, PROGRAMS, finish, start

EXAMPLE = os.path.join(os.path.dirname(PROGRAMS_DIR), os.pardir, "examples", "mnist.py")

SCRIPT = """\
import sys
import torch
import torch.nn.functional as F
model = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
for step in range(3):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()  # <- missing-zero-grad
print("trained")
{ending}
"""


def ember_run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ember", "run", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ending, returncode", [
    ("", 0),
    ("sys.exit(3)", 3),
    ("raise ValueError('the script fails')", 1),
])
def test_doctor_flag_leaves_the_program_alone(tmp_path, ending, returncode):
    (tmp_path / "train.py").write_text(SCRIPT.format(ending=ending))
    plain = ember_run(tmp_path, "train.py")
    checked = ember_run(tmp_path, "--doctor", "train.py")
    assert plain.returncode == checked.returncode == returncode
    assert plain.stdout == checked.stdout == "trained\n"
    (line, check), = marked_lines(SCRIPT).items()
    finding = f"ember doctor: train.py:{line}: {check}: "
    assert finding not in plain.stderr and "ember doctor" not in plain.stderr
    assert checked.stderr.startswith(finding), checked.stderr
    # the rest of stderr (a traceback, if any) is the one of the plain run
    assert checked.stderr.split("\n", 1)[1] == plain.stderr


def _silent_runs(save_dir, mnist_dir) -> dict[str, list]:
    """name -> the command lines of a real program, shortened to a few steps (one job of
    one or more runs in a row)."""
    runs = {}
    for name, args in PROGRAMS.items():
        if name == "hogwild.py":    # trains in spawned worker processes, where it is off
            continue
        args = list(args)
        if "--steps" in args:
            i = args.index("--steps") + 1
            args[i] = str(min(int(args[i]), 4))
        runs[name] = [[os.path.join(PROGRAMS_DIR, name), *args]]
    example = os.path.abspath(EXAMPLE)
    common = [example, "--dataset", "digits", "--no-progress", "--batch-size", "256"]
    runs["mnist.py mlp --amp"] = [[*common, "--epochs", "1", "--model", "mlp", "--amp"]]
    # the cnn for one epoch with a checkpoint, then --resume for a second one
    keep = ["--save-dir", str(save_dir)]
    runs["mnist.py cnn, --resume"] = [[*common, *keep, "--epochs", "1"],
                                      [*common, *keep, "--epochs", "2", "--resume"]]
    runs["pytorch_mnist.py"] = [[PYTORCH_MNIST, "--epochs", "2", "--batch-size", "32",
                                 "--test-batch-size", "16", "--data-dir", str(mnist_dir)]]
    return runs


def test_real_programs_print_no_finding(tmp_path):
    write_mnist(str(tmp_path / "mnist"))
    runs = _silent_runs(tmp_path / "checkpoints", tmp_path / "mnist")

    def run(name):
        folder = tmp_path / name.replace(" ", "_").replace(",", "")
        folder.mkdir()
        return [finish(start([sys.executable, "-m", "ember", "run", "--doctor", *command],
                             folder), name) for command in runs[name]]

    with ThreadPoolExecutor(2) as pool:
        results = [r for job in pool.map(run, runs) for r in job]
    assert len(results) == len(PROGRAMS) - 1 + 4
    for result in results:
        assert result.returncode == 0, result.describe()
        assert "ember doctor" not in result.stderr, result.describe()
