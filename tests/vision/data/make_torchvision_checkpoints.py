"""Write the small torchvision checkpoints tests/vision/test_checkpoints.py loads.

Each file holds a scaled-down torchvision model's state_dict, an input and the model's
eval-mode output on it, saved by real torch + torchvision (0.29.1 for the committed
files). ember must load the state_dict into its own class and give the same output,
which checks key names, shapes, buffer handling and the forward pass against
torchvision itself. Needs torch and torchvision: python make_torchvision_checkpoints.py
"""
import os

import torch
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.densenet import DenseNet
from torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
from torchvision.models.mobilenetv3 import InvertedResidualConfig, MobileNetV3
from torchvision.models.vision_transformer import VisionTransformer

HERE = os.path.dirname(os.path.abspath(__file__))


def tiny_models() -> dict:
    """The configurations; tests/vision/test_checkpoints.py builds the same ones."""
    return {
        "vit": lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                         num_heads=2, hidden_dim=16, mlp_dim=24,
                                         num_classes=5),
        "convnext": lambda: ConvNeXt([CNBlockConfig(8, 16, 1), CNBlockConfig(16, None, 2)],
                                     num_classes=5),
        "mobilenetv3": lambda: MobileNetV3(
            [InvertedResidualConfig(16, 3, 16, 16, True, "RE", 2, 1, 0.5),
             InvertedResidualConfig(16, 5, 48, 24, True, "HS", 2, 1, 0.5),
             InvertedResidualConfig(24, 3, 48, 24, False, "HS", 1, 1, 0.5)],
            last_channel=32, num_classes=5),
        "efficientnet": lambda: EfficientNet(
            [FusedMBConvConfig(1, 3, 1, 8, 8, 1), FusedMBConvConfig(2, 3, 2, 8, 16, 1),
             MBConvConfig(2, 3, 2, 16, 24, 2)], dropout=0.2, num_classes=5, last_channel=32),
        "densenet": lambda: DenseNet(growth_rate=4, block_config=(2, 2), num_init_features=8,
                                     bn_size=2, num_classes=5),
    }


def main() -> None:
    torch.manual_seed(0)
    for name, make in tiny_models().items():
        model = make()
        # give the norm layers non-trivial statistics and affine parameters
        model.train()
        with torch.no_grad():
            for _ in range(2):
                model(torch.randn(4, 3, 32, 32))
            for p in model.parameters():
                p.add_(torch.randn_like(p) * 0.05)
        model.eval()
        x = torch.randn(2, 3, 32, 32)
        with torch.no_grad():
            y = model(x)
        torch.save({"state_dict": model.state_dict(), "input": x, "output": y},
                   os.path.join(HERE, f"torchvision_{name}.pt"))


if __name__ == "__main__":
    main()
