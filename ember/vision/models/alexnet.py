"""AlexNet (Krizhevsky et al., 2012) in torchvision's single-tower form."""
from __future__ import annotations

from ... import flatten, nn
from ..._tensor import Tensor
from ._api import WeightsEnum, register_model
from ._utils import REFERENCES, build, handle_legacy_interface, imagenet_weights

__all__ = ["AlexNet", "AlexNet_Weights", "alexnet"]


class AlexNet(nn.Module):
    def __init__(self, num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes))

    def forward(self, x: Tensor) -> Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(flatten(x, 1))


class AlexNet_Weights(WeightsEnum):
    """Pretrained weights for alexnet."""

    IMAGENET1K_V1 = imagenet_weights(
        "alexnet-owt-7be5be79.pth", num_params=61_100_840, acc=(56.522, 79.066), ops=0.714,
        file_size=233.087, recipe=f"{REFERENCES}#alexnet-and-vgg",
        docs=("These weights reproduce closely the results of the paper using a simplified "
              "training recipe."),
        min_size=(63, 63))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", AlexNet_Weights.IMAGENET1K_V1))
def alexnet(*, weights: AlexNet_Weights | None = None, progress: bool = True,
            **kwargs) -> AlexNet:
    """AlexNet (Krizhevsky et al., 2012), torchvision's variant; weights: AlexNet_Weights."""
    weights = AlexNet_Weights.verify(weights)
    return build(AlexNet, weights, progress, kwargs)
