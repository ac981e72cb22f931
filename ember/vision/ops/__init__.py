"""ember.vision.ops: torchvision.ops, the operators and layers torchvision's models are
built from: box utilities and NMS, RoIAlign, the focal and box-IoU losses, stochastic
depth, and the conv-norm-activation / MLP / squeeze-excitation layers. The operators
ember does not implement (deformable convolution, RoIPool, position-sensitive RoI ops,
the multi-scale RoI pooler, the feature pyramid network) import and raise
NotImplementedError naming themselves when used."""
from .misc import (MLP, Conv2dNormActivation, Conv3dNormActivation,  # noqa: F401
                   FrozenBatchNorm2d, Permute, SqueezeExcitation)
from .stochastic_depth import StochasticDepth, stochastic_depth  # noqa: F401
