"""torchvision.models.mnasnet (MNASNet, Tan et al., 2018): not implemented in ember; the names
import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins
from ._api import UNAVAILABLE_MODELS

__all__ = ["MNASNet", "MNASNet0_5_Weights", "MNASNet0_75_Weights", "MNASNet1_0_Weights",
           "MNASNet1_3_Weights", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]
_BUILDERS = ["mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]
globals().update(stand_ins(__name__, __all__, UNAVAILABLE_MODELS, _BUILDERS))
