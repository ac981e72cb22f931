"""The model registry and the pretrained-weights types (torchvision.models._api).

Every builder (resnet18, vit_b_16...) registers itself under its name, so models can be
listed and built by name. Each builder's `weights` argument takes a member of its
`*_Weights` enum (or its name as a string); a member carries the checkpoint URL, the
preprocessing its model expects (`transforms()`) and its metadata (`meta`).

ember never downloads: a checkpoint is read from the hub cache, where torch.hub puts its
downloads (`<ember.hub.get_dir()>/checkpoints/<file name of the URL>`), so weights
fetched once by torchvision, or copied there by hand, load offline.
"""
from __future__ import annotations

import fnmatch
import inspect
import os
import sys
import typing
from dataclasses import dataclass
from enum import Enum
from functools import partial
from types import ModuleType
from typing import Any, Callable, Iterable
from urllib.parse import urlparse

from ... import hub
from .._unavailable import is_stand_in

__all__ = ["WeightsEnum", "Weights", "get_model", "get_model_builder", "get_model_weights",
           "get_weight", "list_models"]


@dataclass
class Weights:
    """What one set of pretrained weights is: where its checkpoint lives (`url`), a
    callable building its preprocessing (`transforms`) and its metadata (`meta`:
    categories, num_params, min_size, recipe, _metrics, _ops, _file_size, _docs...)."""

    url: str
    transforms: Callable
    meta: dict[str, Any]

    def __eq__(self, other: Any) -> bool:
        # Compare partial(...) transforms by what they call: a deep-copied or unpickled
        # partial is a new object, and enum members are found again by equality.
        if not isinstance(other, Weights):
            return NotImplemented
        if self.url != other.url or self.meta != other.meta:
            return False
        mine, theirs = self.transforms, other.transforms
        if isinstance(mine, partial) and isinstance(theirs, partial):
            return (mine.func, mine.args, mine.keywords) == \
                (theirs.func, theirs.args, theirs.keywords)
        return mine == theirs


class WeightsEnum(Enum):
    """Base of every `*_Weights` enum: its members are Weights, and `DEFAULT` names the
    best one. `url`, `transforms` and `meta` read through to the member's Weights."""

    @classmethod
    def verify(cls, obj: Any) -> Any:
        """`obj` as a member of this enum: None stays None, a name ("IMAGENET1K_V1",
        "ResNet18_Weights.DEFAULT") is looked up; a member of another enum is refused."""
        if obj is None:
            return None
        if type(obj) is str:
            return cls[obj.replace(cls.__name__ + ".", "")]
        if not isinstance(obj, cls):
            raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but "
                            f"received {obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args: Any, **kwargs: Any) -> dict:
        """The checkpoint's state_dict, read from the hub cache (never downloaded).
        Takes hub.load_state_dict_from_url's arguments (model_dir, map_location,
        progress, check_hash, file_name, weights_only)."""
        return load_cached_state_dict(self, *args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self) -> str:
        return self.value.url

    @property
    def transforms(self) -> Callable:
        return self.value.transforms

    @property
    def meta(self) -> dict:
        return self.value.meta


def cached_checkpoint_path(url: str, model_dir: str | None = None,
                           file_name: str | None = None) -> str:
    """Where torch.hub keeps the download of `url`: model_dir (default
    <hub dir>/checkpoints) joined with file_name (default the URL's file name)."""
    if model_dir is None:
        model_dir = os.path.join(hub.get_dir(), "checkpoints")
    return os.path.join(model_dir, file_name or os.path.basename(urlparse(url).path))


