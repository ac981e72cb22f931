"""torch.distributed.tensor.placement_types: how a tensor is laid over a device mesh's
dimension -- Shard(dim) (split along dim), Replicate() (a full copy on each), Partial()
(pending a reduction). ember has no DTensor (see __init__.py); these descriptions exist
so that code naming and comparing them runs."""
from __future__ import annotations

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    """Base class of the placements."""

    def is_shard(self, dim: int | None = None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return False

    def _fields(self) -> tuple:
        return ()

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._fields()))


class Shard(Placement):
    """The tensor split along dimension `dim` across the mesh dimension."""

    def __init__(self, dim: int):
        self.dim = dim

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    def _fields(self) -> tuple:
        return (self.dim,)

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


class _StridedShard(Shard):
    """A shard of a shard: dim split again by `split_factor` (FSDP with tensor parallel)."""

    def __init__(self, dim: int, split_factor: int):
        super().__init__(dim)
        self.split_factor = split_factor

    def is_shard(self, dim: int | None = None) -> bool:
        return False            # (torch's answer: not a plain Shard)

    def _fields(self) -> tuple:
        return (self.dim, self.split_factor)

    def __repr__(self) -> str:
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self) -> str:
        return f"_S({self.dim}, {self.split_factor})"


class Replicate(Placement):
    """A full copy of the tensor on each device of the mesh dimension."""

    def is_replicate(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"


class Partial(Placement):
    """Partial values on each device, still to be reduced with `reduce_op`."""

    def __init__(self, reduce_op: str = "sum"):
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def _fields(self) -> tuple:
        return (self.reduce_op,)

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op})"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"
