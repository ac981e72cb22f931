"""ember/doctor/__init__.py and _report.py: enable/disable/findings, one finding per (check,
file, line) with its count, the stderr line, the user's frame, and the checks-off path."""
from __future__ import annotations

import re

import ember
import ember.doctor
from doctor_scripts import PRELUDE, marked_lines
from ember.doctor import Finding

BUGGY = """
model = nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
for step in range(3):
    loss = F.cross_entropy(F.softmax(model(x), 1), y)  # <- softmax-into-cross-entropy
    loss.backward()
    opt.step()  # <- missing-zero-grad
"""


def test_one_finding_per_check_and_line_with_counts(expect, capsys):
    found = expect(BUGGY)
    assert [(f.check, f.count) for f in found] == [("softmax-into-cross-entropy", 3),
                                                   ("missing-zero-grad", 2)]
    softmax_line, step_line = marked_lines(PRELUDE + BUGGY)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2      # printed once each, at the first occurrence
    assert re.fullmatch(rf"ember doctor: \S*train\.py:{softmax_line}: "
                        r"softmax-into-cross-entropy: .+ — .+", lines[0])
    assert re.fullmatch(rf"ember doctor: \S*train\.py:{step_line}: missing-zero-grad: .+ — "
                        r"call optimizer\.zero_grad\(\).+", lines[1])


def test_the_line_is_the_users_even_through_helpers(diagnose, tmp_path):
    """A user's helper module is user code: the finding points into it, not into ember."""
    (tmp_path / "helpers.py").write_text(
        "import ember.nn.functional as F\n"
        "def criterion(out, y):\n"
        "    return F.cross_entropy(out.softmax(1), y)\n")
    found, _, _ = diagnose("""
import sys
sys.path.insert(0, __file__.rsplit('/', 1)[0])
from helpers import criterion
criterion(nn.Linear(4, 3)(torch.randn(2, 4)), torch.tensor([0, 1]))
""")
    assert [(f.check, f.path, f.line) for f in found] == [
        ("softmax-into-cross-entropy", str(tmp_path / "helpers.py"), 3)]


def test_findings_survive_disable_until_the_next_enable(diagnose):
    diagnose(BUGGY)         # enables, runs, disables
    assert not ember.doctor.is_enabled()
    assert [f.check for f in ember.doctor.findings()] == ["softmax-into-cross-entropy",
                                                          "missing-zero-grad"]
    ember.doctor.enable()
    try:
        assert ember.doctor.is_enabled() and ember.doctor.findings() == []
    finally:
        ember.doctor.disable()


def test_findings_are_copies():
    ember.doctor.enable()
    try:
        model = ember.nn.Linear(2, 2)
        ember.nn.functional.cross_entropy(model(ember.randn(3, 2)).softmax(1),
                                          ember.tensor([0, 1, 0]))
        first = ember.doctor.findings()
        first[0].count = 100
        assert ember.doctor.findings()[0].count == 1
        assert isinstance(first[0], Finding)
    finally:
        ember.doctor.disable()


def test_checks_off_find_nothing_and_change_nothing(tmp_path, capsys):
    """The same buggy code with the checks off: no findings, no output, the same values."""
    import runpy
    script = tmp_path / "train.py"
    script.write_text(PRELUDE + BUGGY + "print(float(loss), model.weight.sum().item())\n")
    runpy.run_path(str(script), run_name="__main__")
    off = capsys.readouterr()
    ember.doctor.enable()
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        ember.doctor.disable()
    on = capsys.readouterr()
    assert off.err == "" and ember.doctor.findings() != []
    assert on.out == off.out        # the program computed the same, with the checks on
    assert ember.doctor.findings() != [] and "ember doctor" in on.err


def test_checks_are_per_thread():
    import threading
    ember.doctor.enable()
    try:
        seen = []
        thread = threading.Thread(target=lambda: seen.append(ember.doctor.is_enabled()))
        thread.start()
        thread.join()
        assert seen == [False]
    finally:
        ember.doctor.disable()


def test_the_check_ids():
    assert ember.doctor.CHECKS == (
        "missing-zero-grad", "softmax-into-cross-entropy", "sigmoid-into-bce-with-logits",
        "eval-mode-missing", "train-mode-missing", "loss-accumulated-with-graph",
        "scheduler-before-optimizer", "params-not-in-optimizer", "nan-loss",
        "broadcast-loss-shape", "rnn-hidden-not-detached")
