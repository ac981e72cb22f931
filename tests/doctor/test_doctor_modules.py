"""ember/doctor/_modules.py: eval-mode-missing, train-mode-missing, rnn-hidden-not-detached.
Each buggy script reports its check at the marked line; each fixed twin, and each
legitimate pattern next to the mistake, reports nothing."""
from __future__ import annotations

import pytest

import ember.doctor
from doctor_scripts import PRELUDE, marked_lines

MODEL = """
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.2),
                      nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))

def train(steps=2):
    for step in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
"""

EVALUATE = """
def evaluate():
    with torch.no_grad():
        for batch in range(3):
            model(x)  # <- {check}
"""


def test_eval_mode_missing(expect):
    expect(MODEL + EVALUATE.format(check="eval-mode-missing") + """
for epoch in range(2):
    model.train()
    train()
    evaluate()
""")


def test_eval_mode_missing_fixed(expect):
    expect(MODEL + EVALUATE.format(check="") + """
for epoch in range(2):
    model.train()
    train()
    model.eval()
    evaluate()
""")


@pytest.mark.parametrize("after_training", [
    # MC dropout: the model in eval, then its Dropout layers switched back on
    "model.eval()\nfor m in model.modules():\n    if isinstance(m, nn.Dropout): m.train()",
    # MC dropout the other way: the whole model in training mode, switched there on purpose
    "model.train()",
    # BatchNorm recalibration by hand, then by swa_utils.update_bn
    "model.train()\nmodel[1].reset_running_stats()",
    "torch.optim.swa_utils.update_bn([(x,), (x,)], model)",
])
def test_deliberate_training_behaviour_under_no_grad_is_silent(expect, after_training):
    expect(MODEL + EVALUATE.format(check="") + "train()\n" + after_training + "\nevaluate()\n")


def test_no_grad_forward_inside_training_is_silent(expect):
    """A GAN-style no_grad forward between optimizer steps is part of training."""
    expect(MODEL + """
for step in range(4):
    with torch.no_grad():
        target = model(x).argmax(1)
    opt.zero_grad()
    F.cross_entropy(model(x), target).backward()
    opt.step()
""")


def test_frozen_teacher_is_silent(expect):
    """An EMA teacher (no optimizer trains it) runs under no_grad in training mode."""
    expect(MODEL + """
import copy
teacher = copy.deepcopy(model)
for step in range(3):
    with torch.no_grad():
        soft = teacher(x).softmax(1)
        soft = teacher(x).softmax(1)
    opt.zero_grad()
    F.cross_entropy(model(x), soft).backward()
    opt.step()
""")


TRAIN_AFTER_EVAL = MODEL + """
for epoch in range(3):
    {switch}
    for step in range(2):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()  # <- {check}
    model.eval()
    with torch.no_grad():
        model(x)
"""


def test_train_mode_missing(expect):
    expect(TRAIN_AFTER_EVAL.format(switch="pass", check="train-mode-missing"))


def test_train_mode_missing_fixed(expect):
    expect(TRAIN_AFTER_EVAL.format(switch="model.train()", check=""))


@pytest.mark.parametrize("freeze", [
    # BatchNorm frozen on purpose while the rest trains
    "model.train(); model[1].eval()",
    # a model trained in eval mode from the start (never in training mode)
    "model.eval()",
])
def test_eval_layers_by_choice_are_silent(expect, freeze):
    expect(MODEL + freeze + "\ntrain(3)\n")


RNN = """
rnn = nn.LSTM(3, 5)
head = nn.Linear(5, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
hidden = None
for chunk in range(3):
    x, y = torch.randn(4, 2, 3), torch.randn(4, 2, 1)
    {carry}
    out, hidden = rnn(x, hidden)
    loss = F.mse_loss(head(out), y)
    opt.zero_grad()
    loss.backward()  # <- {check}
    opt.step()
"""


def test_rnn_hidden_not_detached(diagnose):
    """The carried state makes torch's error at the second backward pass: the finding comes
    first, and the error is the script's own, unchanged."""
    source = RNN.format(carry="pass", check="rnn-hidden-not-detached")
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        diagnose(source)
    found = ember.doctor.findings()
    assert [(f.check, f.line) for f in found] == [
        (check, line) for line, check in marked_lines(PRELUDE + source).items()]


def test_rnn_hidden_detached(expect):
    expect(RNN.format(carry="hidden = None if hidden is None else tuple(h.detach() for h in "
                            "hidden)", check=""))


def test_rnn_hidden_carried_within_one_backward_is_silent(expect):
    """Full backpropagation through time: the state flows through several chunks, then one
    backward pass."""
    expect("""
cell = nn.GRUCell(3, 5)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
for sequence in range(2):
    h = torch.zeros(2, 5)
    opt.zero_grad()
    for t in range(4):
        h = cell(torch.randn(2, 3), h)
    h.pow(2).mean().backward()
    opt.step()
""")
