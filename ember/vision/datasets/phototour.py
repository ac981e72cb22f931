"""torchvision.datasets.phototour: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["PhotoTour", "read_image_file", "read_info_file", "read_matches_files"]
globals().update(_unavailable.stand_ins(__name__, __all__))
