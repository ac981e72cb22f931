"""torch.backends.mha: the fast path of nn.MultiheadAttention and nn.TransformerEncoder.

ember always runs the reference computation, which is what torch runs with the fast path
disabled; the switch is kept and read back (torch's fast path can differ only at padded
positions, see nn/modules/transformer.py).
"""
from __future__ import annotations

_fastpath_enabled = [True]


def get_fastpath_enabled() -> bool:
    """Whether the fused inference fast path may be used."""
    return _fastpath_enabled[0]


def set_fastpath_enabled(value: bool) -> None:
    """Allow or forbid the fused inference fast path."""
    _fastpath_enabled[0] = value
