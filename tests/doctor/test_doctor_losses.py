"""ember/doctor/_losses.py: softmax-into-cross-entropy (and NLLLoss fed raw scores),
sigmoid-into-bce-with-logits, broadcast-loss-shape. Each buggy script reports its check at
the marked line; each fixed twin reports nothing."""
from __future__ import annotations

import pytest

CLASSIFIER = """
model = nn.Linear(4, 3)
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
"""


@pytest.mark.parametrize("line", [
    "loss = F.cross_entropy(F.softmax(model(x), dim=1), y)  # <- softmax-into-cross-entropy",
    ("loss = nn.CrossEntropyLoss()(nn.Softmax(dim=1)(model(x)), y)  "
     "# <- softmax-into-cross-entropy"),
    "loss = F.cross_entropy(model(x).log_softmax(1), y)  # <- softmax-into-cross-entropy",
    # through a reshape, as a sequence model's (B*T, C) view
    ("loss = F.cross_entropy(model(x).softmax(-1).view(16, 3), y)  "
     "# <- softmax-into-cross-entropy"),
    "loss = F.nll_loss(model(x), y)  # <- softmax-into-cross-entropy",
    "loss = nn.NLLLoss()(F.softmax(model(x), 1), y)  # <- softmax-into-cross-entropy",
    # fixed twins
    "loss = F.cross_entropy(model(x), y)",
    "loss = nn.CrossEntropyLoss(label_smoothing=0.1)(model(x), y)",
    "loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)",
    "loss = F.nll_loss(F.softmax(model(x), 1).clamp_min(1e-8).log(), y)",
])
def test_classification_inputs(expect, line):
    found = expect(CLASSIFIER + line + "\nloss.backward()\n")
    if found:
        assert found[0].message.startswith("the input of ")


def test_evaluation_without_history_is_silent(expect):
    """Under no_grad the input has no grad_fn: nothing tells where it came from."""
    expect(CLASSIFIER + """
with torch.no_grad():
    F.nll_loss(model(x), y)
""")


@pytest.mark.parametrize("line", [
    ("loss = F.binary_cross_entropy_with_logits(torch.sigmoid(model(x)), t)  "
     "# <- sigmoid-into-bce-with-logits"),
    ("loss = nn.BCEWithLogitsLoss()(nn.Sigmoid()(model(x)), t)  "
     "# <- sigmoid-into-bce-with-logits"),
    "loss = F.binary_cross_entropy_with_logits(model(x), t)",
    "loss = F.binary_cross_entropy(torch.sigmoid(model(x)), t)",
])
def test_bce_with_logits_inputs(expect, line):
    expect(CLASSIFIER + "t = torch.rand(16, 3)\n" + line + "\nloss.backward()\n")


REGRESSION = """
model = nn.Linear(4, 1)
x, y = torch.randn(16, 4), torch.randn(16)
"""


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("loss", ["F.mse_loss", "F.l1_loss", "F.smooth_l1_loss",
                                  "F.huber_loss", "nn.MSELoss()"])
def test_broadcast_loss_shape(expect, loss):
    found = expect(REGRESSION + f"""
loss = {loss}(model(x), y)  # <- broadcast-loss-shape
loss.backward()
""")
    assert "(16, 1)" in found[0].message and "(16, 16)" in found[0].message


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("line", [
    "loss = F.mse_loss(model(x).squeeze(-1), y)",      # the fix
    "loss = F.mse_loss(model(x), y.view(-1, 1))",      # the other fix
    "loss = F.mse_loss(model(x), torch.tensor(0.5))",  # a constant target, broadcast on purpose
])
def test_broadcast_loss_shape_fixed(expect, line):
    expect(REGRESSION + line + "\nloss.backward()\n")
