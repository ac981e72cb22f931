"""torch.distributed.tensor: DTensor, a tensor laid over a device mesh. ember has none:
the names exist, so that libraries importing them (and testing `isinstance(t, DTensor)`,
which is False for every ember tensor) run, and making a DTensor or a mesh raises
NotImplementedError. The placements are real (placement_types.py)."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import device_mesh
from ..device_mesh import DeviceMesh, init_device_mesh, unsupported
from . import placement_types
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard",
           "device_mesh", "distribute_module", "distribute_tensor", "empty", "full",
           "init_device_mesh", "ones", "placement_types", "rand", "randn", "zeros"]


class DTensor(Tensor):
    """A tensor sharded or replicated over a device mesh; cannot be made in ember."""

    def __new__(cls, *args, **kwargs):
        unsupported("DTensor")

    @classmethod
    def from_local(cls, local_tensor, device_mesh=None, placements=None, **kwargs):
        unsupported("DTensor.from_local")


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    unsupported("distribute_tensor")


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None,
                      output_fn=None):
    unsupported("distribute_module")


def _factory(name: str):
    def make(*size, **kwargs):
        unsupported(f"torch.distributed.tensor.{name}")
    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"A DTensor made by {name}; not available in ember."
    return make


empty, full, ones, rand, randn, zeros = (_factory(n) for n in
                                         ("empty", "full", "ones", "rand", "randn", "zeros"))
