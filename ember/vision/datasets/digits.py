"""Digits: scikit-learn's bundled 8x8 handwritten digits (1,797 images), offline."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ..._tensor import Tensor
from .vision import VisionDataset

TEST_SIZE = 360  # of 1,797: the fixed split keeps 1,437 images for training


@functools.lru_cache(maxsize=1)
def _load() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:
        raise ImportError("Digits needs scikit-learn: pip install ember[vision]") from err
    bunch = load_digits()
    # A fixed permutation (NumPy's legacy RandomState is stable across versions), so the
    # train and test split are the same everywhere.
    order = np.random.RandomState(0).permutation(len(bunch.target))
    return bunch.images[order].astype(np.uint8), bunch.target[order].astype(np.int64)


class Digits(VisionDataset):
    """scikit-learn's load_digits as a dataset: `data` uint8 (N, 8, 8) with values 0..16,
    `targets` int64; items are (float32 tensor (1, 8, 8) in [0, 1], int) before the
    transforms. train=True gives 1,437 images, train=False the other 360 (a fixed split).

    The images ship with scikit-learn, so nothing is downloaded; root is unused.
    """

    classes = [str(i) for i in range(10)]

    def __init__(self, root: str | None = None, train: bool = True,
                 transform: Callable | None = None, target_transform: Callable | None = None,
                 download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        images, labels = _load()
        part = slice(None, -TEST_SIZE) if train else slice(-TEST_SIZE, None)
        self.data = Tensor._wrap(images[part].copy())
        self.targets = Tensor._wrap(labels[part].copy())

    @property
    def class_to_idx(self) -> dict:
        return {name: i for i, name in enumerate(self.classes)}

    def __getitem__(self, index: int) -> tuple:
        img = Tensor._wrap(self.data.numpy(force=True)[index][None].astype(np.float32) / 16)
        return self._apply_transforms(img, int(self.targets.numpy(force=True)[index]))

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"
