"""ember.vision.models: torchvision's classification models with the same builders,
`*_Weights` enums, state_dict keys, parameter shapes and initialisation, so torchvision
checkpoints load. Pretrained weights are read from the hub cache and never downloaded
(see _api). torchvision's other models (detection, segmentation, video, optical flow,
quantization, and the classification families ember lacks) are importable and raise
NotImplementedError naming the model."""
from . import detection, optical_flow, quantization, segmentation, video  # noqa: F401
from ._api import (Weights, WeightsEnum, get_model, get_model_builder,  # noqa: F401
                   get_model_weights, get_weight, list_models)
from .alexnet import *  # noqa: F401,F403
from .convnext import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .efficientnet import *  # noqa: F401,F403
from .googlenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .maxvit import *  # noqa: F401,F403
from .mnasnet import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .regnet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .shufflenetv2 import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .swin_transformer import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .vision_transformer import *  # noqa: F401,F403
