"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (2016) for large vocabularies.

Frequent classes (below cutoffs[0], the shortlist) are scored by the head layer directly.
The rest are split into clusters at the cutoffs; the head scores each cluster as a whole,
and a small tail network (a projection to in_features / div_value**(i+1) features, then
a linear layer) scores the classes inside cluster i. So

    log p(c) = log p_head(c)                                     for c in the shortlist,
    log p(c) = log p_head(cluster i) + log p_tail_i(c | cluster i)  otherwise.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Sequence

from ...ops.joining import cat
from ..._tensor import Tensor
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax for many classes: frequent classes (below the first cutoff) sit in a head,
    the rest in clusters of smaller projections; forward(input, target) returns (output, loss)."""
    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, size, bias=False, **factory)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection, output in self.tail:
            projection.reset_parameters()
            output.reset_parameters()

    def _check_shapes(self, input: Tensor, target: Tensor) -> None:
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input.size()}")
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def _check_targets(self, target: Tensor) -> None:
        if target.numel() and not bool(((target >= 0) & (target < self.n_classes)).all()):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """Log-probability of each target class, and the mean negative one as the loss."""
        self._check_shapes(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        self._check_targets(target)
        # cluster[j] = 0 for a shortlist target, i + 1 for a target in tail cluster i.
        cluster = sum((target >= c).long() for c in self.cutoffs[:-1])
        head_column = target.where(cluster == 0, cluster + (self.shortlist_size - 1))
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, head_column.unsqueeze(1)).squeeze(1)
        for i, tail in enumerate(self.tail):
            rows = (cluster == i + 1).nonzero().squeeze(1)
            if rows.numel() == 0:
                continue
            inside = (target[rows] - self.cutoffs[i]).unsqueeze(1)
            tail_logprob = F.log_softmax(tail(input[rows]), dim=1)
            output = output.index_add(0, rows, tail_logprob.gather(1, inside).squeeze(1))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, tail in enumerate(self.tail):
            cluster_logprob = head_logprob[:, self.shortlist_size + i].unsqueeze(1)
            parts.append(F.log_softmax(tail(input), dim=1) + cluster_logprob)
        return cat(parts, dim=1)

    def log_prob(self, input: Tensor) -> Tensor:
        """(N, n_classes) log-probabilities of every class."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row, as log_prob(input).argmax(dim=1); the tails
        run only for rows whose best head entry is a cluster."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        in_tail = output >= self.shortlist_size
        if bool(in_tail.any()):
            full = self._full_log_prob(input[in_tail], head_output[in_tail])
            output[in_tail] = full.argmax(dim=1)
        return output
