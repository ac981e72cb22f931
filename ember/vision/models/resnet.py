"""ResNet (He et al., 2015) with torchvision's layout, state_dict keys and initialisation;
also ResNeXt and Wide ResNet, which only change the bottleneck width and groups."""
from __future__ import annotations

from functools import partial
from typing import Callable

from ... import flatten, nn
from ..._tensor import Tensor
from ._api import WeightsEnum, register_model
from ._utils import (BLOG, NEW_RECIPE, REFERENCES, build, handle_legacy_interface,
                     imagenet_weights)

__all__ = ["ResNet", "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights",
           "ResNet101_Weights", "ResNet152_Weights", "ResNeXt50_32X4D_Weights",
           "ResNeXt101_32X8D_Weights", "ResNeXt101_64X4D_Weights", "Wide_ResNet50_2_Weights",
           "Wide_ResNet101_2_Weights", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
           "wide_resnet50_2", "wide_resnet101_2"]


def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1,
            dilation: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions plus the identity (or a projection `downsample`)."""

    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: nn.Module | None = None, groups: int = 1, base_width: int = 64,
                 dilation: int = 1, norm_layer: Callable[..., nn.Module] | None = None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (stride here, as torchvision's "ResNet V1.5"), 1x1 expand by 4."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: nn.Module | None = None, groups: int = 1, base_width: int = 64,
                 dilation: int = 1, norm_layer: Callable[..., nn.Module] | None = None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block: type, layers: list, num_classes: int = 1000,
                 zero_init_residual: bool = False, groups: int = 1, width_per_group: int = 64,
                 replace_stride_with_dilation: list | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element "
                             f"tuple, got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2,
                                       dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2,
                                       dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2,
                                       dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            # each residual branch starts as zero, so every block starts as the identity
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block: type, planes: int, blocks: int, stride: int = 1,
                    dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, dilation=self.dilation,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(flatten(self.avgpool(x), 1))


class ResNet18_Weights(WeightsEnum):
    """Pretrained weights for resnet18."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnet18-f37072fd.pth", num_params=11_689_512, acc=(69.758, 89.078), ops=1.814,
        file_size=44.661, recipe=f"{REFERENCES}#resnet")
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    """Pretrained weights for resnet34."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnet34-b627a593.pth", num_params=21_797_672, acc=(73.314, 91.42), ops=3.664,
        file_size=83.275, recipe=f"{REFERENCES}#resnet")
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    """Pretrained weights for resnet50."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnet50-0676ba61.pth", num_params=25_557_032, acc=(76.13, 92.862), ops=4.089,
        file_size=97.781, recipe=f"{REFERENCES}#resnet")
    IMAGENET1K_V2 = imagenet_weights(
        "resnet50-11ad3fa6.pth", num_params=25_557_032, acc=(80.858, 95.434), ops=4.089,
        file_size=97.79,
        recipe="https://github.com/pytorch/vision/issues/3995#issuecomment-1013906621",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    """Pretrained weights for resnet101."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnet101-63fe2227.pth", num_params=44_549_160, acc=(77.374, 93.546), ops=7.801,
        file_size=170.511, recipe=f"{REFERENCES}#resnet")
    IMAGENET1K_V2 = imagenet_weights(
        "resnet101-cd907fc2.pth", num_params=44_549_160, acc=(81.886, 95.78), ops=7.801,
        file_size=170.53, recipe="https://github.com/pytorch/vision/issues/3995#new-recipe",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    """Pretrained weights for resnet152."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnet152-394f9c45.pth", num_params=60_192_808, acc=(78.312, 94.046), ops=11.514,
        file_size=230.434, recipe=f"{REFERENCES}#resnet")
    IMAGENET1K_V2 = imagenet_weights(
        "resnet152-f82ba261.pth", num_params=60_192_808, acc=(82.284, 96.002), ops=11.514,
        file_size=230.474, recipe="https://github.com/pytorch/vision/issues/3995#new-recipe",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    """Pretrained weights for resnext50_32x4d."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnext50_32x4d-7cdf4587.pth", num_params=25_028_904, acc=(77.618, 93.698), ops=4.23,
        file_size=95.789, recipe=f"{REFERENCES}#resnext")
    IMAGENET1K_V2 = imagenet_weights(
        "resnext50_32x4d-1a0047aa.pth", num_params=25_028_904, acc=(81.198, 95.34), ops=4.23,
        file_size=95.833, recipe="https://github.com/pytorch/vision/issues/3995#new-recipe",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_32X8D_Weights(WeightsEnum):
    """Pretrained weights for resnext101_32x8d."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnext101_32x8d-8ba56ff5.pth", num_params=88_791_336, acc=(79.312, 94.526), ops=16.414,
        file_size=339.586, recipe=f"{REFERENCES}#resnext")
    IMAGENET1K_V2 = imagenet_weights(
        "resnext101_32x8d-110c445d.pth", num_params=88_791_336, acc=(82.834, 96.228), ops=16.414,
        file_size=339.673,
        recipe="https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_64X4D_Weights(WeightsEnum):
    """Pretrained weights for resnext101_64x4d."""

    IMAGENET1K_V1 = imagenet_weights(
        "resnext101_64x4d-173b62eb.pth", num_params=83_455_272, acc=(83.246, 96.454), ops=15.46,
        file_size=319.318, recipe="https://github.com/pytorch/vision/pull/5935",
        docs=("These weights were trained from scratch by using TorchVision's `new training "
              "recipe "
              f"<{BLOG}>`_."),
        resize_size=232)
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    """Pretrained weights for wide_resnet50_2."""

    IMAGENET1K_V1 = imagenet_weights(
        "wide_resnet50_2-95faca4d.pth", num_params=68_883_240, acc=(78.468, 94.086), ops=11.398,
        file_size=131.82, recipe="https://github.com/pytorch/vision/pull/912#issue-445437439")
    IMAGENET1K_V2 = imagenet_weights(
        "wide_resnet50_2-9ba9bcbe.pth", num_params=68_883_240, acc=(81.602, 95.758), ops=11.398,
        file_size=263.124,
        recipe="https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet101_2_Weights(WeightsEnum):
    """Pretrained weights for wide_resnet101_2."""

    IMAGENET1K_V1 = imagenet_weights(
        "wide_resnet101_2-32ee1156.pth", num_params=126_886_696, acc=(78.848, 94.284), ops=22.753,
        file_size=242.896, recipe="https://github.com/pytorch/vision/pull/912#issue-445437439")
    IMAGENET1K_V2 = imagenet_weights(
        "wide_resnet101_2-d733dc28.pth", num_params=126_886_696, acc=(82.51, 96.02), ops=22.753,
        file_size=484.747, recipe="https://github.com/pytorch/vision/issues/3995#new-recipe",
        docs=NEW_RECIPE, resize_size=232)
    DEFAULT = IMAGENET1K_V2


def _resnet(block: type, layers: list, weights: WeightsEnum | None, progress: bool,
            kwargs: dict, **needed) -> ResNet:
    return build(partial(ResNet, block, layers), weights, progress, kwargs, **needed)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet18_Weights.IMAGENET1K_V1))
