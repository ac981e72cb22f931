"""torchvision.datasets._stereo_matching: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["StereoMatchingDataset", "CarlaStereo", "Kitti2012Stereo", "Kitti2015Stereo",
           "Middlebury2014Stereo", "CREStereo", "FallingThingsStereo", "SceneFlowStereo",
           "SintelStereo", "InStereo2k", "ETH3DStereo"]
globals().update(_unavailable.stand_ins(__name__, __all__))
