"""DropBlock (Ghiasi et al., 2018), torchvision.ops.drop_block: dropout of contiguous
block_size^d regions of a feature map, for convolutional networks."""
from __future__ import annotations

from ... import empty, nn
from ..._tensor import Tensor
from ...nn import functional as F

__all__ = ["drop_block2d", "drop_block3d", "DropBlock2d", "DropBlock3d"]


def _drop_block(input: Tensor, p: float, block_size: int, inplace: bool, eps: float,
                training: bool, dims: int) -> Tensor:
    """Zero blocks whose centres are drawn so that about a fraction p of the map is
    dropped, then rescale by (elements / elements kept)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.ndim != dims + 2:
        raise ValueError(f"input should be {dims + 2} dimensional. Got {input.ndim} "
                         "dimensions.")
    if not training or p == 0.0:
        return input
    sizes = input.shape[2:]
    block_size = min(block_size, *sizes)
    if block_size % 2 == 0:
        raise ValueError(f"block size should be odd. Got {block_size} which is even.")
    valid = [s - block_size + 1 for s in sizes]  # where a whole block fits
    gamma = p
    for size, fits in zip(sizes, valid):
        gamma *= size / (block_size * fits)
    noise = empty((*input.shape[:2], *valid), dtype=input.dtype).bernoulli_(gamma)
    noise = F.pad(noise, [block_size // 2] * (2 * dims), value=0)
    pool = F.max_pool2d if dims == 2 else F.max_pool3d
    noise = 1 - pool(noise, stride=1, kernel_size=block_size, padding=block_size // 2)
    scale = noise.numel() / (eps + noise.sum())
    if inplace:
        return input.mul_(noise).mul_(scale)
    return input * noise * scale


def drop_block2d(input: Tensor, p: float, block_size: int, inplace: bool = False,
                 eps: float = 1e-06, training: bool = True) -> Tensor:
    """DropBlock on (N, C, H, W) input."""
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input: Tensor, p: float, block_size: int, inplace: bool = False,
                 eps: float = 1e-06, training: bool = True) -> Tensor:
    """DropBlock on (N, C, D, H, W) input."""
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(nn.Module):
    """Module form of drop_block2d, active in training mode only."""

    def __init__(self, p: float, block_size: int, inplace: bool = False,
                 eps: float = 1e-06) -> None:
        super().__init__()
        self.p = p
        self.block_size = block_size
        self.inplace = inplace
        self.eps = eps

    def forward(self, input: Tensor) -> Tensor:
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps,
                            self.training)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(p={self.p}, block_size={self.block_size}, "
                f"inplace={self.inplace})")


class DropBlock3d(DropBlock2d):
    """Module form of drop_block3d."""

    def forward(self, input: Tensor) -> Tensor:
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps,
                            self.training)