def resnet18(*, weights: ResNet18_Weights | None = None, progress: bool = True,
             **kwargs) -> ResNet:
    """ResNet-18 (He et al., 2015); weights: ResNet18_Weights."""
    weights = ResNet18_Weights.verify(weights)
    return _resnet(BasicBlock, [2, 2, 2, 2], weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet34_Weights.IMAGENET1K_V1))
def resnet34(*, weights: ResNet34_Weights | None = None, progress: bool = True,
             **kwargs) -> ResNet:
    """ResNet-34; weights: ResNet34_Weights."""
    weights = ResNet34_Weights.verify(weights)
    return _resnet(BasicBlock, [3, 4, 6, 3], weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet50_Weights.IMAGENET1K_V1))
def resnet50(*, weights: ResNet50_Weights | None = None, progress: bool = True,
             **kwargs) -> ResNet:
    """ResNet-50 (the V1.5 bottleneck, stride in the 3x3); weights: ResNet50_Weights."""
    weights = ResNet50_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet101_Weights.IMAGENET1K_V1))
def resnet101(*, weights: ResNet101_Weights | None = None, progress: bool = True,
              **kwargs) -> ResNet:
    """ResNet-101; weights: ResNet101_Weights."""
    weights = ResNet101_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet152_Weights.IMAGENET1K_V1))
def resnet152(*, weights: ResNet152_Weights | None = None, progress: bool = True,
              **kwargs) -> ResNet:
    """ResNet-152; weights: ResNet152_Weights."""
    weights = ResNet152_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 8, 36, 3], weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt50_32X4D_Weights.IMAGENET1K_V1))
def resnext50_32x4d(*, weights: ResNeXt50_32X4D_Weights | None = None, progress: bool = True,
                    **kwargs) -> ResNet:
    """ResNeXt-50 32x4d (Xie et al., 2016): 32 groups of width 4 in each bottleneck;
    weights: ResNeXt50_32X4D_Weights."""
    weights = ResNeXt50_32X4D_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, kwargs, groups=32,
                   width_per_group=4)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt101_32X8D_Weights.IMAGENET1K_V1))
def resnext101_32x8d(*, weights: ResNeXt101_32X8D_Weights | None = None,
                     progress: bool = True, **kwargs) -> ResNet:
    """ResNeXt-101 32x8d; weights: ResNeXt101_32X8D_Weights."""
    weights = ResNeXt101_32X8D_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, kwargs, groups=32,
                   width_per_group=8)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt101_64X4D_Weights.IMAGENET1K_V1))
def resnext101_64x4d(*, weights: ResNeXt101_64X4D_Weights | None = None,
                     progress: bool = True, **kwargs) -> ResNet:
    """ResNeXt-101 64x4d; weights: ResNeXt101_64X4D_Weights."""
    weights = ResNeXt101_64X4D_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, kwargs, groups=64,
                   width_per_group=4)


@register_model()
@handle_legacy_interface(weights=("pretrained", Wide_ResNet50_2_Weights.IMAGENET1K_V1))
def wide_resnet50_2(*, weights: Wide_ResNet50_2_Weights | None = None, progress: bool = True,
                    **kwargs) -> ResNet:
    """Wide ResNet-50-2 (Zagoruyko & Komodakis, 2016): bottlenecks twice as wide;
    weights: Wide_ResNet50_2_Weights."""
    weights = Wide_ResNet50_2_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, kwargs, width_per_group=128)


@register_model()
@handle_legacy_interface(weights=("pretrained", Wide_ResNet101_2_Weights.IMAGENET1K_V1))
def wide_resnet101_2(*, weights: Wide_ResNet101_2_Weights | None = None,
                     progress: bool = True, **kwargs) -> ResNet:
    """Wide ResNet-101-2; weights: Wide_ResNet101_2_Weights."""
    weights = Wide_ResNet101_2_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, kwargs, width_per_group=128)
