"""torch.layout objects. Every ember tensor is strided (a NumPy array); the sparse and
other layouts exist as names so code can mention them, and factories refuse them."""
from __future__ import annotations


class layout:
    """The memory layout of a tensor (strided for dense tensors, sparse_coo ...); its instances are
    the constants ember.strided, ember.sparse_coo and friends."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
_mkldnn = layout("_mkldnn")
jagged = layout("jagged")


def check_layout(value, function: str) -> None:
    """Factories make strided tensors only: another layout is refused, never ignored."""
    if value is not None and value is not strided:
        raise NotImplementedError(f"{function}: layout={value} is not supported by ember "
                                  "(every ember tensor is strided)")
