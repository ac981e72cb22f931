"""FakeData: random images, the same image for the same index on every access."""
from __future__ import annotations

from typing import Callable

from ... import _random, manual_seed, randint, randn
from ..transforms import functional as F
from .vision import VisionDataset


class FakeData(VisionDataset):
    """`size` random PIL images of shape image_size (C, H, W) with random labels in
    [0, num_classes); index i is drawn from seed i + random_offset, leaving the global
    random state as it was."""

    def __init__(self, size: int = 1000, image_size: tuple = (3, 224, 224),
                 num_classes: int = 10, transform: Callable | None = None,
                 target_transform: Callable | None = None, random_offset: int = 0) -> None:
        super().__init__(transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index: int) -> tuple:
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        state = _random.get_rng_state()
        manual_seed(index + self.random_offset)
        img = randn(*self.image_size)
        target = randint(0, self.num_classes, size=(1,))[0]
        _random.set_rng_state(state)
        return self._apply_transforms(F.to_pil_image(img), int(target.item()))

    def __len__(self) -> int:
        return self.size
