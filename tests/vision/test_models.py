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
from ember.vision.models.resnet import BasicBlock
from ember.vision.ops import Conv2dNormActivation, StochasticDepth, stochastic_depth


def count(model):
    return sum(p.numel() for p in model.parameters())


def values(param):
    return param.detach().numpy()


# torchvision's documented figures
@pytest.mark.parametrize("name,params", [
    ("resnet18", 11_689_512), ("resnet34", 21_797_672), ("resnet50", 25_557_032),
    ("resnet101", 44_549_160), ("resnet152", 60_192_808), ("resnext50_32x4d", 25_028_904),
    ("wide_resnet50_2", 68_883_240), ("mobilenet_v2", 3_504_872), ("alexnet", 61_100_840),
    ("squeezenet1_0", 1_248_424), ("squeezenet1_1", 1_235_496),
    ("densenet121", 7_978_856), ("densenet169", 14_149_480), ("densenet201", 20_013_928),
    ("densenet161", 28_681_000), ("efficientnet_b0", 5_288_548)])
def test_parameter_counts(name, params):
    assert count(getattr(M, name)()) == params


@pytest.mark.parametrize("name,params", [("vgg16", 138_357_544), ("vgg16_bn", 138_365_992),
                                         ("vgg19", 143_667_240)])
def test_vgg_parameter_counts(name, params):
    model = getattr(M, name)(init_weights=False)
    assert count(model) == params
    assert ("features.1.running_var" in model.state_dict()) == name.endswith("_bn")


def test_vgg11_count_init_and_pass():
    ember.manual_seed(0)
    vgg11 = M.vgg11()
    assert count(vgg11) == 132_863_336
    linear = values(vgg11.classifier[0].weight)
    assert abs(linear.std() - 0.01) < 1e-4 and (values(vgg11.classifier[0].bias) == 0).all()
    conv = vgg11.features[3].weight  # Conv2d(64, 128): kaiming fan_out = 128 * 9
    assert abs(values(conv).std() - math.sqrt(2 / (128 * 9))) < 2e-3
    assert (values(vgg11.features[3].bias) == 0).all()
    out = vgg11(ember.randn(1, 3, 32, 32))
    out.sum().backward()
    assert tuple(out.shape) == (1, 1000) and vgg11.features[0].weight.grad is not None


@pytest.mark.parametrize("name,keys", [
    ("resnet18", {"conv1.weight": (64, 3, 7, 7), "bn1.running_mean": (64,),
                  "layer4.1.conv1.weight": (512, 512, 3, 3), "fc.weight": (1000, 512),
                  "layer2.0.downsample.0.weight": (128, 64, 1, 1),
                  "layer2.0.downsample.1.num_batches_tracked": ()}),
    ("resnet50", {"layer1.0.downsample.0.weight": (256, 64, 1, 1),
                  "layer1.0.conv3.weight": (256, 64, 1, 1), "fc.weight": (1000, 2048)}),
    ("mobilenet_v2", {"features.0.0.weight": (32, 3, 3, 3), "features.0.1.running_var": (32,),
                      "features.1.conv.0.0.weight": (32, 1, 3, 3),
                      "features.1.conv.1.weight": (16, 32, 1, 1),
                      "features.2.conv.0.0.weight": (96, 16, 1, 1),
                      "features.18.0.weight": (1280, 320, 1, 1),
                      "classifier.1.weight": (1000, 1280)}),
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
def test_state_dict_keys_and_shapes(name, keys):
    state = getattr(M, name)().state_dict()
    for key, shape in keys.items():
        assert tuple(state[key].shape) == shape, key


@pytest.mark.parametrize("name,entries", [("resnet18", 122), ("resnet50", 320),
                                          ("mobilenet_v2", 314)])
def test_state_dict_sizes(name, entries):
    assert len(getattr(M, name)().state_dict()) == entries


def test_state_dict_round_trip():
    a, b = M.resnet18(num_classes=5).eval(), M.resnet18(num_classes=5).eval()
    b.load_state_dict(a.state_dict())
    x = ember.randn(1, 3, 32, 32)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())


def test_resnet_init_and_zero_init_residual():
    model = M.resnet18()
    std = values(model.layer1[0].conv1.weight).std()
    assert abs(std - math.sqrt(2 / (64 * 9))) < 2e-3  # kaiming_normal_, fan_out
    assert (values(model.bn1.weight) == 1).all() and (values(model.bn1.bias) == 0).all()
    assert (values(model.layer1[0].bn2.weight) == 1).all()
    zeroed = M.resnet18(zero_init_residual=True)
    assert (values(zeroed.layer3[1].bn2.weight) == 0).all()
    assert (values(zeroed.layer3[1].bn1.weight) == 1).all()
    bottleneck = M.resnet50(zero_init_residual=True)
    assert (values(bottleneck.layer2[0].bn3.weight) == 0).all()


def test_squeezenet_and_densenet_init():
    model = M.squeezenet1_1()
    final = values(model.classifier[1].weight)
    assert abs(final.std() - 0.01) < 1e-3 and (values(model.classifier[1].bias) == 0).all()
    dense = M.densenet121()
    assert (values(dense.classifier.bias) == 0).all()
    conv = values(dense.features.conv0.weight)  # kaiming_normal_, fan_in = 3 * 49
    assert abs(conv.std() - math.sqrt(2 / 147)) < 5e-3


@pytest.mark.parametrize("name,shape", [
    ("resnet18", (2, 3, 64, 64)), ("resnet50", (2, 3, 32, 32)), ("mobilenet_v2", (2, 3, 32, 32)),
    ("densenet121", (2, 3, 32, 32)), ("squeezenet1_0", (1, 3, 64, 64)),
    ("squeezenet1_1", (1, 3, 64, 64)), ("alexnet", (1, 3, 64, 64)),
    ("efficientnet_b0", (2, 3, 32, 32))])
def test_forward_backward(name, shape):
    ember.manual_seed(0)
    model = getattr(M, name)(num_classes=7)
    x = ember.randn(*shape, requires_grad=True)
    out = model(x)
    assert tuple(out.shape) == (shape[0], 7)
    assert np.isfinite(out.detach().numpy()).all()
    out.sum().backward()
    assert x.grad is not None and all(p.grad is not None for p in model.parameters())
    model.eval()
    with ember.no_grad():
        assert tuple(model(x).shape) == (shape[0], 7)


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
