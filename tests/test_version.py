"""torch.__version__, torch.version and the math constants, against real torch."""
import json
import math
import operator

import packaging.version
import pytest
import torch
from torch.torch_version import TorchVersion as TorchTorchVersion

import ember
from ember.torch_version import TorchVersion

VERSIONS = ["2.13.0+cpu", "2.13.0", "1.10.0a0", "2.1.0.dev20230101", "2.0.0.post1",
            "2.0.0rc1", "1!1.0", "2.13.0+cu121", "parrot"]
OTHERS = ["2.0", "2.13", "2.13.0", "2.13.0+cpu", "2.13.0+cu121", "2.14.0a0", "1.10.0",
          "1.10.0a0", "2.0.0.post1", "2.1.0.dev1", "abc", "", (2, 0), (2, 13), (2, 13, 0),
          [2, 14], (1,), 3.5]
COMPARISONS = ["lt", "le", "eq", "ne", "ge", "gt"]


def _outcome(version, op: str, other):
    try:
        return getattr(operator, op)(version, other)
    except TypeError as error:
        return TypeError, str(error).split(" not supported")[0].split("'")[1]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("op", COMPARISONS)
def test_torch_version_compares_as_torchs(version, op):
    for other in OTHERS:
        expected = _outcome(TorchTorchVersion(version), op, other)
        assert _outcome(TorchVersion(version), op, other) == expected, (version, op, other)


def test_version_is_torch_cpu_build_string():
    assert ember.__version__ == str(torch.__version__) == "2.13.0+cpu"
    assert type(ember.__version__) is TorchVersion and isinstance(ember.__version__, str)
    assert hash(ember.__version__) == hash(str(torch.__version__))
    assert json.dumps(ember.__version__) == json.dumps(str(torch.__version__))


def test_version_checks_scripts_make():
    for lib in (torch, ember):
        v = lib.__version__
        assert v >= (2, 0) and v >= "2.0" and v < (3,) and not v < "2.13"
        parsed = packaging.version.parse(v)
        assert parsed == packaging.version.parse(str(torch.__version__))
        assert parsed >= packaging.version.parse("2.0") and parsed.local == "cpu"
        assert v.split("+")[0] == "2.13.0" and int(v.split(".")[1]) == 13


def test_torch_version_module():
    assert ember.version.__all__ == torch.version.__all__
    for name in torch.version.__all__:
        if name != "git_version":       # torch's commit; ember is not built from it
            assert getattr(ember.version, name) == getattr(torch.version, name), name
    assert isinstance(ember.version.git_version, str)
    assert ember.torch_version.__all__ == torch.torch_version.__all__


def test_ember_keeps_its_own_version():
    assert ember.version.ember_version != ember.__version__
    packaging.version.Version(ember.version.ember_version)


@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis"])
def test_constants(name):
    expected, got = getattr(torch, name), getattr(ember, name)
    assert type(got) is type(expected)
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected
