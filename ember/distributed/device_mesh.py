"""torch.distributed.device_mesh: ember has no device meshes (its process groups are MPI
communicators over plain tensors); the names exist, and making a mesh raises
NotImplementedError."""
from __future__ import annotations

__all__ = ["DeviceMesh", "init_device_mesh"]


def unsupported(what: str):
    raise NotImplementedError(f"{what}: ember.distributed has no DTensor or device meshes "
                              "(it runs collectives over MPI on plain tensors; data "
                              "parallelism: DistributedDataParallel)")


class DeviceMesh:
    """torch's n-dimensional arrangement of ranks; cannot be made in ember."""

    def __init__(self, device_type: str, mesh, *args, **kwargs):
        unsupported("DeviceMesh")


def init_device_mesh(device_type: str, mesh_shape: tuple, *, mesh_dim_names=None,
                     backend_override=None):
    unsupported("init_device_mesh")
