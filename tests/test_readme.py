"""The README's "your PyTorch script on ember" example runs, and real torch loads its file."""
import os
import re
import subprocess
import sys

import torch

README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def test_readme_example_trains_and_saves_a_torch_loadable_checkpoint(tmp_path):
    text = open(README, encoding="utf-8").read()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    losses = [float(line.split()[1]) for line in done.stdout.splitlines()]
    assert len(losses) == 10 and losses[-1] < losses[0]
    state = torch.load(tmp_path / "model.pth", weights_only=True)
    assert list(state) == ["0.weight", "0.bias", "3.weight", "3.bias"]
    assert tuple(state["0.weight"].shape) == (64, 20)
