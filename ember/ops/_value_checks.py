"""Validations that read a tensor's values (indices in range, class targets, a variance's
sign), written so that compiled plans run them too.

compile records ops and replays them; Python around the ops runs only when a call is
traced. A check written inline would therefore test the traced call's values only, and a
replay with an index out of range would index NumPy arrays silently (a negative index
wraps around) or fail with NumPy's message. `check_values` hands a tensor's check to
compile's tracer as a replayed call, which a plan runs again on each call's values.
"""
from __future__ import annotations

import numpy as np

from .._recorded_call import replayed_call
from .._tensor import Tensor


def check_values(check, values, *args) -> None:
    """check(array, *args) on the values of `values` (a Tensor, array or list); raises
    what check raises."""
    if isinstance(values, Tensor):
        _check_tensor(check, values, *args)
    else:
        check(np.asarray(values), *args)


@replayed_call
def _check_tensor(check, tensor: Tensor, *args) -> None:
    if not tensor.is_meta:              # a meta tensor has no values to check
        check(tensor.numpy(force=True), *args)
