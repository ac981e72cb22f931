"""torchvision.datasets._optical_flow: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["FlowDataset", "Sintel", "KittiFlow", "FlyingChairs", "FlyingThings3D", "HD1K"]
globals().update(_unavailable.stand_ins(__name__, __all__))
