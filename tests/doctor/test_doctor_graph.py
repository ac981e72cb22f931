"""ember/doctor/_graph.py: nan-loss, loss-accumulated-with-graph. Each buggy script reports
its check at the marked line; each fixed twin reports nothing."""
from __future__ import annotations

import pytest

MODEL = """
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
"""


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("prediction, check", [
    ("model(x).log()", "nan-loss"),                      # log of negative outputs
    ("model(x) / 0", "nan-loss"),                        # inf
    ("model(x).clamp_min(1e-6).log()", ""),
    ("model(x)", ""),
])
def test_nan_loss(expect, prediction, check):
    found = expect(MODEL + f"""
for step in range(2):
    opt.zero_grad()
    loss = F.mse_loss({prediction}, y)
    loss.backward()  # <- {check}
    opt.step()
""")
    if found:
        assert found[0].count == 2 and "detect_anomaly" in found[0].message



@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("loss, named", [
    # both factors saved by the product: log's output is seen, and its saved input is finite
    ("(torch.log(model(x)) * model(x)).sum()", "is LogBackward0 from finite inputs"),
    # sqrt saves only its output: seen non-finite, its inputs unknown
    ("(torch.sqrt(model(x)) * model(x)).sum()", "is SqrtBackward0 —"),
    ("(w * w).sum()", "a leaf tensor (an input or a parameter) already held non-finite"),
    # a product with a constant saves nothing of log's output: nothing to name
    ("(torch.log(model(x)) * 2).sum()", "is nan — find the op"),
])
def test_nan_loss_names_what_the_graph_shows(expect, loss, named):
    found = expect(MODEL + f"""
w = nn.Parameter(torch.tensor([float("nan"), 1.0]))
loss = {loss}
loss.backward()  # <- nan-loss
""")
    assert named in found[0].message


TRAIN = MODEL + """
total = 0
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    {before}
    loss.backward()
    opt.step()
    {after}
"""


@pytest.mark.parametrize("before, after", [
    ("pass", "total += loss  # <- loss-accumulated-with-graph"),
    ("total += loss  # <- loss-accumulated-with-graph", "pass"),
    ("pass", "total = total + loss * x.size(0)  # <- loss-accumulated-with-graph"),
])
def test_loss_accumulated_with_graph(expect, before, after):
    assert expect(TRAIN.format(before=before, after=after))


@pytest.mark.parametrize("before, after", [
    ("pass", "total += loss.item()"),
    ("pass", "total += loss.detach()"),
    ("total = total + loss.item() * x.size(0)", "pass"),
    # a loss summed within one step, as a multi-task or a GAN's errD_real + errD_fake
    ("pass", "both = loss + F.l1_loss(model(x), y)"),
    ("pass", "both = loss * 2 + F.l1_loss(model(x), y)"),
])
def test_loss_accumulated_fixed(expect, before, after):
    expect(TRAIN.format(before=before, after=after))


def test_summing_micro_batches_then_one_backward_is_silent(expect):
    expect(MODEL + """
for step in range(3):
    opt.zero_grad()
    loss = 0
    for micro in range(4):
        loss = loss + F.mse_loss(model(x[micro::4]), y[micro::4])
    loss.backward()
    opt.step()
""")
