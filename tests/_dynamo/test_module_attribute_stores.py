"""Tensors a compiled call keeps on its modules' attributes (karpathy/llama2.c's model sets
`self.last_loss` in forward and the training loop reads it back): the plan returns them
with the result and each replay sets them again, with their backward traced like the
result's. Any other change to a module's attributes still runs the call eagerly."""
import copy
import warnings

import numpy as np
import pytest

import ember

F = ember.nn.functional


class KeepsItsLoss(ember.nn.Module):
    """llama2.c's pattern: forward returns logits and keeps the loss on the model."""

    def __init__(self):
        super().__init__()
        self.body = ember.nn.Sequential(ember.nn.Linear(3, 8), ember.nn.Tanh(),
                                        ember.nn.Dropout(0.2), ember.nn.Linear(8, 4))
        self.last_loss = None

    def forward(self, x, targets=None):
        logits = self.body(x)
        if targets is not None:
            self.last_loss = F.cross_entropy(logits, targets)
        self.body[1].seen = logits.detach().abs().mean()     # a new attribute, on a child
        return logits


def _batches(n=6):
    rng = np.random.default_rng(0)
    return [(ember.tensor(rng.standard_normal((5, 3)).astype(np.float32)),
             ember.tensor(rng.integers(0, 4, 5))) for _ in range(n)]


def _train(model, forward, optimizer):
    losses = []
    for x, y in _batches():
        forward(x, y)
        loss = model.last_loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append((loss.item(), model.body[1].seen.item()))
    return losses


def test_kept_loss_trains_as_eager_and_replays():
    ember.manual_seed(0)
    eager_model = KeepsItsLoss()
    model = copy.deepcopy(eager_model)
    compiled = ember.compile(model)
    ember.manual_seed(1)
    expected = _train(eager_model, eager_model, ember.optim.AdamW(eager_model.parameters()))
    ember.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no graph break, no warning
        got = _train(model, compiled, ember.optim.AdamW(model.parameters()))
    assert got == expected
    for a, b in zip(model.parameters(), eager_model.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    entry, = compiled._compiled._entries
    assert entry.confirmed and entry.plan is not None
    assert sorted(name for _, name in entry.stores) == ["last_loss", "seen"]


def test_kept_tensor_is_the_replays_own():
    model = KeepsItsLoss().eval()
    compiled = ember.compile(model)
    with ember.no_grad():
        kept = []
        for x, y in _batches(4):
            compiled(x, y)
            kept.append(model.last_loss)
            expected = F.cross_entropy(model.body(x), y)
            assert model.last_loss.item() == expected.item()
    assert len({id(t) for t in kept}) == 4 and compiled._compiled._entries[0].confirmed


def test_other_attribute_changes_still_run_eagerly():
    class CountsToo(KeepsItsLoss):
        def forward(self, x, targets=None):
            self.calls = getattr(self, "calls", 0) + 1
            return super().forward(x, targets)

    class KeepsOutsideTensor(KeepsItsLoss):
        def forward(self, x, targets=None):
            self.last_input = x                 # an input, not made by the call
            return super().forward(x, targets)
    for cls in (CountsToo, KeepsOutsideTensor):
        model = cls()
        compiled = ember.compile(model)
        with ember.no_grad(), pytest.warns(UserWarning, match=f"changed attributes of {cls.__name__}"):
            for x, y in _batches(3):
                compiled(x, y)
        assert compiled._compiled._entries[0].plan is None
    assert model.last_input is x
