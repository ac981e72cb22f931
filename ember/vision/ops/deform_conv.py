"""torchvision.ops.deform_conv: deformable convolution (Dai et al., 2017); not implemented in
ember. The names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins

__all__ = ["deform_conv2d", "DeformConv2d"]
globals().update(stand_ins(__name__, __all__))
