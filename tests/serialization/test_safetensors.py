"""ember.serialization.save_safetensors / load_safetensors against the safetensors package."""
from __future__ import annotations

import sys

import ml_dtypes
import numpy as np
import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

import ember
from ember.serialization import load_safetensors, save_safetensors

# The safetensors format has no complex128.
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64"]


def sample(dtype: str, shape=(2, 3)) -> np.ndarray:
    raw = np.arange(int(np.prod(shape))).reshape(shape) - 2
    if dtype == "bool":
        return raw > 0
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    return np.asarray((raw / 4 if dtype[0] in "fbc" else raw + 2).astype(np_dtype))


def as_float_numpy(t: torch.Tensor) -> np.ndarray:
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_file_loads_in_safetensors_torch(tmp_path, dtype):
    a = sample(dtype)
    save_safetensors({"x": ember.Tensor._wrap(a), "scalar": ember.Tensor._wrap(a[0, 0].copy())},
                     tmp_path / "e.safetensors")
    loaded = load_file(tmp_path / "e.safetensors")
    assert str(loaded["x"].dtype) == f"torch.{dtype}"
    assert loaded["scalar"].shape == ()
    np.testing.assert_array_equal(as_float_numpy(loaded["x"]), a.astype(np.float64)
                                  if dtype == "bfloat16" else a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_file_loads_in_ember(tmp_path, dtype):
    a = sample(dtype, (3, 2))
    t = torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16) if dtype == "bfloat16" \
        else torch.from_numpy(a)
    save_file({"w": t, "empty": torch.zeros(0, 4)}, tmp_path / "t.safetensors")
    loaded = load_safetensors(tmp_path / "t.safetensors")
    assert type(loaded["w"]) is ember.Tensor and str(loaded["w"].dtype) == str(t.dtype)
    np.testing.assert_array_equal(loaded["w"]._data, a)
    assert loaded["empty"].shape == (0, 4)
    loaded["w"]._data[...] = 0                     # ember owns writable memory


def test_non_contiguous_round_trip(tmp_path):
    x = ember.arange(12.).reshape(3, 4)
    save_safetensors({"t": x.t(), "cols": x[:, 1:3]}, str(tmp_path / "v.safetensors"))
    loaded = load_file(tmp_path / "v.safetensors")
    assert torch.equal(loaded["t"], torch.arange(12.).reshape(3, 4).t())
    assert torch.equal(loaded["cols"], torch.arange(12.).reshape(3, 4)[:, 1:3])
    back = load_safetensors(tmp_path / "v.safetensors")
    np.testing.assert_array_equal(back["t"]._data, x.t()._data)


def test_metadata_is_written(tmp_path):
    save_safetensors({"w": ember.ones(2)}, tmp_path / "m.safetensors",
                     metadata={"format": "pt", "epoch": "3"})
    with safe_open(str(tmp_path / "m.safetensors"), framework="np") as f:
        assert f.metadata() == {"format": "pt", "epoch": "3"}


def test_complex128_is_refused_by_the_format(tmp_path):
    with pytest.raises(Exception, match="complex128"):
        save_safetensors({"z": ember.zeros(2, dtype=ember.complex128)}, tmp_path / "z.st")


def test_non_tensor_value_is_refused(tmp_path):
    with pytest.raises(TypeError, match="'w' is a list, expected a Tensor"):
        save_safetensors({"w": [1, 2]}, tmp_path / "x.safetensors")


def test_missing_package_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    with pytest.raises(ImportError, match=r"pip install ember\[safetensors\]"):
        save_safetensors({"w": ember.ones(1)}, tmp_path / "x.safetensors")
