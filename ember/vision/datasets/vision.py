"""VisionDataset: the base of every ember.vision dataset (torchvision's, same repr)."""
from __future__ import annotations

import os
from typing import Any, Callable

from ...utils.data import Dataset


class VisionDataset(Dataset):
    """A dataset with a root folder and optional transforms.

    Pass either `transforms` (a callable on (input, target)) or `transform` and/or
    `target_transform` (callables on one of them), not both.
    """

    _repr_indent = 4

    def __init__(self, root: str | os.PathLike | None = None,
                 transforms: Callable | None = None, transform: Callable | None = None,
                 target_transform: Callable | None = None) -> None:
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        has_transforms = transforms is not None
        has_separate_transform = transform is not None or target_transform is not None
        if has_transforms and has_separate_transform:
            raise ValueError("Only transforms or transform/target_transform can be passed as "
                             "argument")
        self.transform = transform
        self.target_transform = target_transform
        if has_separate_transform:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def _apply_transforms(self, sample, target) -> tuple:
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def __repr__(self) -> str:
        head = "Dataset " + self.__class__.__name__
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body += [repr(self.transforms)]
        return "\n".join([head] + [" " * self._repr_indent + line for line in body])

    def extra_repr(self) -> str:
        return ""


def _format_transform_repr(transform: Callable, head: str) -> list:
    lines = repr(transform).splitlines()
    return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]


class StandardTransform:
    """Apply transform to the input and target_transform to the target."""

    def __init__(self, transform: Callable | None = None,
                 target_transform: Callable | None = None) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input: Any, target: Any) -> tuple:
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def __repr__(self) -> str:
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += _format_transform_repr(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += _format_transform_repr(self.target_transform, "Target transform: ")
        return "\n".join(body)
