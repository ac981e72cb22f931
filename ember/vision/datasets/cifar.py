"""CIFAR10 and CIFAR100 from their python pickle batches (root/cifar-10-batches-py,
root/cifar-100-python), as torchvision reads them."""
from __future__ import annotations

import os
import pickle
from typing import Callable

import numpy as np

from .._pil import pil_image
from .utils import no_download, not_found
from .vision import VisionDataset


class CIFAR10(VisionDataset):
    """32x32 colour images in 10 classes: `data` uint8 ndarray (N, 32, 32, 3), `targets` a
    list of ints, `classes` from batches.meta; items are (PIL RGB image, int)."""

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    train_list = ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4",
                  "data_batch_5"]
    test_list = ["test_batch"]
    meta = {"filename": "batches.meta", "key": "label_names"}

    def __init__(self, root: str, train: bool = True, transform: Callable | None = None,
                 target_transform: Callable | None = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        folder = os.path.join(self.root, self.base_folder)
        files = self.train_list + self.test_list + [self.meta["filename"]]
        if not all(os.path.isfile(os.path.join(folder, f)) for f in files):
            if download:
                raise no_download(self.__class__.__name__, folder, files, [self.url])
            raise not_found("Dataset not found or corrupted. You can use download=True to "
                            "download it", folder, files)
        data, self.targets = [], []
        for name in self.train_list if train else self.test_list:
            entry = self._unpickle(name)
            data.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        # rows are 3072 bytes: the red plane, then green, then blue -> (N, H, W, C)
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self.classes = self._unpickle(self.meta["filename"])[self.meta["key"]]
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}

    def _unpickle(self, name: str) -> dict:
        with open(os.path.join(self.root, self.base_folder, name), "rb") as f:
            return pickle.load(f, encoding="latin1")

    def __getitem__(self, index: int) -> tuple:
        img = pil_image().fromarray(self.data[index])
        return self._apply_transforms(img, self.targets[index])

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR with 100 fine classes (targets are the fine labels)."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    train_list = ["train"]
    test_list = ["test"]
    meta = {"filename": "meta", "key": "fine_label_names"}
