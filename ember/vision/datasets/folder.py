"""DatasetFolder and ImageFolder: one sub-folder per class (root/<class>/<file>)."""
from __future__ import annotations

import os
from typing import Any, Callable

from .._pil import pil_image
from .vision import VisionDataset
from .. import _unavailable

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions: str | tuple) -> bool:
    return filename.lower().endswith(extensions if isinstance(extensions, str)
                                     else tuple(extensions))


def is_image_file(filename: str) -> bool:
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory: str | os.PathLike) -> tuple[list, dict]:
    """The sorted sub-folder names of directory and their indices."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory: str | os.PathLike, class_to_idx: dict | None = None,
                 extensions: str | tuple | None = None,
                 is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False) -> list:
    """(path, class_index) for every valid file, classes and files in sorted order."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any "
                         "samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the "
                         "same time")
    if extensions is not None:
        def is_valid_file(path: str) -> bool:
            return has_file_allowed_extension(path, extensions)

    instances, found = [], set()
    for target_class in sorted(class_to_idx):
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_to_idx[target_class]))
                    found.add(target_class)
    empty = set(class_to_idx) - found
    if empty and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            listed = extensions if isinstance(extensions, str) else ", ".join(extensions)
            msg += f"Supported extensions are: {listed}"
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """Samples root/<class>/**/<file> read by `loader`; `classes` sorted, `class_to_idx`,
    `samples` (path, index) and `targets`."""

    def __init__(self, root: str | os.PathLike, loader: Callable[[str], Any],
                 extensions: tuple | None = None, transform: Callable | None = None,
                 target_transform: Callable | None = None,
                 is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx=class_to_idx,
                                    extensions=extensions, is_valid_file=is_valid_file,
                                    allow_empty=allow_empty)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory: str | os.PathLike, class_to_idx: dict,
                     extensions: tuple | None = None,
                     is_valid_file: Callable[[str], bool] | None = None,
                     allow_empty: bool = False) -> list:
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty)

    def find_classes(self, directory: str | os.PathLike) -> tuple[list, dict]:
        return find_classes(directory)

    def __getitem__(self, index: int) -> tuple:
        path, target = self.samples[index]
        return self._apply_transforms(self.loader(path), target)

    def __len__(self) -> int:
        return len(self.samples)


def pil_loader(path: str):
    with open(path, "rb") as f:
        return pil_image().open(f).convert("RGB")


def default_loader(path: str):
    return pil_loader(path)


class ImageFolder(DatasetFolder):
    """A DatasetFolder of images (IMG_EXTENSIONS) loaded as RGB PIL images; `imgs` is an
    alias of `samples`."""

    def __init__(self, root: str | os.PathLike, transform: Callable | None = None,
                 target_transform: Callable | None = None,
                 loader: Callable[[str], Any] = default_loader,
                 is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False) -> None:
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None,
                         transform=transform, target_transform=target_transform,
                         is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["accimage_loader"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
