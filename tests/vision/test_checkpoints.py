"""Checkpoints written by real torchvision load into ember's models and give torchvision's
outputs. The files hold scaled-down configurations of each family (written by
data/make_torchvision_checkpoints.py with torch + torchvision 0.29.1, which cannot be
installed beside CPU torch here)."""
import os

import numpy as np
import pytest

import ember
from ember.vision.models.convnext import CNBlockConfig, ConvNeXt
from ember.vision.models.densenet import DenseNet, _rename_old_keys
from ember.vision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
from ember.vision.models.mobilenetv3 import InvertedResidualConfig, MobileNetV3
from ember.vision.models.vision_transformer import VisionTransformer, interpolate_embeddings

DATA = os.path.join(os.path.dirname(__file__), "data")

# the configurations of data/make_torchvision_checkpoints.py, built from ember's classes
TINY = {
    "vit": lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                     hidden_dim=16, mlp_dim=24, num_classes=5),
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


def recorded(name):
    return ember.load(os.path.join(DATA, f"torchvision_{name}.pt"))


@pytest.mark.parametrize("name", sorted(TINY))
def test_torchvision_checkpoint_loads_and_matches(name):
    saved = recorded(name)
    model = TINY[name]()
    assert list(model.state_dict()) == list(saved["state_dict"])
    model.load_state_dict(saved["state_dict"])
    model.eval()
    with ember.no_grad():
        out = model(saved["input"])
    np.testing.assert_allclose(out.numpy(), saved["output"].numpy(), rtol=1e-4, atol=1e-5)


def test_densenet_old_checkpoint_keys_are_renamed():
    # the published DenseNet files name a layer's parameters "norm.1.weight"
    state = recorded("densenet")["state_dict"]
    old = {k if k.endswith("num_batches_tracked") else
           k.replace("norm1", "norm.1").replace("conv2", "conv.2"): v for k, v in state.items()}
    assert "features.denseblock1.denselayer1.norm.1.weight" in old
    renamed = _rename_old_keys(old)
    assert list(renamed) == list(state)
    assert _rename_old_keys({"features.norm5.weight": 1}) == {"features.norm5.weight": 1}


def test_vit_mlp_block_loads_version_1_keys():
    # before version 2 the MLP's linears were mlp.linear_1 / mlp.linear_2
    state = recorded("vit")["state_dict"]
    old = {k.replace("mlp.0.", "mlp.linear_1.").replace("mlp.3.", "mlp.linear_2."): v
           for k, v in state.items()}
    assert "encoder.layers.encoder_layer_0.mlp.linear_1.weight" in old
    model = TINY["vit"]()
    model.load_state_dict(old)  # no metadata: version None, the keys are renamed
    np.testing.assert_array_equal(model.encoder.layers[0].mlp[3].bias.detach().numpy(),
                                  state["encoder.layers.encoder_layer_0.mlp.3.bias"].numpy())


def test_vit_interpolate_embeddings_matches_torch():
    import torch
    state = recorded("vit")["state_dict"]  # 32x32 images, 8x8 patches: a 4x4 grid
    original = state["encoder.pos_embedding"].numpy()
    resized = interpolate_embeddings(48, 8, dict(state), reset_heads=True)
    grid = torch.from_numpy(original[:, 1:]).permute(0, 2, 1).reshape(1, 16, 4, 4)
    expected = torch.nn.functional.interpolate(grid, size=6, mode="bicubic", align_corners=True)
    expected = expected.reshape(1, 16, 36).permute(0, 2, 1)
    got = resized["encoder.pos_embedding"].numpy()
    np.testing.assert_allclose(got[:, 1:], expected.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[:, :1], original[:, :1])
    assert not [k for k in resized if k.startswith("heads")]
    model = VisionTransformer(image_size=48, patch_size=8, num_layers=2, num_heads=2,
                              hidden_dim=16, mlp_dim=24, num_classes=5)
    model.load_state_dict(resized, strict=False)
    assert interpolate_embeddings(32, 8, state) is state  # same size: unchanged
