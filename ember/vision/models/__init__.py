"""ember.vision.models: torchvision's classification models with the same constructors,
state_dict keys, parameter shapes and initialisation (so torchvision checkpoints load).
Pretrained weights are not downloaded: load a local file with
model.load_state_dict(ember.load(path))."""
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .efficientnet import *  # noqa: F401,F403
from .mobilenetv2 import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
