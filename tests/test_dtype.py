"""dtypes, the default dtype and torch's type promotion (promote_types, result_type, can_cast)."""
import itertools

import pytest
import torch

import ember
from oracle import check_error

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128"]
PAIRS = list(itertools.product(NAMES, NAMES))
# torch pairs float16 with complex32 (ComplexHalf); ember has no complex32 and uses complex64.
EMBER_FOR = {"complex32": "complex64"}


def same_dtype(e, t) -> None:
    expected = str(t).replace("torch.", "")
    assert repr(e) == "torch." + EMBER_FOR.get(expected, expected)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(name):
    t, e = getattr(torch, name), getattr(ember, name)
    assert repr(e) == repr(t) and str(e) == str(t)
    assert e.itemsize == t.itemsize
    assert e.is_floating_point == t.is_floating_point
    assert e.is_complex == t.is_complex
    assert e.is_signed == t.is_signed


@pytest.mark.parametrize("alias", ["half", "float", "double", "short", "int", "long", "cfloat",
                                   "cdouble"])
def test_dtype_aliases(alias):
    assert repr(getattr(ember, alias)) == repr(getattr(torch, alias))


@pytest.mark.parametrize("a,b", PAIRS)
def test_promote_types(a, b):
    same_dtype(ember.promote_types(getattr(ember, a), getattr(ember, b)),
               torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("a,b", PAIRS)
def test_can_cast(a, b):
    assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))


def _operand(lib, name, kind):
    dt = getattr(lib, name)
    return lib.ones((2,), dtype=dt) if kind == "dim" else lib.ones((), dtype=dt)


@pytest.mark.parametrize("kinds", [("dim", "zero"), ("zero", "dim"), ("zero", "zero"),
                                   ("dim", "dim")])
@pytest.mark.parametrize("a,b", PAIRS)
def test_result_type_tensors(a, b, kinds):
    same_dtype(ember.result_type(_operand(ember, a, kinds[0]), _operand(ember, b, kinds[1])),
               torch.result_type(_operand(torch, a, kinds[0]), _operand(torch, b, kinds[1])))


@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1 + 2j])
@pytest.mark.parametrize("kind", ["dim", "zero"])
@pytest.mark.parametrize("name", NAMES)
def test_result_type_python_scalar(name, kind, scalar):
    same_dtype(ember.result_type(_operand(ember, name, kind), scalar),
               torch.result_type(_operand(torch, name, kind), scalar))


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", ["bool", "int32", "float16", "float32", "bfloat16"])
def test_result_type_follows_default_dtype(default, name):
    try:
        torch.set_default_dtype(getattr(torch, default))
        ember.set_default_dtype(getattr(ember, default))
        for scalar in (2.5, 1j):
            same_dtype(ember.result_type(_operand(ember, name, "dim"), scalar),
                       torch.result_type(_operand(torch, name, "dim"), scalar))
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


def test_result_type_three_operands():
    e = ember.result_type(ember.ones(2, dtype=ember.int32), ember.tensor(1.5, dtype=ember.float64), 2)
    t = torch.result_type(torch.ones(2, dtype=torch.int32),
                          torch.tensor(1.5, dtype=torch.float64))
    same_dtype(e, t)


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
def test_default_dtype_effects(default):
    try:
        for lib in (torch, ember):
            lib.set_default_dtype(getattr(lib, default))
        for fn in (lambda lib: lib.tensor([1.5]), lambda lib: lib.zeros(2),
                   lambda lib: lib.arange(0.0, 1.0, 0.25), lambda lib: lib.Tensor(2),
                   lambda lib: lib.linspace(0, 1, 3), lambda lib: lib.rand(2),
                   lambda lib: lib.full((2,), 1.5), lambda lib: lib.tensor([1, 2.5]),
                   lambda lib: lib.result_type(lib.ones(2, dtype=lib.int32), 2.5)):
            e, t = fn(ember), fn(torch)
            assert repr(getattr(e, "dtype", e)) == repr(getattr(t, "dtype", t))
        assert repr(ember.get_default_dtype()) == repr(torch.get_default_dtype())
        assert ember.tensor([1]).dtype is ember.int64
        if default == "float64":
            assert ember.tensor([1j]).dtype is ember.complex128
    finally:
        for lib in (torch, ember):
            lib.set_default_dtype(lib.float32)


def test_set_default_dtype_rejects_integers():
    check_error(lambda lib: lib.set_default_dtype(lib.int64), TypeError,
                "^only floating-point types are supported as the default type")


