"""Every public function and class of ember's main namespaces, and every public method of
Tensor, nn.Module and optim.Optimizer, carries a docstring of its own (issue 17): what torch's
says, in ember's words.

"Its own" means the object's `__doc__` (for a class, the one in its own `__dict__`), since
`inspect.getdoc` would hand a class its base class's text. A method that inherits its base's
docstring passes only when torch's method of that name inherits too.

Skipped, because they are values rather than functions or classes: modules, and the re-exported
constants and instances listed in CONSTANT_TYPES (dtypes, layouts, memory formats, math
constants, `default_generator`, string flags, the distributions' registries). Properties are
not methods and are not checked.
"""
import importlib
import inspect
import types

import pytest

import ember

NAMESPACES = [
    "ember", "ember.nn", "ember.nn.functional", "ember.nn.init", "ember.nn.utils", "ember.optim",
    "ember.optim.lr_scheduler", "ember.utils.data", "ember.linalg", "ember.fft", "ember.special",
    "ember.autograd", "ember.distributions", "ember.amp"]
CLASSES = ["Tensor", "nn.Module", "optim.Optimizer"]

# The kinds of value a namespace may export without a docstring, by type name.
CONSTANT_TYPES = {
    "dtype",  # ember.float32, ember.long ...
    "layout",  # ember.strided, ember.sparse_coo ...
    "memory_format",  # ember.channels_last, ember.preserve_format ...
    "float",  # ember.pi, ember.e, ember.inf, ember.nan
    "bool",  # build flags: ember.has_lapack, ember.has_mkl ...
    "NoneType",  # ember.newaxis
    "str", "tuple",  # string flags such as lr_scheduler.EPOCH_DEPRECATION_WARNING
    "Generator",  # ember.default_generator
    "_Feature",  # `from __future__ import annotations` seen as a module attribute
    "ConstraintRegistry", "ComposeTransform",  # distributions.biject_to, identity_transform
}


def _public_names(module) -> list:
    return sorted(set(getattr(module, "__all__", None)
                      or [name for name in dir(module) if not name.startswith("_")]))


def _is_documentable(obj) -> bool:
    return isinstance(obj, type) or inspect.isroutine(obj)


def _own_doc(obj) -> str:
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    return doc.strip() if isinstance(doc, str) else ""


def _resolve(root, path: str):
    for part in path.split("."):
        root = getattr(root, part)
    return root


def _torch_inherits_doc(class_path: str, name: str) -> bool:
    """Whether torch's method `name` of the class at `class_path` also lacks a docstring of
    its own while inheriting one."""
    torch = pytest.importorskip("torch")
    method = getattr(_resolve(torch, class_path), name, None)
    return method is not None and not _own_doc(method) and bool(inspect.getdoc(method))


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_public_names_have_docstrings(namespace):
    module = importlib.import_module(namespace)
    missing = [name for name in _public_names(module)
               if _is_documentable(getattr(module, name)) and not _own_doc(getattr(module, name))]
    assert not missing, (f"{len(missing)} public names of {namespace} have no docstring: "
                         + ", ".join(missing))


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_only_constants_are_skipped(namespace):
    module = importlib.import_module(namespace)
    skipped = {name: type(getattr(module, name)).__name__ for name in _public_names(module)
               if not _is_documentable(getattr(module, name))
               and not isinstance(getattr(module, name), types.ModuleType)}
    unexpected = {name: kind for name, kind in skipped.items() if kind not in CONSTANT_TYPES}
    assert not unexpected, f"{namespace} exports values the docstring check skips: {unexpected}"


@pytest.mark.parametrize("class_path", CLASSES)
def test_public_methods_have_docstrings(class_path):
    cls = _resolve(ember, class_path)
    missing = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        method = inspect.getattr_static(cls, name)
        if isinstance(method, (staticmethod, classmethod)):
            method = method.__func__
        if not inspect.isroutine(method) or _own_doc(method):
            continue
        if inspect.getdoc(getattr(cls, name)) and _torch_inherits_doc(class_path, name):
            continue
        missing.append(name)
    assert not missing, (f"{len(missing)} public methods of {class_path} have no docstring: "
                         + ", ".join(missing))
