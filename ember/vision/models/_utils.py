"""What the model builders share: torchvision's legacy `pretrained=` interface, building
a model with its pretrained weights, the ImageNet weights entries, channel rounding and
the MobileNet/EfficientNet weight init."""
from __future__ import annotations

import functools
import inspect
import warnings
from collections import OrderedDict
from functools import partial
from typing import Any, Callable

from ... import nn
from ..transforms._presets import ImageClassification
from ..transforms.functional import InterpolationMode
from ._api import Weights, WeightsEnum
from ._meta import _IMAGENET_CATEGORIES
from .. import _unavailable

_DOWNLOAD = "https://download.pytorch.org/models/"
REFERENCES = "https://github.com/pytorch/vision/tree/main/references/classification"
BLOG = ("https://pytorch.org/blog/"
        "how-to-train-state-of-the-art-models-using-torchvision-latest-primitives/")
# meta["_docs"] texts shared by many entries (torchvision's, with whitespace collapsed)
SIMPLE_RECIPE = ("These weights reproduce closely the results of the paper using a simple "
                 "training recipe.")
NEW_RECIPE = ("These weights improve upon the results of the original paper by using "
              f"TorchVision's `new training recipe <{BLOG}>`_.")
MODIFIED_NEW_RECIPE = ("These weights improve upon the results of the original paper by using "
                       "a modified version of TorchVision's `new training recipe "
                       f"<{BLOG}>`_.")
SIMPLIFIED_RECIPE = ("These weights were trained from scratch by using a simplified training "
                     "recipe.")


def imagenet_weights(file: str, *, num_params: int, acc: tuple, ops: float, file_size: float,
                     recipe: str, docs: str = SIMPLE_RECIPE, min_size: tuple = (1, 1),
                     crop_size: int = 224, resize_size: int = 256,
                     interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                     mean: tuple | None = None, std: tuple | None = None,
                     categories: list | None = _IMAGENET_CATEGORIES, **meta: Any) -> Weights:
    """A Weights entry for an ImageNet-1K classifier: the checkpoint `file` on torchvision's
    download server, its ImageClassification preset (mean/std default to the preset's),
    and the meta torchvision publishes: acc is (acc@1, acc@5); ops (GFLOPS) and file_size
    (MB) as torchvision measured them; extra `meta` entries (license) are added as given."""
    normalization = {name: value for name, value in (("mean", mean), ("std", std))
                     if value is not None}
    transforms = partial(ImageClassification, crop_size=crop_size, resize_size=resize_size,
                         interpolation=interpolation, **normalization)
    meta.update({"categories": categories, "min_size": min_size, "num_params": num_params,
                 "recipe": recipe,
                 "_metrics": {"ImageNet-1K": {"acc@1": acc[0], "acc@5": acc[1]}},
                 "_ops": ops, "_file_size": file_size, "_docs": docs})
    return Weights(url=_DOWNLOAD + file, transforms=transforms, meta=meta)


def _ovewrite_named_param(kwargs: dict, param: str, new_value: Any) -> None:
    """Set kwargs[param] to what the weights need, refusing a different value given by
    the caller (torchvision's spelling of the name)."""
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got "
                             f"{kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


def build(model_fn: Callable[..., nn.Module], weights: WeightsEnum | None, progress: bool,
          kwargs: dict, adapt_state: Callable[[dict], dict] | None = None,
          **needed: Any) -> nn.Module:
    """model_fn(**kwargs), with the `needed` constructor arguments (a caller's different
    value is refused), loaded with `weights` when given. The weights also fix num_classes
    (from their categories); their checkpoint is read before the model is built, so a
    missing file fails fast. `adapt_state` renames the keys of old checkpoints."""
    if weights is not None and weights.meta["categories"] is not None:
        needed["num_classes"] = len(weights.meta["categories"])
    for param, value in needed.items():
        _ovewrite_named_param(kwargs, param, value)
    if weights is None:
        return model_fn(**kwargs)
    state = weights.get_state_dict(progress=progress, check_hash=True)
    if adapt_state is not None:
        state = adapt_state(state)
    model = model_fn(**kwargs)
    model.load_state_dict(state)
    return model


