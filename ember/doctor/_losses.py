"""Checks that watch the inputs of loss functions: softmax-into-cross-entropy,
sigmoid-into-bce-with-logits, broadcast-loss-shape.

What produced a loss's input is read from its grad_fn, looking through ops that only
reshape (view, squeeze, permute, ...). An input without history (under no_grad) tells
nothing about where it came from, and the graph checks stay silent on it.
"""
from __future__ import annotations

SOFTMAX_INTO_CROSS_ENTROPY = (
    "the input of cross_entropy was produced by {op}, but cross_entropy applies log_softmax "
    "itself, so softmax is applied twice — pass the raw scores (logits), or use nll_loss on "
    "log_softmax outputs")
SCORES_INTO_NLL = (
    "the input of nll_loss has positive values, so it is not log-probabilities (nll_loss "
    "expects log_softmax outputs) — apply log_softmax first, or use cross_entropy on the raw "
    "scores")
SIGMOID_INTO_BCE_WITH_LOGITS = (
    "the input of binary_cross_entropy_with_logits was produced by sigmoid, but the loss "
    "applies sigmoid itself — pass the raw scores (logits), or use binary_cross_entropy on "
    "sigmoid outputs")
BROADCAST_LOSS_SHAPE = (
    "{loss} got input of shape {input} and target of shape {target}, which broadcast to "
    "{result}, so every input is compared with every target — give both the same shape "
    "(e.g. input.squeeze(-1) or target.view_as(input))")

# grad_fn names of ops that only rearrange values: the producer lies behind them
_RESHAPING = ("View", "Reshape", "Squeeze", "Unsqueeze", "Permute", "Transpose", "TBackward",
              "Clone", "Expand", "Flatten", "Unflatten")
_SOFTMAXES = {"SoftmaxBackward0": "softmax", "LogSoftmaxBackward0": "log_softmax"}
# log-probabilities are <= 0; this much above 0 is beyond float32 rounding of log_softmax
_LOG_PROB_SLACK = 1e-4


def producer(tensor) -> str | None:
    """The grad_fn name of the op that made `tensor`'s values, behind reshaping ops; None
    when it has no history."""
    node = tensor.grad_fn
    while node is not None:
        name = node.name()
        if not name.startswith(_RESHAPING):
            return name
        edges = [fn for fn, _ in node.next_functions if fn is not None]
        node = edges[0] if len(edges) == 1 else None
    return None


class LossChecks:
    """The checks at the entry of the loss functions."""

    def __init__(self, doctor):
        self.doctor = doctor

    def cross_entropy(self, input) -> None:
        op = _SOFTMAXES.get(producer(input))
        if op is not None:
            self.doctor.report.add("softmax-into-cross-entropy",
                                   SOFTMAX_INTO_CROSS_ENTROPY.format(op=op))

    def nll_loss(self, input) -> None:
        """Raw scores or probabilities: any clearly positive value. Only judged on inputs
        with history, as the other checks of the training graph."""
        if input.grad_fn is None or producer(input) == "LogSoftmaxBackward0":
            return
        if input.numel() and float(input.detach().max()) > _LOG_PROB_SLACK:
            self.doctor.report.add("softmax-into-cross-entropy", SCORES_INTO_NLL)

    def bce_with_logits(self, input) -> None:
        if producer(input) == "SigmoidBackward0":
            self.doctor.report.add("sigmoid-into-bce-with-logits", SIGMOID_INTO_BCE_WITH_LOGITS)

    def regression(self, name: str, input, target) -> None:
        """A regression loss whose input and target broadcast to more elements than either
        has, e.g. (N, 1) against (N,) -> (N, N). A target that only broadcasts up to the
        input (a constant, one row for every sample) is left alone."""
        a, b = tuple(input.shape), tuple(target.shape)
        if a == b:
            return
        shape = []
        for i in range(1, max(len(a), len(b)) + 1):
            x = a[-i] if i <= len(a) else 1
            y = b[-i] if i <= len(b) else 1
            if x != y and 1 not in (x, y):
                return      # they do not broadcast: the loss raises torch's error
            shape.insert(0, x if y == 1 else y)
        if _numel(shape) > max(_numel(a), _numel(b)):
            self.doctor.report.add("broadcast-loss-shape", BROADCAST_LOSS_SHAPE.format(
                loss=name, input=a, target=b, result=tuple(shape)))


def _numel(shape) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
