"""torch.jit.annotations: the type names TorchScript code imports for its signatures.

Eagerly they are typing's own (`from torch.jit.annotations import List` is typing.List);
BroadcastingList1..6[T] (an argument given as one T or a list of them) mean nothing at run
time, as in torch.
"""
from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401  (re-exported)

from ..futures import Future  # noqa: F401  (torch.jit.annotations.Future)


class _BroadcastingList:
    """Subscriptable placeholder: BroadcastingList2[int] is a TorchScript-only hint."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingList()
BroadcastingList4 = BroadcastingList5 = BroadcastingList6 = BroadcastingList1
