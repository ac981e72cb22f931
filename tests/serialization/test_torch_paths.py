"""Pickles name classes and functions by module path: ember must answer to torch's paths
(files written by torch name them), and write torch's paths (so files written by ember
load in torch). Also `safe_globals` lists of ember classes match torch-written files."""
from __future__ import annotations

import importlib
import inspect
import io
import pkgutil

import numpy as np
import pytest
import torch

import ember
from ember import compat

# The torch packages whose classes and functions pickles and allow-lists name.
AUDITED = ["torch.nn", "torch.optim", "torch.utils.data"]
# Parts of those packages ember does not provide, each with the reason.
NOT_PROVIDED = {
    "torch.nn.quantized": "quantized tensors are not supported",
    "torch.nn.quantizable": "quantized tensors are not supported",
    "torch.nn.qat": "quantized tensors are not supported",
    "torch.nn.intrinsic": "quantized tensors are not supported",
    "torch.utils.data.datapipes": "DataPipes are deprecated in torch 2.x (moved to torchdata)",
    "torch.nn.attention.flex_attention": "flex attention compiles kernels; not in ember",
    "torch.nn.attention.varlen": "variable-length attention is CUDA-only in torch",
    "torch.nn.attention.bias": "CausalBias (SDPA mask objects) not yet in ember",
    "torch.nn.cpp": "wrappers of C++ modules",
}
# Single objects ember does not provide, with the reason.
NOT_PROVIDED_OBJECTS = {
    "torch.nn.functional.ScalingType": "CUDA-only scaled (float8) matrix multiplication",
    "torch.nn.functional.SwizzleType": "CUDA-only scaled (float8) matrix multiplication",
    "torch.nn.functional.scaled_mm": "CUDA-only scaled (float8) matrix multiplication",
    "torch.nn.functional.scaled_grouped_mm": "CUDA-only scaled (float8) matrix multiplication",
    "torch.nn.functional.grouped_mm": "CUDA-only grouped matrix multiplication",
    "torch.nn.utils.rnn.PackedSequence_": "the namedtuple base of PackedSequence; pickles "
                                          "name PackedSequence itself",
}
# torch objects whose qualified name differs from the public name they are found under
# (aliases made by torch's own helpers): pickles cannot name those by their home, so
# only the public name is checked.
QUIRKS = {"torch.nn.functional._threshold", "torch.nn.utils.clip_grad._clip_grads_with_norm_",
          "torch.nn.utils.clip_grad._get_total_norm", "torch.nn.attention._SDPBackend"}


def _public(module_name: str) -> bool:
    return not any(part.startswith("_") for part in module_name.split(".")[1:])


def _skipped(module_name: str) -> bool:
    return any(module_name == p or module_name.startswith(p + ".") for p in NOT_PROVIDED)


def _torch_objects():
    """{(public module, attribute): object} for every public class of the audited torch
    packages (where it is defined, or re-exported by a package) and every public function
    of torch.nn.functional / torch.nn.init."""
    found = {}
    for package in AUDITED:
        modules = [importlib.import_module(package)]
        for info in pkgutil.walk_packages(modules[0].__path__, package + "."):
            if _public(info.name) and not _skipped(info.name):
                modules.append(importlib.import_module(info.name))
        for module in modules:
            for attribute, obj in vars(module).items():
                wanted = inspect.isclass(obj) or (
                    inspect.isfunction(obj) and module.__name__ in ("torch.nn.functional",
                                                                    "torch.nn.init"))
                home = getattr(obj, "__module__", "") or ""
                exported = home == module.__name__ or hasattr(module, "__path__")
                if (wanted and exported and not attribute.startswith("_")
                        and home.startswith(package)
                        and _public(home) and not _skipped(home)
                        and f"{module.__name__}.{attribute}" not in NOT_PROVIDED_OBJECTS):
                    found.setdefault((module.__name__, attribute), obj)
    return sorted(found.items())


TORCH_OBJECTS = _torch_objects()


def _resolve(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def test_every_torch_path_resolves_to_the_ember_twin_and_back():
    assert len(TORCH_OBJECTS) > 300
    missing, misnamed = [], []
    for (public_module, attribute), torch_obj in TORCH_OBJECTS:
        try:
            twin = getattr(importlib.import_module(compat.ember_module_name(public_module)),
                           attribute)
        except (ImportError, AttributeError):
            missing.append(f"{public_module}.{attribute}")
            continue
        home, qualname = torch_obj.__module__, torch_obj.__qualname__
        if f"{home}.{qualname}" in QUIRKS or "<locals>" in qualname:
            continue
        # A torch file names the object by its home module: ember must find the twin there.
        try:
            at_home = _resolve(compat.ember_module_name(home), qualname)
        except (ImportError, AttributeError):
            at_home = None
        if at_home is not twin:
            missing.append(f"{home}.{qualname}")
        # ember writes the twin under its own home translated to torch: torch must find
        # its object there.
        try:
            back = _resolve(compat.torch_module_name(twin.__module__), twin.__qualname__)
        except (ImportError, AttributeError):
            back = None
        if back is not torch_obj:
            misnamed.append(f"{twin.__module__}.{twin.__qualname__} for {home}.{qualname}")
    assert missing == [], f"{len(missing)} torch paths ember lacks: {missing}"
    assert misnamed == [], f"{len(misnamed)} ember objects torch would not find: {misnamed}"


# ---------------------------------------------------------------- whole models both ways
def _models(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return {
        "mlp": (nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 3)),
                (4, 6)),
        "cnn": (nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 5)),
                (2, 1, 8, 8)),
        "lstm": (nn.LSTM(6, 5, num_layers=2, batch_first=True), (3, 4, 6)),
        "attention": (nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                                       batch_first=True), 2),
                      (2, 5, 8)),
        "mha": (nn.MultiheadAttention(8, 2, batch_first=True), (2, 5, 8)),
    }


def _output(model, lib, shape):
    x = lib.from_numpy(np.random.default_rng(1).standard_normal(shape).astype(np.float32))
    model.eval()
    with lib.no_grad():
        out = model(x, x, x) if type(model).__name__ == "MultiheadAttention" else model(x)
    out = out[0] if isinstance(out, tuple) else out
    return out.numpy()


def _save(lib, obj) -> io.BytesIO:
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "attention", "mha"])
def test_whole_model_saved_by_ember_loads_in_torch(name):
    # torch used to fail with "No module named 'ember'".
    model, shape = _models(ember)[name]
    loaded = torch.load(_save(ember, model), weights_only=False)
    assert type(loaded) is getattr(torch.nn, type(model).__name__)
    np.testing.assert_allclose(_output(loaded, torch, shape), _output(model, ember, shape),
                               rtol=1e-5, atol=1e-6)
    assert list(loaded.state_dict()) == list(model.state_dict())
    again = ember.load(_save(ember, model), weights_only=False)
    assert type(again) is type(model)


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "attention", "mha"])
def test_whole_model_saved_by_torch_loads_in_ember(name):
    # MultiheadAttention used to fail: "ember does not provide torch.nn.modules.activation".
    model, shape = _models(torch)[name]
    loaded = ember.load(_save(torch, model), weights_only=False)
    assert type(loaded) is getattr(ember.nn, type(model).__name__)
    np.testing.assert_allclose(_output(loaded, ember, shape), _output(model, torch, shape),
                               rtol=1e-5, atol=1e-6)


def _classes_in(model) -> list:
    return sorted({type(m) for m in model.modules()}, key=lambda c: c.__name__)


def test_safe_globals_of_ember_classes_match_torch_written_files():
    # The allow-list used to match only ember's own names, so torch's files were refused.
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    data = _save(torch, model).getvalue()
    with pytest.raises(Exception, match="Unsupported global"):
        ember.load(io.BytesIO(data))
    with ember.serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear,
                                           ember.nn.ReLU]):
        loaded = ember.load(io.BytesIO(data))
    assert [type(m).__name__ for m in loaded] == ["Linear", "ReLU"]


@pytest.mark.parametrize("name", ["mlp", "mha"])
def test_safe_globals_loads_ember_written_files_in_both(name):
    model, shape = _models(ember)[name]
    data = _save(ember, model).getvalue()
    ember_classes = _classes_in(model)
    torch_classes = [_resolve(compat.torch_module_name(c.__module__), c.__qualname__)
                     for c in ember_classes]
    with torch.serialization.safe_globals(torch_classes):
        loaded = torch.load(io.BytesIO(data))
    np.testing.assert_allclose(_output(loaded, torch, shape), _output(model, ember, shape),
                               rtol=1e-5, atol=1e-6)
    with ember.serialization.safe_globals(ember_classes):
        assert type(ember.load(io.BytesIO(data))) is type(model)


def test_functions_held_by_a_model_pickle_under_torch_names():
    holder = {"activation": ember.nn.functional.relu, "init": ember.nn.init.xavier_uniform_}
    loaded = torch.load(_save(ember, holder), weights_only=False)
    assert loaded == {"activation": torch.nn.functional.relu,
                      "init": torch.nn.init.xavier_uniform_}
    back = ember.load(_save(torch, loaded), weights_only=False)
    assert back == holder


def test_top_level_functions_pickle_under_torch_names():
    # torch.tanh and friends are what models hold (self.act = torch.tanh): every
    # top-level function ember shares with torch pickles to the name torch resolves.
    shared = [name for name, obj in vars(ember).items()
              if not name.startswith("_") and inspect.isfunction(obj)
              and callable(getattr(torch, name, None))]
    assert len(shared) > 300
    wrong = []
    for name in shared:
        obj = getattr(ember, name)
        try:
            resolved = _resolve(compat.torch_module_name(obj.__module__), obj.__qualname__)
        except (ImportError, AttributeError):
            resolved = None
        # An alias (concat for cat) pickles under the name it was defined with.
        if resolved is not getattr(torch, name) and resolved is not getattr(torch, obj.__name__,
                                                                            None):
            wrong.append(f"{name} -> {obj.__module__}.{obj.__qualname__}")
    assert wrong == NOT_PICKLED_BY_TORCH_NAME


# Top-level functions ember defines under another name, with the reason.
NOT_PICKLED_BY_TORCH_NAME = [
    "nonzero_static -> ember._tensor.Tensor.nonzero_static",    # the Tensor method itself
]
