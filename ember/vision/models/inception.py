"""torchvision.models.inception (Inception v3, Szegedy et al., 2015): not implemented in ember;
the names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins
from ._api import UNAVAILABLE_MODELS

__all__ = ["Inception3", "InceptionOutputs", "_InceptionOutputs", "Inception_V3_Weights",
           "inception_v3"]
_INTERNAL = ["BasicConv2d", "InceptionA", "InceptionAux", "InceptionB", "InceptionC", "InceptionD",
             "InceptionE"]
_BUILDERS = ["inception_v3"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
