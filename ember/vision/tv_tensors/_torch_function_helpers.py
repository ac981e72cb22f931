"""torchvision.tv_tensors._torch_function_helpers: not implemented in ember; the names import
and raise NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["set_return_type"]
globals().update(_unavailable.stand_ins(__name__, __all__))
