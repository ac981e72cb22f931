"""Argument helpers that torch.nn's layers share and third-party layers import from here
(`from torch.nn.modules.utils import _pair`)."""
from __future__ import annotations

import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    """A parser turning a scalar into an n-tuple of it, and any iterable into a tuple."""
    def parse(x) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """`t` reversed, each element repeated n times: a conv's padding (ph, pw) becomes
    F.pad's (pw, pw, ph, ph), which starts from the last dimension."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """An adaptive pool's output size with each None replaced by the input's own size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip `prefix` from the keys of `state_dict` in place (and from its `_metadata`),
    e.g. the "module." a DataParallel/DDP model adds, so a plain model can load it."""
    for key in list(state_dict):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata):
        # '' is the wrapper's own entry; 'module' the wrapped model; 'module.x' the rest.
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            metadata[key[len(prefix):]] = metadata.pop(key)
