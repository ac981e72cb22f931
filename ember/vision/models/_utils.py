"""What the model builders share: refusing to download pretrained weights, channel
rounding and the MobileNet/EfficientNet weight init."""
from __future__ import annotations

from ... import nn


def check_no_weights(arch: str, weights, kwargs: dict) -> None:
    """ember cannot fetch checkpoints: any weights (or legacy pretrained=True) is refused
    with the way to load a checkpoint downloaded elsewhere."""
    if kwargs.pop("pretrained", False):
        weights = "pretrained=True"
    if weights is not None:
        raise NotImplementedError(
            f"{arch}(weights={weights!r}): ember cannot download pretrained weights (it "
            "never accesses the network). Download the torchvision checkpoint elsewhere, "
            f"then load it from the local file: model = {arch}(); "
            "model.load_state_dict(ember.load(path))")


def make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """Round a channel count to a multiple of divisor, never more than 10% below v."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def init_conv_and_norm_(module: nn.Module) -> None:
    """MobileNet/EfficientNet init of one module: kaiming (fan_out) conv weights, zero
    biases, unit norm weights. Other modules are left to the caller."""
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_out")
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, (nn.BatchNorm2d, nn.GroupNorm)):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)
