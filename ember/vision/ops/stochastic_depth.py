"""Stochastic depth (Huang et al., 2016): randomly drop whole residual branches while
training (torchvision.ops.stochastic_depth)."""
from __future__ import annotations

from ... import empty, nn
from ..._tensor import Tensor

__all__ = ["stochastic_depth", "StochasticDepth"]


def stochastic_depth(input: Tensor, p: float, mode: str, training: bool = True) -> Tensor:
    """Zero the input with probability p ("row": each sample on its own, "batch": the
    whole batch at once), scaling the survivors by 1 / (1 - p); identity when not
    training or p is 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ("batch", "row"):
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = empty(size, dtype=input.dtype).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise = noise / survival_rate
    return input * noise


class StochasticDepth(nn.Module):
    """Module form of stochastic_depth, active in training mode only."""

    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input: Tensor) -> Tensor:
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