def test_dtype_pickles_to_itself():
    import pickle
    assert pickle.loads(pickle.dumps(ember.float16)) is ember.float16


# ---------------------------------------------------------------- uint16 / uint32 / uint64
# torch's "limited support" unsigned dtypes: properties, promotion, and which ops they reach.
UNSIGNED = ["uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", UNSIGNED)
def test_unsigned_dtype_properties_and_iinfo(name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert repr(e) == repr(t)
    for attr in ("itemsize", "is_signed", "is_floating_point", "is_complex"):
        assert getattr(e, attr) == getattr(t, attr), attr
    ei, ti = ember.iinfo(e), torch.iinfo(t)
    assert (ei.min, ei.max, ei.bits, ei.dtype, repr(ei)) == (ti.min, ti.max, ti.bits, ti.dtype,
                                                             repr(ti))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("other", NAMES + UNSIGNED)
def test_unsigned_promotion_and_can_cast(name, other):
    for a, b in ((name, other), (other, name)):
        try:
            expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
        except RuntimeError:
            check_error(lambda lib: lib.promote_types(getattr(lib, a), getattr(lib, b)),
                        RuntimeError, "^Promotion for uint16, uint32, uint64 types is not "
                                      "supported, attempted to promote")
        else:
            same_dtype(ember.promote_types(getattr(ember, a), getattr(ember, b)), expected)
        assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b))


# ---------------------------------------------------------------- float8
# Storage formats: made, converted, copied, multiplied and compared; most kernels refuse them.
FLOAT8 = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]


@pytest.mark.parametrize("name", FLOAT8)
def test_float8_dtype_properties_and_finfo(name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert repr(e) == repr(t)
    for attr in ("itemsize", "is_signed", "is_floating_point", "is_complex"):
        assert getattr(e, attr) == getattr(t, attr), attr
    ef, tf = ember.finfo(e), torch.finfo(t)
    for attr in ("bits", "eps", "max", "min", "tiny", "resolution"):
        assert getattr(ef, attr) == getattr(tf, attr), attr


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("other", NAMES + UNSIGNED + FLOAT8)
def test_float8_promotion(name, other):
    for a, b in ((name, other), (other, name)):
        try:
            expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
        except RuntimeError:
            check_error(lambda lib: lib.promote_types(getattr(lib, a), getattr(lib, b)),
                        RuntimeError, "^Promotion for Float8 Types is not supported, "
                                      "attempted to promote")
        else:
            same_dtype(ember.promote_types(getattr(ember, a), getattr(ember, b)), expected)


def test_float8_tensors_convert_print_and_refuse_arithmetic():
    values = [1.0, 2.5, -3.0, 0.0625]

    def make(lib):
        return lib.tensor(values).to(lib.float8_e4m3fn)

    e, t = make(ember), make(torch)
    assert repr(e) == repr(t) and repr(e * e) == repr(t * t)
    assert e.float().tolist() == t.float().tolist() and e.abs().tolist() == t.abs().tolist()
    assert e.type() == t.type() and (e == e).tolist() == (t == t).tolist()
    check_error(lambda lib: make(lib) + make(lib), NotImplementedError,
                "^\"add_stub\" not implemented for 'Float8_e4m3fn'")
    check_error(lambda lib: make(lib) * 2, NotImplementedError,
                "^\"mul_cpu_reduced_float\" not implemented for 'Float8_e4m3fn'")
    check_error(lambda lib: make(lib).sum(), NotImplementedError,
                "^\"sum_cpu\" not implemented for 'Float8_e4m3fn'")
    check_error(lambda lib: lib.randn(2, dtype=lib.float8_e5m2), NotImplementedError,
                "^\"normal_kernel_cpu\" not implemented for 'Float8_e5m2'")


def test_float8_e5m2_views_through_strides():
    """NumPy cannot read back float8_e5m2's type string ('<f1'), which as_strided needs:
    expand, unfold, as_strided and loading a checkpoint stride such arrays as raw bytes."""
    def run(lib):
        a = lib.tensor([1.0, 2.0, 4.0]).to(lib.float8_e5m2)
        views = [a.expand(2, 3), a[None].expand(2, -1), a.unfold(0, 2, 1), a.as_strided((2,), (2,))]
        return [(v.float().tolist(), v.stride()) for v in views]
    assert run(ember) == run(torch)
