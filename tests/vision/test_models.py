"""ember.vision.models: torchvision's published parameter counts, state_dict key names,
initialisation schemes, reprs (checked against torch.nn's own module reprs) and a
forward/backward pass per family on small inputs."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.vision.models as M
from ember.vision.models.mobilenetv2 import InvertedResidual
from ember.vision.models.resnet import BasicBlock, Bottleneck
from ember.vision.ops import Conv2dNormActivation, StochasticDepth, stochastic_depth


def count(model):
    return sum(p.numel() for p in model.parameters())


def values(param):
    return param.detach().numpy()


# torchvision's documented parameter counts (meta["num_params"] of their weights)
@pytest.mark.parametrize("name,params", [
    ("resnet18", 11_689_512), ("resnet50", 25_557_032), ("resnext50_32x4d", 25_028_904),
    ("resnext101_64x4d", 83_455_272), ("wide_resnet50_2", 68_883_240),
    ("mobilenet_v2", 3_504_872), ("mobilenet_v3_large", 5_483_032),
    ("mobilenet_v3_small", 2_542_856), ("vit_b_16", 86_567_656), ("vit_b_32", 88_224_232),
    ("convnext_tiny", 28_589_128), ("convnext_small", 50_223_688),
    ("efficientnet_b0", 5_288_548), ("efficientnet_b3", 12_233_232),
    ("efficientnet_v2_s", 21_458_488), ("densenet121", 7_978_856),
    ("squeezenet1_1", 1_235_496), ("alexnet", 61_100_840), ("vgg16_bn", 138_365_992)])
def test_parameter_counts(fast_init, name, params):
    assert count(getattr(M, name)()) == params


def test_vgg_init_scheme_and_batch_norm_layers(monkeypatch):
    # record the init calls instead of drawing 132M random numbers
    calls = []
    for name in ("normal_", "kaiming_normal_", "constant_", "kaiming_uniform_", "uniform_"):
        monkeypatch.setattr(ember.nn.init, name,
                            lambda t, *a, _name=name, **k: calls.append((_name, tuple(t.shape),
                                                                         a, k)) or t)
    vgg11 = M.vgg11()
    assert ("normal_", (4096, 25088), (0, 0.01), {}) in calls
    assert ("constant_", (4096,), (0,), {}) in calls
    assert ("kaiming_normal_", (128, 64, 3, 3), (),
            {"mode": "fan_out", "nonlinearity": "relu"}) in calls
    assert "features.1.running_var" not in vgg11.state_dict()
    calls.clear()
    assert "features.1.running_var" in M.vgg11_bn(init_weights=False).state_dict()
    assert not [call for call in calls if call[0] in ("normal_", "kaiming_normal_")]


# state_dict entries of every builder, as torchvision 0.29.1's models have them
STATE_DICT_SIZES = {
    "alexnet": 16, "convnext_tiny": 182, "convnext_small": 344, "convnext_base": 344,
    "densenet121": 727, "densenet161": 967, "densenet169": 1015, "densenet201": 1207,
    "efficientnet_b0": 360, "efficientnet_b1": 508, "efficientnet_b2": 508,
    "efficientnet_b3": 574, "efficientnet_b4": 706, "efficientnet_b5": 854,
    "efficientnet_b6": 986, "efficientnet_b7": 1200, "efficientnet_v2_s": 782,
    "efficientnet_v2_m": 1120, "efficientnet_v2_l": 1548, "mobilenet_v2": 314,
    "mobilenet_v3_large": 312, "mobilenet_v3_small": 244, "resnet18": 122, "resnet34": 218,
    "resnet50": 320, "resnet101": 626, "resnet152": 932, "resnext50_32x4d": 320,
    "resnext101_32x8d": 626, "resnext101_64x4d": 626, "wide_resnet50_2": 320,
    "wide_resnet101_2": 626, "squeezenet1_0": 52, "squeezenet1_1": 52, "vgg11": 22,
    "vgg11_bn": 62, "vgg13": 26, "vgg13_bn": 76, "vgg16": 32, "vgg16_bn": 97, "vgg19": 38,
    "vgg19_bn": 118, "vit_b_16": 152, "vit_b_32": 152}


def test_state_dict_sizes(fast_init):
    for name, entries in STATE_DICT_SIZES.items():
        assert len(M.get_model(name).state_dict()) == entries, name


@pytest.mark.parametrize("name,keys", [
    ("resnet18", {"conv1.weight": (64, 3, 7, 7), "bn1.running_mean": (64,),
                  "layer4.1.conv1.weight": (512, 512, 3, 3), "fc.weight": (1000, 512),
                  "layer2.0.downsample.0.weight": (128, 64, 1, 1),
                  "layer2.0.downsample.1.num_batches_tracked": ()}),
    ("resnet50", {"layer1.0.downsample.0.weight": (256, 64, 1, 1),
                  "layer1.0.conv3.weight": (256, 64, 1, 1), "fc.weight": (1000, 2048)}),
    ("resnext101_64x4d", {"layer1.0.conv2.weight": (256, 4, 3, 3),
                          "layer4.2.conv3.weight": (2048, 2048, 1, 1)}),
    ("wide_resnet50_2", {"layer1.0.conv1.weight": (128, 64, 1, 1)}),
    ("mobilenet_v2", {"features.0.0.weight": (32, 3, 3, 3), "features.0.1.running_var": (32,),
                      "features.1.conv.0.0.weight": (32, 1, 3, 3),
                      "features.1.conv.1.weight": (16, 32, 1, 1),
                      "features.2.conv.0.0.weight": (96, 16, 1, 1),
                      "features.18.0.weight": (1280, 320, 1, 1),
                      "classifier.1.weight": (1000, 1280)}),
    ("mobilenet_v3_large", {"features.0.0.weight": (16, 3, 3, 3),
                            "features.1.block.0.0.weight": (16, 1, 3, 3),
                            "features.4.block.2.fc1.weight": (24, 72, 1, 1),
                            "features.4.block.2.fc2.bias": (72,),
                            "features.16.0.weight": (960, 160, 1, 1),
                            "classifier.0.weight": (1280, 960),
                            "classifier.3.weight": (1000, 1280)}),
    ("mobilenet_v3_small", {"features.1.block.1.fc1.weight": (8, 16, 1, 1),
                            "features.12.1.running_mean": (576,),
                            "classifier.0.weight": (1024, 576)}),
    ("vit_b_16", {"class_token": (1, 1, 768), "conv_proj.weight": (768, 3, 16, 16),
                  "encoder.pos_embedding": (1, 197, 768),
                  "encoder.layers.encoder_layer_0.ln_1.weight": (768,),
                  "encoder.layers.encoder_layer_0.self_attention.in_proj_weight": (2304, 768),
                  "encoder.layers.encoder_layer_0.self_attention.out_proj.bias": (768,),
                  "encoder.layers.encoder_layer_11.mlp.0.weight": (3072, 768),
                  "encoder.layers.encoder_layer_11.mlp.3.bias": (768,),
                  "encoder.ln.bias": (768,), "heads.head.weight": (1000, 768)}),
    ("convnext_tiny", {"features.0.0.weight": (96, 3, 4, 4), "features.0.1.weight": (96,),
                       "features.1.0.layer_scale": (96, 1, 1),
                       "features.1.0.block.0.weight": (96, 1, 7, 7),
                       "features.1.0.block.2.weight": (96,),
                       "features.1.0.block.3.weight": (384, 96),
                       "features.2.1.weight": (192, 96, 2, 2),
                       "features.7.2.block.5.bias": (768,),
                       "classifier.0.weight": (768,), "classifier.2.weight": (1000, 768)}),
    ("efficientnet_v2_s", {"features.1.0.block.0.0.weight": (24, 24, 3, 3),
                           "features.2.0.block.0.0.weight": (96, 24, 3, 3),
                           "features.2.0.block.1.0.weight": (48, 96, 1, 1),
                           "features.4.0.block.2.fc1.weight": (16, 256, 1, 1),
                           "features.7.0.weight": (1280, 256, 1, 1)}),
    ("densenet121", {"features.conv0.weight": (64, 3, 7, 7),
                     "features.denseblock1.denselayer1.norm1.weight": (64,),
                     "features.denseblock4.denselayer16.conv2.weight": (32, 128, 3, 3),
                     "features.transition3.conv.weight": (512, 1024, 1, 1),
                     "features.norm5.weight": (1024,), "classifier.weight": (1000, 1024)}),
    ("squeezenet1_0", {"features.3.squeeze.weight": (16, 96, 1, 1),
                       "features.12.expand3x3.weight": (256, 64, 3, 3),
                       "classifier.1.weight": (1000, 512, 1, 1)}),
    ("efficientnet_b0", {"features.1.0.block.0.0.weight": (32, 1, 3, 3),
                         "features.1.0.block.1.fc1.weight": (8, 32, 1, 1),
                         "features.2.0.block.0.0.weight": (96, 16, 1, 1),
                         "features.8.0.weight": (1280, 320, 1, 1),
                         "classifier.1.weight": (1000, 1280)}),
    ("alexnet", {"features.0.weight": (64, 3, 11, 11), "classifier.1.weight": (4096, 9216),
                 "classifier.6.bias": (1000,)}),
])
def test_state_dict_keys_and_shapes(fast_init, name, keys):
    state = getattr(M, name)().state_dict()
    for key, shape in keys.items():
        assert tuple(state[key].shape) == shape, key


def small_resnet(block=BasicBlock, **kwargs):
    return M.ResNet(block, [1, 1, 1, 1], **kwargs)


def test_state_dict_round_trip():
    a, b = small_resnet(num_classes=5).eval(), small_resnet(num_classes=5).eval()
    b.load_state_dict(a.state_dict())
    x = ember.randn(1, 3, 32, 32)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())


def test_resnet_init_and_zero_init_residual():
    model = small_resnet()
    std = values(model.layer1[0].conv1.weight).std()
    assert abs(std - math.sqrt(2 / (64 * 9))) < 2e-3  # kaiming_normal_, fan_out
    assert (values(model.bn1.weight) == 1).all() and (values(model.bn1.bias) == 0).all()
    assert (values(model.layer1[0].bn2.weight) == 1).all()
    zeroed = small_resnet(zero_init_residual=True)
    assert (values(zeroed.layer3[0].bn2.weight) == 0).all()
    assert (values(zeroed.layer3[0].bn1.weight) == 1).all()
    bottleneck = small_resnet(Bottleneck, zero_init_residual=True)
    assert (values(bottleneck.layer2[0].bn3.weight) == 0).all()


def test_squeezenet_and_densenet_init():
    model = M.squeezenet1_1()
    final = values(model.classifier[1].weight)
    assert abs(final.std() - 0.01) < 1e-3 and (values(model.classifier[1].bias) == 0).all()
    dense = M.DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=64)
    assert (values(dense.classifier.bias) == 0).all()
    conv = values(dense.features.conv0.weight)  # kaiming_normal_, fan_in = 3 * 49
    assert abs(conv.std() - math.sqrt(2 / 147)) < 5e-3


def test_new_family_inits():
    ember.manual_seed(0)
    vit = M.VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2,
                              hidden_dim=64, mlp_dim=128, representation_size=32)
    assert (values(vit.class_token) == 0).all() and (values(vit.heads.head.weight) == 0).all()
    assert abs(values(vit.encoder.pos_embedding).std() - 0.02) < 3e-3
    patch = values(vit.conv_proj.weight)  # trunc_normal_, std sqrt(1 / fan_in)
    assert abs(patch.std() - math.sqrt(1 / (3 * 64))) < 5e-3
    assert (values(vit.heads.pre_logits.bias) == 0).all()
    mlp = vit.encoder.layers[0].mlp
    assert abs(values(mlp[0].bias).std() - 1e-6) < 5e-7  # normal_(std=1e-6)
    convnext = M.ConvNeXt([M.convnext.CNBlockConfig(16, None, 2)], layer_scale=0.5)
    assert (values(convnext.features[1][0].layer_scale) == 0.5).all()
    linear = values(convnext.features[1][0].block[3].weight)
    assert abs(linear.std() - 0.02) < 3e-3 and np.abs(linear).max() <= 2.0
    v3 = M.mobilenet_v3_small(num_classes=4)
    bn = v3.features[0][1]
    assert (bn.eps, bn.momentum) == (0.001, 0.01)
    assert abs(values(v3.classifier[3].weight).std() - 0.01) < 2e-3


def test_efficientnet_batch_norm_constants(fast_init):
    # B5-B7 and V2 use the constants their checkpoints were trained with
    def norm(model):
        bn = model.features[0][1]
        return bn.eps, bn.momentum
    assert norm(M.efficientnet_b0()) == (1e-5, 0.1)
    assert norm(M.efficientnet_b5()) == (0.001, 0.01)
    assert norm(M.efficientnet_v2_s()) == (1e-3, 0.1)


@pytest.mark.parametrize("make,shape", [
    (lambda: small_resnet(Bottleneck, num_classes=7), (2, 3, 32, 32)),
    (lambda: M.mobilenet_v2(num_classes=7, width_mult=0.25), (2, 3, 32, 32)),
    (lambda: M.mobilenet_v3_small(num_classes=7, width_mult=0.5), (2, 3, 32, 32)),
    (lambda: M.DenseNet(8, (2, 2), 16, num_classes=7), (2, 3, 32, 32)),
    (lambda: M.squeezenet1_1(num_classes=7), (1, 3, 64, 64)),
    (lambda: M.efficientnet_b0(num_classes=7), (2, 3, 32, 32)),
    (lambda: M.VisionTransformer(32, 8, 2, 2, 16, 24, num_classes=7), (2, 3, 32, 32)),
    (lambda: M.ConvNeXt([M.convnext.CNBlockConfig(8, 16, 1),
                         M.convnext.CNBlockConfig(16, None, 1)], 0.2, num_classes=7),
     (2, 3, 32, 32))], ids=["resnet", "mobilenet_v2", "mobilenet_v3", "densenet",
                            "squeezenet", "efficientnet", "vit", "convnext"])
def test_forward_backward(make, shape):
    ember.manual_seed(0)
    model = make()
    x = ember.randn(*shape, requires_grad=True)
    out = model(x)
    assert tuple(out.shape) == (shape[0], 7)
    assert np.isfinite(out.detach().numpy()).all()
    out.sum().backward()
    assert x.grad is not None and all(p.grad is not None for p in model.parameters())
    model.eval()
    with ember.no_grad():
        assert tuple(model(x).shape) == (shape[0], 7)


def test_vit_checks_its_input():
    vit = M.VisionTransformer(32, 8, 1, 2, 16, 24)
    with pytest.raises(AssertionError, match="Wrong image height! Expected 32 but got 16!"):
        vit(ember.zeros(1, 3, 16, 32))
    with pytest.raises(AssertionError, match="Input shape indivisible by patch size!"):
        M.VisionTransformer(30, 8, 1, 2, 16, 24)
    with pytest.raises(TypeError, match=r"The block_setting should be List\[CNBlockConfig\]"):
        M.ConvNeXt([1])
    with pytest.raises(ValueError, match="Unsupported model type mobilenet_v4"):
        M.mobilenetv3._mobilenet_v3_conf("mobilenet_v4")


def test_resnet_forward_matches_hand_computation_on_block():
    # A BasicBlock is relu(bn2(conv2(relu(bn1(conv1(x))))) + x); check it in eval mode.
    block = BasicBlock(4, 4).eval()
    x = ember.randn(1, 4, 5, 5)
    F = ember.nn.functional
    inner = F.relu(block.bn1(block.conv1(x)))
    expected = F.relu(block.bn2(block.conv2(inner)) + x)
    np.testing.assert_allclose(block(x).detach().numpy(), expected.detach().numpy(), rtol=1e-6)


class _TorchConv2dNormActivation(torch.nn.Sequential):
    pass


def test_mobilenet_v2_repr_matches_torch_modules():
    model = M.mobilenet_v2()
    _TorchConv2dNormActivation.__name__ = "Conv2dNormActivation"
    expected = repr(_TorchConv2dNormActivation(
        torch.nn.Conv2d(3, 32, 3, 2, 1, bias=False), torch.nn.BatchNorm2d(32),
        torch.nn.ReLU6(inplace=True)))
    assert repr(model.features[0]) == expected
    assert repr(model.features[0]).startswith(
        "Conv2dNormActivation(\n  (0): Conv2d(3, 32, kernel_size=(3, 3), stride=(2, 2), "
        "padding=(1, 1), bias=False)\n  (1): BatchNorm2d(32, eps=1e-05, momentum=0.1, "
        "affine=True")
    block = repr(model.features[1])
    assert block.startswith("InvertedResidual(\n  (conv): Sequential(\n    (0): "
                            "Conv2dNormActivation(\n      (0): Conv2d(32, 32, kernel_size=(3, "
                            "3), stride=(1, 1), padding=(1, 1), groups=32, bias=False)")
    assert "(1): Conv2d(32, 16, kernel_size=(1, 1), stride=(1, 1), bias=False)" in block
    assert repr(model.classifier) == repr(torch.nn.Sequential(torch.nn.Dropout(p=0.2),
                                                              torch.nn.Linear(1280, 1000)))


def test_conv2d_norm_activation_options():
    plain = Conv2dNormActivation(3, 8, kernel_size=5, norm_layer=None, activation_layer=None)
    assert len(plain) == 1 and plain[0].padding == (2, 2) and plain[0].bias is not None
    assert plain.out_channels == 8


def test_constructor_errors():
    with pytest.raises(ValueError, match="BasicBlock only supports groups=1 and base_width=64"):
        M.resnet18(groups=2)
    with pytest.raises(ValueError, match="Unsupported SqueezeNet version 2_0"):
        M.SqueezeNet("2_0")
    with pytest.raises(ValueError, match="stride should be 1 or 2 instead of 3"):
        InvertedResidual(8, 8, 3, 6)


def test_stochastic_depth():
    x = ember.ones(200, 3)
    assert stochastic_depth(x, 0.5, "row", training=False) is x
    ember.manual_seed(0)
    out = StochasticDepth(0.25, "row")(x).numpy()
    rows = out[:, 0]
    assert np.allclose(np.unique(rows), [0.0, 1 / 0.75])
    assert (out == rows[:, None]).all() and 0.1 < (rows == 0).mean() < 0.4
    assert repr(StochasticDepth(0.25, "row")) == "StochasticDepth(p=0.25, mode=row)"
    with pytest.raises(ValueError, match="drop probability has to be between 0 and 1, but got 2"):
        stochastic_depth(x, 2, "row")
    blocks = [m for m in M.efficientnet_b0().modules() if isinstance(m, StochasticDepth)]
    assert blocks[0].p == 0 and blocks[-1].p == pytest.approx(0.2 * 15 / 16)


def test_intermediate_layer_getter():
    from ember.vision.models._utils import IntermediateLayerGetter
    model = small_resnet().eval()
    getter = IntermediateLayerGetter(model, {"layer1": "feat1", "layer3": "feat2"})
    assert list(getter.keys())[-1] == "layer3"  # stops after the last requested layer
    x = ember.randn(1, 3, 32, 32)
    out = getter(x)
    assert list(out) == ["feat1", "feat2"]
    assert tuple(out["feat1"].shape) == (1, 64, 8, 8)
    assert tuple(out["feat2"].shape) == (1, 256, 2, 2)
    expected = model.layer3(model.layer2(model.layer1(
        model.maxpool(model.relu(model.bn1(model.conv1(x)))))))
    np.testing.assert_allclose(out["feat2"].detach().numpy(), expected.detach().numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="return_layers are not present in model"):
        IntermediateLayerGetter(model, {"layer9": "x"})
