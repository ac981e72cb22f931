"""ember.save / ember.load against real torch.save / torch.load, both directions."""
from __future__ import annotations

import inspect
import io
import os
import pathlib
import pickle
import zipfile
from collections import OrderedDict

import ml_dtypes
import numpy as np
import pytest
import torch

import ember
from ember.serialization import _pickling

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]
SHAPES = [(2, 3), (), (0,), (2, 0, 3)]


def values(dtype: str, shape: tuple) -> np.ndarray:
    """Distinct, exactly representable values of `dtype` (bfloat16 via ml_dtypes)."""
    raw = (np.arange(int(np.prod(shape))) * 7 % 11 - 5).reshape(shape)
    if dtype == "bool":
        a = raw > 0
    elif dtype.startswith("complex"):
        a = (raw + 0.5j * raw[::-1] if raw.ndim else raw + 0.5j).astype(dtype)
    elif dtype == "uint8":
        a = (raw + 5).astype(np.uint8)
    elif dtype.startswith(("float", "bfloat")):
        a = (raw / 4).astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    else:
        a = raw.astype(dtype)
    return np.asarray(a)


def np_of(t) -> np.ndarray:
    """A tensor's values as NumPy (bfloat16 widened exactly to float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    return t._data.astype(np.float32) if t.dtype == ember.bfloat16 else t._data


def ember_tensor(a: np.ndarray):
    return ember.Tensor._wrap(np.array(a))


def torch_tensor(a: np.ndarray):
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(np.array(a))


def assert_same(e, t) -> None:
    assert str(e.dtype) == str(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(np_of(e), np_of(t))


def torch_bytes(obj, **kwargs) -> io.BytesIO:
    buf = io.BytesIO()
    torch.save(obj, buf, **kwargs)
    buf.seek(0)
    return buf


def ember_bytes(obj, **kwargs) -> io.BytesIO:
    buf = io.BytesIO()
    ember.save(obj, buf, **kwargs)
    buf.seek(0)
    return buf


# ---------------------------------------------------------------- every dtype, both ways
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_to_torch(dtype, shape):
    a = values(dtype, shape)
    loaded = torch.load(ember_bytes({"t": ember_tensor(a)}), weights_only=True)["t"]
    assert_same(ember_tensor(a), loaded)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_to_ember(dtype, shape):
    t = torch_tensor(values(dtype, shape))
    loaded = ember.load(torch_bytes([t]))[0]
    assert type(loaded) is ember.Tensor
    assert_same(loaded, t)
    assert loaded._data.flags.writeable


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_to_ember_to_torch(dtype):
    t = torch_tensor(values(dtype, (3, 4))).t()
    again = torch.load(ember_bytes(ember.load(torch_bytes(t))), weights_only=True)
    assert again.dtype == t.dtype and again.stride() == t.stride()
    assert torch.equal(again, t)


def test_requires_grad_and_parameters_survive():
    p = ember.nn.Parameter(ember.randn(2, 3))
    frozen = ember.nn.Parameter(ember.randn(2), requires_grad=False)
    x = ember.randn(3, requires_grad=True)
    loaded = torch.load(ember_bytes([p, frozen, x]), weights_only=True)
    assert isinstance(loaded[0], torch.nn.Parameter) and loaded[0].requires_grad
    assert isinstance(loaded[1], torch.nn.Parameter) and not loaded[1].requires_grad
    assert type(loaded[2]) is torch.Tensor and loaded[2].requires_grad
    back = ember.load(torch_bytes(loaded))
    assert type(back[0]) is ember.nn.Parameter and back[0].requires_grad
    assert type(back[1]) is ember.nn.Parameter and not back[1].requires_grad
    assert type(back[2]) is ember.Tensor and back[2].requires_grad and back[2].is_leaf
    np.testing.assert_array_equal(back[0]._data, p._data)


def test_plain_values_dtypes_devices_sizes():
    obj = {"int": 3, "float": 0.5, "str": "s", "none": None, "tuple": (1, (2, 3)),
           "list": [1.5, True], "bytes": b"\x00\xff", "set": {1, 2}, "complex": 1 + 2j,
           "dtype": ember.bfloat16, "device": ember.device("cpu"), "size": ember.Size([2, 3])}
    loaded = torch.load(ember_bytes(obj), weights_only=True)
    assert loaded["dtype"] is torch.bfloat16 and loaded["device"] == torch.device("cpu")
    assert type(loaded["size"]) is torch.Size and loaded["size"] == (2, 3)
    back = ember.load(torch_bytes(loaded))
    assert back == obj
    assert type(back["size"]) is ember.Size and back["dtype"] is ember.bfloat16


# ---------------------------------------------------------------- shared storages and views
def test_ember_views_share_a_storage_in_torch():
    a = ember.arange(12.).reshape(3, 4)
    loaded = torch.load(ember_bytes({"a": a, "row": a[1], "t": a.t(), "cols": a[:, 1:3],
                                     "sub": a[1:, ::2]}), weights_only=True)
    ptr = loaded["a"].untyped_storage().data_ptr()
    for name, offset, stride in [("row", 4, (1,)), ("t", 0, (1, 4)), ("cols", 1, (4, 1)),
                                 ("sub", 4, (4, 2))]:
        assert loaded[name].untyped_storage().data_ptr() == ptr
        assert loaded[name].storage_offset() == offset and loaded[name].stride() == stride
    assert torch.equal(loaded["sub"], torch.arange(12.).reshape(3, 4)[1:, ::2])
    loaded["a"][1, 1] = 100.
    assert loaded["row"][1] == 100. and loaded["t"][1, 1] == 100.
    with zipfile.ZipFile(ember_bytes([a, a[1]])) as z:
        assert [n for n in z.namelist() if "/data/" in n] == ["archive/data/0"]


def test_torch_views_share_memory_in_ember():
    a = torch.arange(12.).reshape(3, 4)
    loaded = ember.load(torch_bytes({"a": a, "row": a[1], "t": a.t(), "other": a.clone()}))
    assert np.shares_memory(loaded["a"]._data, loaded["row"]._data)
    assert np.shares_memory(loaded["a"]._data, loaded["t"]._data)
    assert not np.shares_memory(loaded["a"]._data, loaded["other"]._data)
    loaded["a"][1, 2] = -1.
    assert loaded["row"][2].item() == -1. and loaded["t"][2, 1].item() == -1.
    # Saving again keeps the sharing.
    again = torch.load(ember_bytes(loaded), weights_only=True)
    assert again["row"].untyped_storage().data_ptr() == again["a"].untyped_storage().data_ptr()


def test_same_tensor_twice_stays_one_object():
    x = ember.ones(3)
    a, b = ember.load(ember_bytes([x, x]))
    assert a is b


def test_memory_torch_cannot_describe_is_copied():
    flipped = ember.Tensor._wrap(np.arange(6.)[::-1])        # negative stride
    loaded = torch.load(ember_bytes(flipped), weights_only=True)
    assert torch.equal(loaded, torch.arange(6.).flip(0))


def test_different_dtypes_over_one_memory_are_refused():
    x = ember.ones(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        ember.save([x, ember.Tensor._wrap(x._data.view(np.int32))], io.BytesIO())


# ---------------------------------------------------------------- modules and optimizers
def ember_mlp():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))


def torch_mlp():
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))


def test_state_dict_ember_to_torch_module():
    model = ember_mlp()
    sd = torch.load(ember_bytes(model.state_dict()), weights_only=True)
    assert type(sd) is OrderedDict and sd._metadata == model.state_dict()._metadata
    net = torch_mlp()
    assert list(sd) == list(net.state_dict())
    net.load_state_dict(sd)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(net(torch.from_numpy(x)).detach().numpy(),
                               model(ember.from_numpy(x))._data, rtol=1e-6, atol=1e-6)


def test_state_dict_torch_module_to_ember():
    net = torch_mlp()
    sd = ember.load(torch_bytes(net.state_dict()))
    assert type(sd) is OrderedDict and sd._metadata == net.state_dict()._metadata
    model = ember_mlp()
    model.load_state_dict(sd)
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(model(ember.from_numpy(x))._data,
                               net(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def train_both(steps: int = 3):
    """An ember and a torch MLP with equal weights, each trained `steps` Adam steps."""
    model, net = ember_mlp(), torch_mlp()
    net.load_state_dict(torch.load(ember_bytes(model.state_dict()), weights_only=True))
    e_opt = ember.optim.Adam(model.parameters(), lr=0.01)
    t_opt = torch.optim.Adam(net.parameters(), lr=0.01)
    x = np.random.default_rng(2).standard_normal((8, 3)).astype(np.float32)
    for _ in range(steps):
        e_opt.zero_grad()
        model(ember.from_numpy(x)).pow(2).mean().backward()
        e_opt.step()
        t_opt.zero_grad()
        net(torch.from_numpy(x)).pow(2).mean().backward()
        t_opt.step()
    return model, e_opt, net, t_opt


def assert_optimizer_states_close(a: dict, b: dict) -> None:
    assert a["param_groups"] == b["param_groups"]
    assert a["state"].keys() == b["state"].keys()
    for key, state in a["state"].items():
        assert state.keys() == b["state"][key].keys()
        for name, value in state.items():
            np.testing.assert_allclose(np_of(value), np_of(b["state"][key][name]),
                                       rtol=1e-5, atol=1e-7)


def test_optimizer_state_dict_both_ways():
    model, e_opt, net, t_opt = train_both()
    from_ember = torch.load(ember_bytes(e_opt.state_dict()), weights_only=True)
    assert_optimizer_states_close(from_ember, t_opt.state_dict())
    torch.optim.Adam(torch_mlp().parameters()).load_state_dict(from_ember)
    from_torch = ember.load(torch_bytes(t_opt.state_dict()))
    assert_optimizer_states_close(from_torch, t_opt.state_dict())
    ember.optim.Adam(ember_mlp().parameters()).load_state_dict(from_torch)


def test_training_checkpoint(tmp_path):
    model, e_opt, _, _ = train_both(2)
    path = tmp_path / "checkpoint.pth"
    ember.save({"epoch": 2, "model": model.state_dict(), "optimizer": e_opt.state_dict(),
                "best_acc": 0.75}, path)
    ckpt = torch.load(path, weights_only=True)
    assert ckpt["epoch"] == 2 and ckpt["best_acc"] == 0.75
    torch_mlp().load_state_dict(ckpt["model"])
    resumed = ember.load(path)
    fresh = ember_mlp()
    fresh.load_state_dict(resumed["model"])
    opt = ember.optim.Adam(fresh.parameters(), lr=0.01)
    opt.load_state_dict(resumed["optimizer"])
    assert_optimizer_states_close(opt.state_dict(), e_opt.state_dict())


def test_whole_module_needs_weights_only_false(tmp_path):
    model = ember_mlp()
    ember.save(model, tmp_path / "model.pt")
    with pytest.raises(pickle.UnpicklingError, match="(?s)Weights only load failed.*GLOBAL "
                                                     "torch.nn.modules.container.Sequential"):
        ember.load(tmp_path / "model.pt")
    again = ember.load(tmp_path / "model.pt", weights_only=False)
    assert type(again) is ember.nn.Sequential
    x = ember.randn(2, 3)
    np.testing.assert_array_equal(again(x)._data, model(x)._data)
    assert type(again[0].weight) is ember.nn.Parameter


def unpickling_error(load, data: io.BytesIO, **kwargs) -> str:
    """The message of the UnpicklingError `load` raises on `data`."""
    data.seek(0)
    with pytest.raises(pickle.UnpicklingError) as info:
        load(data, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("obj", [np.arange(3.0), print])
def test_refused_global_named_as_torch_names_it(obj):
    def refusal(load) -> str:
        message = unpickling_error(load, torch_bytes(obj))
        return message[message.index("Unsupported global:"):message.index("class/function.")]
    assert refusal(ember.load) == refusal(torch.load)


def test_env_forces_weights_only_off_when_unset(monkeypatch):
    # Programs from before torch 2.6 pickle NumPy arrays or whole models and call load()
    # without weights_only; torch's documented escape hatch is this variable.
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    data = torch_bytes(np.arange(3.0))
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
        expected = torch.load(data)
    data.seek(0)
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
        np.testing.assert_array_equal(ember.load(data), expected)
    for load in (torch.load, ember.load):      # an explicit weights_only=True still holds
        assert "Weights only load failed" in unpickling_error(load, data, weights_only=True)


def test_env_forces_weights_only_on(monkeypatch):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "yes")
    data = torch_bytes(np.arange(3.0))
    for load in (torch.load, ember.load):
        assert "Weights only load failed" in unpickling_error(load, data, weights_only=False)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    for load in (torch.load, ember.load):
        with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
            load(torch_bytes(1))


def test_load_signature_matches_torch():
    def parameters(fn) -> list:
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
    assert parameters(ember.load) == parameters(torch.load)


# ---------------------------------------------------------------- files, names, formats
def test_paths_file_objects_and_archive_names(tmp_path):
    x = ember.arange(3)
    ember.save(x, str(tmp_path / "a.b.pth"))
    ember.save(x, tmp_path / "plain")
    with open(tmp_path / "obj.pt", "wb") as f:
        ember.save(x, f)
    for name, archive in [("a.b.pth", "a.b"), ("plain", "plain"), ("obj.pt", "archive")]:
        with zipfile.ZipFile(tmp_path / name) as z:
            assert z.namelist()[0] == f"{archive}/data.pkl"
            assert z.read(f"{archive}/byteorder") == b"little"
            assert z.read(f"{archive}/version") == b"3\n"
        assert torch.equal(torch.load(tmp_path / name, weights_only=True), torch.arange(3))
        with open(tmp_path / name, "rb") as f:
            assert ember.load(f).tolist() == [0, 1, 2]
    assert ember.load(pathlib.Path(tmp_path / "plain")).tolist() == [0, 1, 2]
    assert ember.load(str(tmp_path / "a.b.pth")).tolist() == [0, 1, 2]


def test_records_are_64_byte_aligned():
    data = ember_bytes({"a": ember.ones(3), "b": ember.ones(5, dtype=ember.int8)}).getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            start = info.header_offset + 30 + int.from_bytes(
                data[info.header_offset + 26:info.header_offset + 28], "little") + \
                int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
            assert start % 64 == 0, info.filename


def test_legacy_format_both_ways():
    a = torch.arange(6.).reshape(2, 3)
    obj = {"a": a, "row": a[1], "i": torch.tensor([1, 2]), "meta": (1, "x")}
    loaded = ember.load(torch_bytes(obj, _use_new_zipfile_serialization=False))
    assert_same(loaded["a"], a)
    assert_same(loaded["row"], a[1])
    assert np.shares_memory(loaded["a"]._data, loaded["row"]._data)
    assert loaded["meta"] == (1, "x")
    legacy = ember_bytes(loaded, _use_new_zipfile_serialization=False)
    assert not zipfile.is_zipfile(legacy)
    legacy.seek(0)
    back = torch.load(legacy, weights_only=True)
    assert torch.equal(back["a"], a) and torch.equal(back["i"], obj["i"])
    assert back["row"].untyped_storage().data_ptr() == back["a"].untyped_storage().data_ptr()


def test_mmap_load(tmp_path):
    path = tmp_path / "w.pt"
    torch.save({"w": torch.arange(20.), "e": torch.empty(0)}, path)
    loaded = ember.load(path, mmap=True)
    assert loaded["w"].tolist() == list(range(20)) and loaded["e"].numel() == 0
    loaded["w"][0] = 5.                        # copy-on-write: the file keeps its data
    assert torch.load(path, weights_only=True)["w"][0] == 0.
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        ember.load(io.BytesIO(path.read_bytes()), mmap=True)


# ---------------------------------------------------------------- map_location
def cuda_checkpoint() -> io.BytesIO:
    """A checkpoint whose storages claim to live on 'cuda:0' (torch wrote it on the CPU;
    the location string is patched, keeping the pickle's structure)."""
    src = zipfile.ZipFile(torch_bytes({"w": torch.arange(4.)}))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("data.pkl"):
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            z.writestr(info.filename, data)
    out.seek(0)
    return out


def test_cuda_checkpoint_loads_on_cpu():
    assert torch.load(cuda_checkpoint(), map_location="cpu", weights_only=True)["w"].sum() == 6
    with pytest.warns(UserWarning, match="saved on 'cuda:0'; ember runs on the CPU") as record:
        assert ember.load(cuda_checkpoint())["w"].tolist() == [0, 1, 2, 3]
    assert record[0].filename == __file__         # points at the caller's line


@pytest.mark.parametrize("map_location", ["cpu", ember.device("cpu"), {"cuda:0": "cpu"},
                                          lambda storage, location: storage])
def test_map_location_forms(map_location, recwarn):
    assert ember.load(cuda_checkpoint(), map_location=map_location)["w"].tolist() == [0, 1, 2, 3]
    assert not [w for w in recwarn if "ember.load" in str(w.message)]


def test_map_location_callable_sees_location():
    seen = []
    ember.load(cuda_checkpoint(), map_location=lambda s, loc: seen.append(loc) or s)
    assert seen == ["cuda:0"]


def test_map_location_to_cuda_fails_like_a_cpu_build():
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        ember.load(ember_bytes(ember.ones(1)), map_location="cuda")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        ember.load(ember_bytes(ember.ones(1)), map_location={"cpu": "cuda:0"})
    with pytest.raises(TypeError, match="map_location should be"):
        ember.load(ember_bytes(ember.ones(1)), map_location=3)


# ---------------------------------------------------------------- safety
def with_data_pkl(data: bytes) -> io.BytesIO:
    """A real ember checkpoint whose data.pkl is replaced by `data`."""
    src = zipfile.ZipFile(ember_bytes({"w": ember.ones(2)}))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in src.infolist():
            z.writestr(info.filename, data if info.filename.endswith("data.pkl")
                       else src.read(info))
    out.seek(0)
    return out


class Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return os.system, (f"touch {self.path}",)


def test_malicious_pickle_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    checkpoint = with_data_pkl(pickle.dumps({"w": Evil(marker)}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match=r"(?s)^Weights only load failed\..*"
                                                     r"Unsupported global: GLOBAL posix\.system"):
        ember.load(checkpoint)
    assert not marker.exists()
    checkpoint.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL posix.system"):
        torch.load(checkpoint, weights_only=True)
    assert not marker.exists()


def test_build_cannot_patch_an_allowed_class():
    # GLOBAL torch.Size; (None, {'__repr__': torch.Size}) BUILD -> setattr on the class.
    evil = (b"\x80\x02ctorch\nSize\nN}X\x08\x00\x00\x00__repr__ctorch\nSize\ns\x86b.")
    with pytest.raises(pickle.UnpicklingError, match="Can only build"):
        ember.load(with_data_pkl(evil))
    assert repr(ember.Size([1])) == "torch.Size([1])"


def test_out_of_bounds_geometry_is_refused():
    storage = np.zeros(4, np.float32)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        _pickling._rebuild_tensor_v2(storage, 2, (3,), (1,))
    with pytest.raises(RuntimeError, match="invalid tensor geometry"):
        _pickling._rebuild_tensor_v2(storage, 0, (2,), (-1,))


class Point:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Point) and other.x == self.x


def test_safe_globals_api():
    buf = ember_bytes({"p": Point(3)})
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL test_serialization.Point|"
                                                     "GLOBAL tests.test_serialization.Point"):
        ember.load(buf)
    assert ember.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())) \
        == [f"{Point.__module__}.Point"]
    with ember.serialization.safe_globals([Point]):
        assert ember.serialization.get_safe_globals() == [Point]
        assert ember.load(io.BytesIO(buf.getvalue()))["p"] == Point(3)
    assert ember.serialization.get_safe_globals() == []
    ember.serialization.add_safe_globals([(Point, f"{Point.__module__}.Point")])
    try:
        assert ember.load(io.BytesIO(buf.getvalue()))["p"] == Point(3)
    finally:
        ember.serialization.clear_safe_globals()
    assert ember.serialization.get_safe_globals() == []


