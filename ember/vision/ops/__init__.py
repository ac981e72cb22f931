"""ember.vision.ops: the building blocks torchvision's models share."""
from .misc import (Conv2dNormActivation, SqueezeExcitation,  # noqa: F401
                   StochasticDepth, stochastic_depth)
