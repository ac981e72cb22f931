"""torchvision.models.googlenet (GoogLeNet, Szegedy et al., 2014): not implemented in ember;
the names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins
from ._api import UNAVAILABLE_MODELS

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "_GoogLeNetOutputs", "GoogLeNet_Weights", "googlenet"]
_INTERNAL = ["BasicConv2d", "Inception", "InceptionAux"]
_BUILDERS = ["googlenet"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
