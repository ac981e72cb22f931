"""The `ember` command: `ember run script.py args...`, `ember run -m module`, `ember run -c
code` (and `python -m ember run ...`), `ember torchrun`, `ember demo`. Python itself is the
oracle of `run`: the same program run both ways must give the same output, traceback
and exit status."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember
from ember.cli import main

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


def python_cmd(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def test_run_trains_a_pytorch_script(tmp_path):
    script = write(tmp_path, "train.py", TRAIN)
    result = ember_cmd("run", script, "20", "--flag")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ember._tensor True ['20', '--flag']\n"


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


# Programs run both by `python` and by `ember run` (neither imports torch, which would
# be real torch under python). Python's `-m` traceback also shows runpy's frames, which
# ember's runner leaves out like its own.
PROGRAMS = {
    "shows_its_place": "import sys\nprint(__name__, sys.argv, repr(sys.path[0]), __file__)\n",
    "raises": "def fail():\n    return 1 / 0\n\nfail()\n",
    # Python offers "Did you mean: 'len'?" (the annotated transformer's stray `alt`)
    "misspells_a_name": "def fail():\n    return lenn([])\n\nfail()\n",
    "misspells_an_attribute": "import collections\ncollections.dequ\n",
    "syntax_error": "x = (1 +\n",
    "exits_with_code": "raise SystemExit(3)\n",
    "exits_with_message": "import sys\nsys.exit('bad input')\n",
}
CASES = [(mode, "shows_its_place") for mode in ("script", "-m")] + \
    [(mode, "raises") for mode in ("script", "-m", "-c")] + \
    [("script", "misspells_a_name"), ("-c", "misspells_an_attribute")] + \
    [("-c", "syntax_error"), ("script", "exits_with_code"), ("-c", "exits_with_message")]


def ember_run_here(monkeypatch, capsys, *command) -> tuple:
    """`ember run <command>` in this process: (exit status, stdout, stderr) as the
    interpreter would end it. The torch alias stays off (real torch may be imported here)."""
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(ember.compat, "install", lambda: None)
    try:
        status = main(["run", *command])
    except SystemExit as exit:
        status = exit.code
    out, err = capsys.readouterr()
    if isinstance(status, str):  # what the interpreter does with SystemExit('message')
        status, err = 1, err + status + "\n"
    return status or 0, out, err


@pytest.mark.parametrize("mode, program", CASES)
def test_run_behaves_as_python(tmp_path, monkeypatch, capsys, mode, program):
    write(tmp_path, "shown.py", PROGRAMS[program])
    monkeypatch.chdir(tmp_path)
    target = {"script": ["shown.py"], "-m": ["-m", "shown"],
              "-c": ["-c", PROGRAMS[program]]}[mode]
    python = python_cmd(*target, "a", "--b")
    expected_err = "".join(line for line in python.stderr.splitlines(keepends=True)
                           if "<frozen runpy>" not in line)
    assert ember_run_here(monkeypatch, capsys, *target, "a", "--b") == \
        (python.returncode, python.stdout, expected_err)


def test_run_module_and_code_import_ember_as_torch(tmp_path):
    write(tmp_path, "uses_torch.py", "import torch\nprint(torch.__name__)\n")
    assert ember_cmd("run", "-m", "uses_torch", cwd=tmp_path).stdout == "ember\n"
    # -c glued to its code, as python accepts; the code sees its argv and sys.path as there
    result = ember_cmd("run", "-cimport sys, torch; print(torch.__name__, sys.argv, "
                       "repr(sys.path[0]))", "x")
    assert result.stdout == "ember ['-c', 'x'] ''\n"


def test_run_pytest_as_a_module(tmp_path):
    write(tmp_path, "test_model.py", """
        import torch

        def test_ember_stands_in_for_torch():
            assert torch.__name__ == "ember"
            assert torch.nn.Linear(2, 3)(torch.ones(1, 2)).shape == (1, 3)
    """)
    result = ember_cmd("run", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_model.py",
                       cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_run_missing_module_script_and_arguments(tmp_path, monkeypatch, capsys):
    python = python_cmd("-m", "no_such_module")
    assert ember_run_here(monkeypatch, capsys, "-m", "no_such_module") == \
        (python.returncode, "", "ember run: No module named no_such_module\n")
    missing = str(tmp_path / "nope.py")
    assert ember_run_here(monkeypatch, capsys, missing) == \
        (2, "", f"ember run: can't open file '{missing}': [Errno 2] No such file or "
                "directory\n")
    for command, error in [(["-c"], "argument expected for the -c option"),
                           ([], "one of -m module, -c command or a script is required")]:
        status, _, err = ember_run_here(monkeypatch, capsys, *command)
        assert status == 2 and err.endswith(f"ember run: error: {error}\n")


def test_version_and_help(capsys):
    result = ember_cmd("--version")  # `python -m ember` itself
    assert result.stdout == f"ember {ember.version.ember_version}\n"
    for command, usage in [([], "usage: ember [-h] [--version] COMMAND ..."),
                           (["run"], "usage: ember run [-h] [--doctor] (-m module | -c command | "
                                     "script) [args ...]"),
                           (["torchrun"], "usage: ember torchrun")]:
        with pytest.raises(SystemExit, match="0"):
            main([*command, "--help"])
        assert capsys.readouterr().out.startswith(usage)
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(command in out for command in ("run", "torchrun", "demo"))


def test_console_script_entry_point():
    exe = os.path.join(os.path.dirname(sys.executable), "ember")
    if not os.path.exists(exe):
        pytest.skip("ember is not installed as a console script in this environment")
    result = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert result.stdout == f"ember {ember.version.ember_version}\n"


def test_demo_runs_the_example_with_its_own_options(tmp_path):
    from ember.cli import _demo_script
    assert _demo_script().name == "mnist.py"
    result = ember_cmd("demo", "--dataset", "digits", "--epochs", "1", "--no-progress",
                       "--save-dir", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "test" in result.stdout and "acc" in result.stdout.lower()