def load_cached_state_dict(weights: WeightsEnum, model_dir: str | None = None,
                           map_location=None, progress: bool = True, check_hash: bool = False,
                           file_name: str | None = None, weights_only: bool = False) -> dict:
    """Load `weights`' checkpoint from the hub cache; a FileNotFoundError says where to
    put the file when it is not there (ember never goes to the network)."""
    path = cached_checkpoint_path(weights.url, model_dir, file_name)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{weights!r}: the pretrained weights are not available offline: {path} does not "
            f"exist, and ember never downloads. Fetch {weights.url} on a machine with network "
            f"access (torchvision keeps it in the same place) and copy it to {path}, or set "
            "TORCH_HOME / ember.hub.set_dir() to the folder holding checkpoints/.")
    return hub.load_state_dict_from_url(weights.url, model_dir=os.path.dirname(path),
                                        map_location=map_location, progress=progress,
                                        check_hash=check_hash,
                                        file_name=os.path.basename(path),
                                        weights_only=weights_only)


# ---------------------------------------------------------------- the registry
BUILTIN_MODELS: dict[str, Callable] = {}
# builders torchvision has and ember does not: they raise NotImplementedError naming
# the model, and list_models leaves them out
UNAVAILABLE_MODELS: dict[str, Callable] = {}


def register_model(name: str | None = None) -> Callable[[Callable], Callable]:
    """Decorator adding a model builder to the registry under `name` (default: the
    function's name)."""
    def wrapper(fn: Callable) -> Callable:
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn
    return wrapper


def _as_list(filters: Iterable[str] | str) -> list:
    return [filters] if isinstance(filters, str) else list(filters)


def list_models(module: ModuleType | None = None, include: Iterable[str] | str | None = None,
                exclude: Iterable[str] | str | None = None) -> list:
    """Sorted names of the registered models, optionally only those of `module`
    (e.g. torchvision.models.video) and filtered by fnmatch patterns: a name is kept
    when it matches any `include` pattern and no `exclude` pattern."""
    names = {name for name, fn in BUILTIN_MODELS.items()
             if module is None or fn.__module__.rsplit(".", 1)[0] == module.__name__}
    if include:
        names = {name for pattern in _as_list(include)
                 for name in fnmatch.filter(names, pattern)}
    if exclude:
        for pattern in _as_list(exclude):
            names -= set(fnmatch.filter(names, pattern))
    return sorted(names)


def get_model_builder(name: str) -> Callable:
    """The builder registered under `name` (case-insensitive)."""
    name = name.lower()
    if name in BUILTIN_MODELS:
        return BUILTIN_MODELS[name]
    if name in UNAVAILABLE_MODELS:
        return UNAVAILABLE_MODELS[name]
    raise ValueError(f"Unknown model {name}")


def get_model(name: str, **config: Any):
    """Build the model registered under `name`, passing `config` to its builder."""
    return get_model_builder(name)(**config)


def get_model_weights(name: Callable | str) -> type:
    """The `*_Weights` enum class of a builder (given as the function or its name),
    read from the annotation of its `weights` parameter."""
    builder = get_model_builder(name) if isinstance(name, str) else name
    parameters = inspect.signature(builder).parameters
    if "weights" not in parameters:
        if is_stand_in(builder):
            builder()  # raises, naming the model ember lacks
        raise ValueError("The method is missing the 'weights' argument.")
    module = sys.modules[builder.__module__]
    annotation = typing.get_type_hints(builder, vars(module)).get("weights")
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, WeightsEnum):
            return candidate
    raise ValueError("The WeightsEnum class for the specific method couldn't be retrieved. "
                     "Make sure the typing info is correct.")


def get_weight(name: str) -> WeightsEnum:
    """The weights member named like "ResNet50_Weights.IMAGENET1K_V1", searched in
    ember.vision.models and its subpackages."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    package = sys.modules[__name__.rsplit(".", 1)[0]]
    modules = [package] + [value for value in vars(package).values()
                           if isinstance(value, ModuleType)
                           and value.__name__.startswith(package.__name__ + ".")
                           and hasattr(value, "__path__")]
    for module in modules:
        candidate = vars(module).get(enum_name)
        if isinstance(candidate, type) and (issubclass(candidate, WeightsEnum)
                                            or is_stand_in(candidate)):
            return candidate[value_name]  # a stand-in raises, naming the enum
    raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be "
                     "retrieved.")
