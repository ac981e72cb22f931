"""torch.distributed._functional_collectives: the functional (out-of-place, traceable)
collectives. ember's collectives complete when they return, so waiting is the identity;
the autograd-aware all-to-all is not available."""
from __future__ import annotations

from .device_mesh import unsupported

__all__ = ["wait_tensor", "all_to_all_single_autograd"]


def wait_tensor(tensor):
    """The result of an asynchronous functional collective, once done: ember's are done."""
    return tensor


def all_to_all_single_autograd(input, output_split_sizes, input_split_sizes, group, tag=""):
    unsupported("all_to_all_single_autograd")
