"""torch.ops.<namespace>.<name>: the custom operators registered with torch.library.

This module only keeps the table; ember.library defines the operators and adds them here.
"""
from __future__ import annotations

_NAMESPACES: dict = {}


class OpNamespace:
    """torch.ops.<namespace>: its custom operators as attributes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._ops: dict = {}

    def __getattr__(self, op: str):
        try:
            return self.__dict__["_ops"][op]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{op}'") from None

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"


def namespace(name: str) -> OpNamespace:
    """torch.ops.<name>, made on first use as torch's are."""
    if name not in _NAMESPACES:
        _NAMESPACES[name] = OpNamespace(name)
    return _NAMESPACES[name]


def register(qualname: str, op) -> None:
    """Make `op` reachable as torch.ops.<ns>.<name> for qualname 'ns::name'."""
    ns, name = qualname.split("::")
    namespace(ns)._ops[name] = op


def lookup(qualname: str):
    """The op registered as 'ns::name' (AttributeError as torch's when there is none)."""
    ns, name = qualname.split("::")
    return getattr(namespace(ns), name)
