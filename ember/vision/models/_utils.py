"""What every model builder shares: refusing to download pretrained weights."""
from __future__ import annotations


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
