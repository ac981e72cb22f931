"""torch.storage: the storage classes under their public module (the classes themselves
are in _storage.py)."""
from ._storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