# ---------------------------------------------------------------- damaged files
@pytest.mark.parametrize("content", [
    "half", "random", "empty", "text"])
def test_damaged_files_name_the_file(tmp_path, content):
    good = ember_bytes({"w": ember.ones(100)}).getvalue()
    data = {"half": good[:len(good) // 2], "random": np.random.default_rng(0).bytes(500),
            "empty": b"", "text": b"hello world\n"}[content]
    path = tmp_path / "bad.pth"
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match=r"ember.load: '.*bad\.pth' is not a PyTorch "
                                           r"checkpoint.*truncated or corrupt"):
        ember.load(path)


def test_zip_without_data_pkl(tmp_path):
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("x/readme.txt", "hi")
    with pytest.raises(RuntimeError, match="other.zip' is not a PyTorch checkpoint.*without a "
                                           "data.pkl"):
        ember.load(path)


def test_damaged_record_inside_zip(tmp_path):
    src = zipfile.ZipFile(ember_bytes({"w": ember.ones(4)}))
    path = tmp_path / "short.pth"
    with zipfile.ZipFile(path, "w") as z:
        for info in src.infolist():
            data = src.read(info)
            z.writestr(info.filename, data[:5] if info.filename.endswith("data/0") else data)
    with pytest.raises(RuntimeError, match="short.pth' is a damaged PyTorch checkpoint.*"
                                           "holds 5 bytes, expected 16"):
        ember.load(path)


