"""torchvision._utils: not implemented in ember; the names import and raise NotImplementedError
naming themselves when used."""
from . import _unavailable

__all__ = ["StrEnumMeta", "StrEnum", "sequence_to_str"]
globals().update(_unavailable.stand_ins(__name__, __all__))
