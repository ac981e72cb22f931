"""torchvision.ops.feature_pyramid_network: the feature pyramid network (Lin et al., 2017); not
implemented in ember. The names import and raise NotImplementedError naming themselves when
used."""
from .._unavailable import stand_ins

__all__ = ["FeaturePyramidNetwork", "ExtraFPNBlock", "LastLevelMaxPool", "LastLevelP6P7"]
globals().update(stand_ins(__name__, __all__))
