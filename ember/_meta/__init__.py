"""The meta device's data-less arrays (see _array.py). A meta tensor is a Tensor whose storage
is a MetaArray; everything else about it is an ordinary Tensor."""
from ._array import MetaArray, MetaUnsupported, as_storage

__all__ = ["MetaArray", "MetaUnsupported", "as_storage"]
