"""MNIST, FashionMNIST and KMNIST from their IDX files (raw or .gz) under
root/<ClassName>/raw/, as torchvision lays them out."""
from __future__ import annotations

import gzip
import os
import warnings
from typing import Callable

import numpy as np

from ..._tensor import Tensor
from .._pil import pil_image
from .utils import no_download, not_found
from .vision import VisionDataset
from .. import _unavailable

# IDX ("SN3 pascalvincent") element types, stored big-endian
_SN3_TYPES = {8: np.uint8, 9: np.int8, 11: np.int16, 12: np.int32, 13: np.float32,
              14: np.float64}


def read_sn3_pascalvincent_tensor(path: str) -> Tensor:
    """Read an IDX file (gzip-compressed when its name ends in .gz) as a tensor."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    ndim, type_code = magic % 256, magic // 256
    if not (1 <= ndim <= 3 and type_code in _SN3_TYPES):
        raise ValueError(f"{path} is not an IDX file (magic number {magic})")
    shape = [int.from_bytes(data[4 * (i + 1):4 * (i + 2)], "big") for i in range(ndim)]
    big_endian = np.dtype(_SN3_TYPES[type_code]).newbyteorder(">")
    array = np.frombuffer(data, dtype=big_endian, offset=4 * (ndim + 1))
    if array.size != int(np.prod(shape)):
        raise ValueError(f"{path} holds {array.size} values, its header says {shape}")
    return Tensor._wrap(array.astype(_SN3_TYPES[type_code]).reshape(shape))


def read_label_file(path: str) -> Tensor:
    x = read_sn3_pascalvincent_tensor(path)
    if x.dtype.numpy != np.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"x should have 1 dimension instead of {x.ndim}")
    return Tensor._wrap(x.numpy().astype(np.int64))


def read_image_file(path: str) -> Tensor:
    x = read_sn3_pascalvincent_tensor(path)
    if x.dtype.numpy != np.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndim != 3:
        raise ValueError(f"x should have 3 dimension instead of {x.ndim}")
    return x


class MNIST(VisionDataset):
    """Handwritten digits: `data` uint8 (N, 28, 28), `targets` int64 (N,); items are
    (PIL image of mode 'L', int label) before the transforms.

    Place train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
    t10k-labels-idx1-ubyte (or the same names with .gz) under root/MNIST/raw/.
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/",
               "http://yann.lecun.com/exdb/mnist/"]
    resources = [("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
                 ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
                 ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
                 ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")]
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five",
               "6 - six", "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root: str, train: bool = True, transform: Callable | None = None,
                 target_transform: Callable | None = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if not self._check_exists():
            names = [name for name, _ in self.resources]
            files = [os.path.splitext(name)[0] + "[.gz]" for name in names]
            if download:
                raise no_download(self.__class__.__name__, self.raw_folder, files,
                                  [self.mirrors[0] + name for name in names])
            raise not_found("Dataset not found. You can use download=True to download it",
                            self.raw_folder, files)
        self.data, self.targets = self._load_data()

    # the pre-0.2.2 names, still read by old tutorials; each warns with its new name
    @property
    def train_data(self) -> Tensor:
        warnings.warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self) -> Tensor:
        warnings.warn("test_data has been renamed data")
        return self.data

    @property
    def train_labels(self) -> Tensor:
        warnings.warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self) -> Tensor:
        warnings.warn("test_labels has been renamed targets")
        return self.targets

    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self) -> dict:
        return {name: i for i, name in enumerate(self.classes)}

    def _find(self, stem: str) -> str | None:
        """The path of raw file `stem`, uncompressed or .gz, or None."""
        for name in (stem, stem + ".gz"):
            path = os.path.join(self.raw_folder, name)
            if os.path.isfile(path):
                return path
        return None

    def _check_exists(self) -> bool:
        return all(self._find(os.path.splitext(name)[0]) for name, _ in self.resources)

    def _load_data(self) -> tuple:
        split = "train" if self.train else "t10k"
        data = read_image_file(self._find(f"{split}-images-idx3-ubyte"))
        targets = read_label_file(self._find(f"{split}-labels-idx1-ubyte"))
        return data, targets

    def __getitem__(self, index: int) -> tuple:
        img = pil_image().fromarray(self.data.numpy(force=True)[index])
        return self._apply_transforms(img, int(self.targets.numpy(force=True)[index]))

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Zalando's clothing images in MNIST's format, under root/FashionMNIST/raw/."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
                 ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
                 ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
                 ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310")]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji (cursive Japanese) characters in MNIST's format, under root/KMNIST/raw/."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
                 ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
                 ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
                 ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134")]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["EMNIST", "QMNIST", "get_int"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
