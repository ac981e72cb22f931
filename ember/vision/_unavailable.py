"""Stand-ins for the parts of torchvision ember does not implement.

Code written for torchvision imports these names (`from torchvision.models.detection
import fasterrcnn_resnet50_fpn`) long before it calls them; the import works, and the
first real use raises NotImplementedError naming the torchvision object, rather than an
ImportError that hides which feature is missing. A stand-in is a function (lowercase
names) or a class (CamelCase names: models, enums, policies) whose construction and
member lookups raise.
"""
from __future__ import annotations


def _torchvision_name(module_name: str, name: str) -> str:
    """ember.vision.models.googlenet + googlenet -> torchvision.models.googlenet.googlenet"""
    return "torchvision" + module_name[len("ember.vision"):] + "." + name


def _message(full_name: str) -> str:
    return f"{full_name} is not implemented in ember"


class _UnavailableMeta(type):
    """Looking up a member of an unavailable class (an enum's, a policy's) raises too."""

    def __getattr__(cls, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(_message(cls._torchvision_name))

    def __getitem__(cls, key):
        raise NotImplementedError(_message(cls._torchvision_name))

    def __iter__(cls):
        raise NotImplementedError(_message(cls._torchvision_name))


def is_stand_in(obj) -> bool:
    """Whether obj is one of these stand-ins."""
    return getattr(obj, "_torchvision_name", None) is not None


def _stand_in(module_name: str, name: str):
    full_name = _torchvision_name(module_name, name)
    doc = f"Not implemented in ember: {full_name} raises NotImplementedError when used."
    if name.lstrip("_")[:1].isupper():
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(_message(full_name))
        return _UnavailableMeta(name, (), {"__module__": module_name, "__doc__": doc,
                                           "__init__": __init__,
                                           "_torchvision_name": full_name})

    def unavailable(*args, **kwargs):
        raise NotImplementedError(_message(full_name))
    unavailable.__name__ = unavailable.__qualname__ = name
    unavailable.__module__ = module_name
    unavailable.__doc__ = doc
    unavailable._torchvision_name = full_name
    return unavailable


def stand_ins(module_name: str, names: list, registry: dict | None = None,
              builders: tuple = (), prefix: str = "") -> dict:
    """{name: stand-in} for the torchvision names of `module_name` that ember lacks. The
    model `builders` among them also go into `registry` (under prefix + name, as
    torchvision registers them), so get_model finds them and says what is missing."""
    made = {name: _stand_in(module_name, name) for name in names}
    for name in builders:
        registry[prefix + name] = made[name]
    return made
