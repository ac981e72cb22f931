"""torchvision.datasets.imagenet: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["ImageNet", "load_meta_file", "parse_devkit_archive", "parse_train_archive",
           "parse_val_archive"]
globals().update(_unavailable.stand_ins(__name__, __all__))
