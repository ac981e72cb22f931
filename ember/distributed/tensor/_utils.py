"""torch.distributed.tensor._utils: the helper libraries import from it."""
from ..device_mesh import unsupported


def compute_local_shape_and_global_offset(global_shape, mesh, placements, *args, **kwargs):
    unsupported("compute_local_shape_and_global_offset")
