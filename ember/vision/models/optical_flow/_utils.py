"""torchvision.models.optical_flow._utils: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["grid_sample", "make_coords_grid", "upsample_flow"]
globals().update(stand_ins(__name__, _NAMES))
