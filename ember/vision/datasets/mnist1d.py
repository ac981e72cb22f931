"""MNIST-1D (Greydanus, 2020): 1-D signals of the ten digits, generated offline."""
from __future__ import annotations

import functools
import random
from typing import Callable

import numpy as np

from ..._tensor import Tensor
from .vision import VisionDataset


@functools.lru_cache(maxsize=1)
def _generate() -> dict:
    try:
        from mnist1d.data import get_dataset_args, make_dataset
    except ImportError as err:
        raise ImportError("MNIST1D needs the mnist1d package: pip install ember[vision]") \
            from err
    # The generator reseeds NumPy's and Python's global generators: restore them after.
    np_state, py_state = np.random.get_state(), random.getstate()
    try:
        return make_dataset(get_dataset_args())
    finally:
        np.random.set_state(np_state)
        random.setstate(py_state)


class MNIST1D(VisionDataset):
    """The mnist1d package's dataset with its default arguments (seed 42): 4,000 training
    and 1,000 test signals of length 40. `data` float32 (N, 40), `targets` int64; items
    are (float32 tensor (1, 40), int) before the transforms.

    The signals are generated on first use (about a second) and kept for the process;
    root is unused.
    """

    classes = [str(i) for i in range(10)]

    def __init__(self, root: str | None = None, train: bool = True,
                 transform: Callable | None = None, target_transform: Callable | None = None,
                 download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        generated = _generate()
        x, y = (generated["x"], generated["y"]) if train else \
            (generated["x_test"], generated["y_test"])
        self.data = Tensor._wrap(x.astype(np.float32))
        self.targets = Tensor._wrap(y.astype(np.int64))

    @property
    def class_to_idx(self) -> dict:
        return {name: i for i, name in enumerate(self.classes)}

    def __getitem__(self, index: int) -> tuple:
        signal = Tensor._wrap(self.data.numpy(force=True)[index][None].copy())
        return self._apply_transforms(signal, int(self.targets.numpy(force=True)[index]))

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"
