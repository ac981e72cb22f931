"""Composing v2 transforms (torchvision.transforms.v2._container): in sequence, with a
probability, one picked at random, or all in a random order. Each takes and returns a
whole sample."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from .... import multinomial, rand, randperm, tensor
from ....nn import ModuleList
from ._transform import Transform

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder"]


def _run(transforms: Sequence[Callable], inputs: tuple) -> Any:
    """Feed the sample through the transforms; several inputs travel as a tuple."""
    unpack = len(inputs) > 1
    outputs = inputs if unpack else inputs[0]
    for transform in transforms:
        outputs = transform(*inputs)
        inputs = outputs if unpack else (outputs,)
    return outputs


def _list_repr(transforms) -> str:
    return "\n".join(f"    {t}" for t in transforms)


class Compose(Transform):
    """Apply the transforms one after the other."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        super().__init__()
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        if not transforms:
            raise ValueError("Pass at least one transform")
        self.transforms = transforms

    def forward(self, *inputs: Any) -> Any:
        return _run(self.transforms, inputs)

    def extra_repr(self) -> str:
        return _list_repr(self.transforms)


class RandomApply(Transform):
    """Apply all the transforms with probability p, or none of them."""

    def __init__(self, transforms, p: float = 0.5) -> None:
        super().__init__()
        if not isinstance(transforms, (Sequence, ModuleList)):
            raise TypeError("Argument transforms should be a sequence of callables or a "
                            "`nn.ModuleList`")
        self.transforms = transforms
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def forward(self, *inputs: Any) -> Any:
        if rand(1).item() >= self.p:
            return inputs if len(inputs) > 1 else inputs[0]
        return _run(self.transforms, inputs)

    def extra_repr(self) -> str:
        return _list_repr(self.transforms)


class RandomChoice(Transform):
    """Apply one of the transforms, picked with the (normalised) probabilities p."""

    def __init__(self, transforms: Sequence[Callable], p: list | None = None) -> None:
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != "
                             f"{len(transforms)}")
        super().__init__()
        self.transforms = transforms
        total = sum(p)
        self.p = [prob / total for prob in p]

    def forward(self, *inputs: Any) -> Any:
        index = int(multinomial(tensor(self.p), 1).item())
        return self.transforms[index](*inputs)


class RandomOrder(Transform):
    """Apply all the transforms, in a random order."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence of callables")
        super().__init__()
        self.transforms = transforms

    def forward(self, *inputs: Any) -> Any:
        order = randperm(len(self.transforms)).tolist()
        return _run([self.transforms[i] for i in order], inputs)