_MISSING = object()


def _quoted(names: list) -> str:
    """'a', 'a' and 'b', 'a', 'b', and 'c' (torchvision's list style in warnings)."""
    quoted = [f"'{name}'" for name in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def handle_legacy_interface(weights: tuple) -> Callable:
    """Decorate a builder `fn(*, weights=None, progress=True, **kwargs)` to also accept
    torchvision's pre-0.13 calls, with its deprecation warnings: positional arguments,
    and `pretrained=True/False` (or a bool as `weights`), which become
    `weights=<legacy default>` / `weights=None`. `weights` is
    ("pretrained", the member that pretrained=True meant, or None when there was none)."""
    pretrained_param, legacy_default = weights

    def decorate(builder: Callable) -> Callable:
        keyword_only = [name for name, p in inspect.signature(builder).parameters.items()
                        if p.kind is p.KEYWORD_ONLY]

        @functools.wraps(builder)
        def wrapper(*args: Any, **kwargs: Any):
            if args:
                positional = dict(zip(keyword_only, args))
                warnings.warn(f"Using {_quoted(list(positional))} as positional parameter(s) "
                              "is deprecated since 0.13 and may be removed in the future. "
                              "Please use keyword parameter(s) instead.")
                kwargs.update(positional)
            value = kwargs.get("weights", _MISSING)
            modern = value is None or isinstance(value, WeightsEnum) or (
                isinstance(value, str) and value != "legacy")
            if not modern and (value is not _MISSING or pretrained_param in kwargs):
                _translate_pretrained(kwargs, pretrained_param, legacy_default,
                                      builder.__name__)
            return builder(**kwargs)
        return wrapper
    return decorate


def _translate_pretrained(kwargs: dict, pretrained_param: str, legacy_default,
                          arch: str) -> None:
    """Replace a legacy pretrained flag in kwargs by the weights it stands for."""
    given_as_weights = "weights" in kwargs
    pretrained = kwargs.pop("weights") if given_as_weights else kwargs[pretrained_param]
    kwargs.pop(pretrained_param, None)
    if pretrained and not isinstance(legacy_default, WeightsEnum):
        raise ValueError(f"No weights available for model {arch}")
    chosen = legacy_default if pretrained else None
    if not given_as_weights:
        warnings.warn(f"The parameter '{pretrained_param}' is deprecated since 0.13 and may be "
                      "removed in the future, please use 'weights' instead.")
    message = ("Arguments other than a weight enum or `None` for 'weights' are deprecated "
               "since 0.13 and may be removed in the future. The current behavior is "
               f"equivalent to passing `weights={chosen}`.")
    if pretrained:
        message += (f" You can also use `weights={type(chosen).__name__}.DEFAULT` to get the "
                    "most up-to-date weights.")
    warnings.warn(message)
    kwargs["weights"] = chosen


class IntermediateLayerGetter(nn.ModuleDict):
    """The model's direct children up to the last one named in return_layers, run in
    order; forward returns {return_layers[name]: output} for the named ones. The model
    must call its children in registration order, each once."""

    _version = 2

    def __init__(self, model: nn.Module, return_layers: dict) -> None:
        if not set(return_layers).issubset(name for name, _ in model.named_children()):
            raise ValueError("return_layers are not present in model")
        remaining = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            remaining.pop(name, None)
            if not remaining:
                break
        super().__init__(layers)
        self.return_layers = return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


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


def init_mobilenet_(module: nn.Module) -> None:
    """MobileNetV2/V3 init of one module: init_conv_and_norm_, and N(0, 0.01) linear
    weights with zero biases."""
    init_conv_and_norm_(module)
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, 0, 0.01)
        nn.init.zeros_(module.bias)


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["kwonly_to_pos_or_kw"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
