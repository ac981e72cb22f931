"""The `ember` command: `ember run script.py args...` (and `python -m ember run ...`)."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember

TRAIN = """
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch import optim
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = optim.Adam(model.parameters(), lr=0.05)
    for epoch in range(int(sys.argv[1])):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
    final = F.mse_loss(model(x), y).item()
    print(type(torch.tensor(1.0)).__module__, final < 0.5, sys.argv[1:])
"""


def write(tmp_path, name: str, code: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return str(path)


def ember_cmd(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ember", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_run_trains_a_pytorch_script(tmp_path):
    script = write(tmp_path, "train.py", TRAIN)
    result = ember_cmd("run", script, "20", "--flag")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ember._tensor True ['20', '--flag']\n"


def test_script_sees_main_argv_and_its_directory(tmp_path):
    write(tmp_path, "helper.py", "VALUE = 42\n")
    script = write(tmp_path, "main.py", """
        import sys, helper
        print(__name__, sys.argv, helper.VALUE)
    """)
    result = ember_cmd("run", script, "a", "-b", "--c=1")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"__main__ {[script, 'a', '-b', '--c=1']} 42\n"


@pytest.mark.parametrize("code, status", [("raise SystemExit(3)", 3),
                                          ("import sys; sys.exit(0)", 0),
                                          ("import sys; sys.exit('bad input')", 1)])
def test_exit_codes_propagate(tmp_path, code, status):
    result = ember_cmd("run", write(tmp_path, "exit.py", code + "\n"))
    assert result.returncode == status


def test_error_gives_traceback_and_nonzero_exit(tmp_path):
    script = write(tmp_path, "boom.py", """
        import torch

        def fail():
            return torch.ones(2, 3) @ torch.ones(2, 3)

        fail()
    """)
    result = ember_cmd("run", script)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == f'  File "{script}", line 7, in <module>'
    assert "in fail" in result.stderr
    assert lines[-1].startswith("RuntimeError: mat1 and mat2 shapes cannot be multiplied")
    assert "runpy" not in result.stderr and "__main__.py" not in result.stderr


def test_missing_script(tmp_path):
    result = ember_cmd("run", str(tmp_path / "nope.py"))
    assert result.returncode == 2
    assert "can't open file" in result.stderr


def test_version_and_help():
    result = ember_cmd("--version")
    assert result.stdout == f"ember {ember.version.ember_version}\n"
    result = ember_cmd("--help")
    assert result.returncode == 0 and "run" in result.stdout and "demo" in result.stdout
    assert ember_cmd("run", "--help").stdout.startswith("usage: ember run")


def test_console_script_entry_point():
    exe = os.path.join(os.path.dirname(sys.executable), "ember")
    if not os.path.exists(exe):
        pytest.skip("ember is not installed as a console script in this environment")
    result = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert result.stdout == f"ember {ember.version.ember_version}\n"


def test_demo_runs_the_example_with_its_own_options(tmp_path):
    from ember.__main__ import _demo_script
    assert _demo_script().name == "mnist.py"
    result = ember_cmd("demo", "--dataset", "digits", "--epochs", "1", "--no-progress",
                       "--save-dir", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "test" in result.stdout and "acc" in result.stdout.lower()
