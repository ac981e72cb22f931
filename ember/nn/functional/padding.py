"""F.pad. The op itself lives in ops/padding.py, below nn, since torch.fft and
torch.stft pad too."""
from ..._naming import set_public_module
from ...ops.padding import pad

__all__ = ["pad"]

set_public_module("ember.nn.functional", pad)    # torch.nn.functional.pad, as torch names it
