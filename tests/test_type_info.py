"""ember.finfo / ember.iinfo (ember/_type_info.py) against torch."""
import pytest
import torch

import ember
from oracle import check_error

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    assert repr(e) == repr(t) and str(e) == str(t)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
                  "dtype"):
        assert getattr(e, field) == getattr(t, field), field
        assert type(getattr(e, field)) is type(getattr(t, field)), field


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    assert repr(e) == repr(t)
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(e, field) == getattr(t, field), field
        assert type(getattr(e, field)) is type(getattr(t, field)), field


def test_defaults_and_python_types():
    assert repr(ember.finfo()) == repr(torch.finfo())
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.finfo().dtype == "float64"
    finally:
        ember.set_default_dtype(ember.float32)
    for python_type in (float, complex):
        assert repr(ember.finfo(python_type)) == repr(torch.finfo(python_type))
    assert repr(ember.iinfo(int)) == repr(torch.iinfo(int))


def test_common_uses():
    """The idioms of training code: a clamp floor, a mask value, an int range."""
    x = ember.tensor([0.0, 1.0])
    assert ember.log(x.clamp(min=ember.finfo(x.dtype).eps)).tolist() == \
        torch.log(torch.tensor([0.0, 1.0]).clamp(min=torch.finfo(torch.float32).eps)).tolist()
    assert ember.full((2,), ember.finfo(ember.float16).min, dtype=ember.float16).tolist() == \
        [-65504.0, -65504.0]
    assert ember.iinfo(ember.uint8).max + 1 == 256


@pytest.mark.parametrize("fn, error, match", [
    (lambda L: L.finfo(L.int64), TypeError, r"^torch.finfo\(\) requires a floating point "
     r"input type. Use torch.iinfo to handle 'torch.finfo'$"),
    (lambda L: L.finfo(bool), TypeError, r"^torch.finfo\(\) requires a floating point"),
    (lambda L: L.iinfo(L.float32), TypeError, r"^torch.iinfo\(\) requires an integer input "
     r"type. Use torch.finfo to handle 'torch.iinfo'$"),
    (lambda L: L.iinfo(L.bool), TypeError, r"^torch.bool is not supported by torch.iinfo$"),
    (lambda L: L.finfo("float32"), TypeError, r"^finfo\(\): argument 'type' \(position 1\) "
     r"must be torch.dtype, not str$"),
    (lambda L: L.iinfo(5), TypeError, r"^iinfo\(\): argument 'type' \(position 1\) must be "
     r"torch.dtype, not int$"),
    (lambda L: setattr(L.finfo(L.float32), "eps", 1.0), AttributeError,
     r"^attribute 'eps' of 'torch.finfo' objects is not writable$"),
])
def test_errors(fn, error, match):
    check_error(fn, error, match)