# ---------------------------------------------------------------- atomic save
def test_failed_save_leaves_old_file_intact(tmp_path):
    path = tmp_path / "ckpt.pth"
    ember.save({"w": ember.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"w": ember.zeros(3), "bad": lambda: None}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.pth"]
    assert torch.load(path, weights_only=True)["w"].tolist() == [1., 1., 1.]


def test_save_into_missing_folder(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .*missing does not exist"):
        ember.save(ember.ones(1), tmp_path / "missing" / "x.pt")


def test_whole_torch_module_loads_as_ember_module():
    net = torch_mlp()
    model = ember.load(torch_bytes(net), weights_only=False)
    assert type(model) is ember.nn.Sequential and type(model[0]) is ember.nn.Linear
    x = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(model(ember.from_numpy(x))._data,
                               net(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
    with pytest.raises(NotImplementedError, match="uses torch.nn.NoSuchLayer, which ember"):
        ember.load(with_data_pkl(b"\x80\x02ctorch.nn\nNoSuchLayer\n."), weights_only=False)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_unsigned_tensors_round_trip_with_torch(tmp_path, name):
    # torch writes these dtypes as bytes (UntypedStorage) rebuilt by _rebuild_tensor_v3.
    top = int(np.iinfo(name).max)
    base = torch.tensor([top, 1, 2, 3, 4, 5, 6], dtype=getattr(torch, name))
    saved = {"whole": base, "view": base[1:].view(2, 3).t(), "float": torch.ones(2)}
    torch.save(saved, tmp_path / "t.pt")
    loaded = ember.load(tmp_path / "t.pt")
    for key, t in saved.items():
        e = loaded[key]
        assert e.dtype is getattr(ember, str(t.dtype).removeprefix("torch."))
        assert e.stride() == t.stride() and np.array_equal(e.numpy(), t.numpy())
    ember.save(loaded, tmp_path / "e.pt")
    back = torch.load(tmp_path / "e.pt")
    for key, t in saved.items():
        assert back[key].dtype == t.dtype and torch.equal(back[key], t)
        assert back[key].stride() == t.stride()


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                                  "float8_e5m2fnuz", "float8_e8m0fnu"])
def test_float8_round_trips_both_ways(name):
    data = [0.5, 1.0, 2.0, 4.0]       # exact in every float8 format (e8m0 holds powers of two)
    t = torch.tensor(data).to(getattr(torch, name))
    loaded = ember.load(torch_bytes({"t": t}))["t"]
    assert loaded.dtype is getattr(ember, name) and loaded.float().tolist() == data
    again = torch.load(ember_bytes({"t": loaded}), weights_only=True)["t"]
    assert again.dtype == t.dtype and torch.equal(again.view(torch.uint8), t.view(torch.uint8))
