"""dtype objects, their NumPy mapping, and torch's type-promotion rules.

torch promotes differently from NumPy: a zero-dim tensor or a Python scalar only
decides the result's dtype when it belongs to a higher category (bool < integer <
floating < complex) than every dimensioned operand, and a Python float meeting an
integer tensor gives the *default* dtype (float32), not float64. One function,
`result_type`, decides this for every op in ember.
"""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "uint8", "int8", "int16", "int32", "int64", "bool", "uint16", "uint32", "uint64",
    "half", "float", "double", "short", "int", "long", "cfloat", "cdouble",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
]


class dtype:
    """A tensor element type: torch's name and category, NumPy's storage type."""

    __slots__ = ("name", "numpy", "is_floating_point", "is_complex", "is_signed",
                 "itemsize", "_category", "_legacy_name", "scalar_name", "cpp_name",
                 "is_low_precision", "is_limited")

    def __init__(self, name: str, numpy_dtype, category: builtins.int, legacy_name: str,
                 cpp_name: str, limited: builtins.bool = False,
                 signed: builtins.bool | None = None):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self._category = category          # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = self.numpy.kind not in "ub" if signed is None else signed
        self.itemsize = self.numpy.itemsize
        self._legacy_name = legacy_name    # e.g. 'FloatTensor', used by Tensor.type()
        # The names torch's messages print: its ScalarType ('Float') and C++ type ('float').
        self.scalar_name = legacy_name.removesuffix("Tensor")
        self.cpp_name = cpp_name
        # Floating types narrower than float32, which kernels compute in float32.
        self.is_low_precision = category == 2 and self.itemsize < 4
        # torch's "limited support" dtypes (uint16/32/64 and the float8 types): made,
        # converted, copied and compared, but refused by most kernels and by promotion (see
        # LIMITED_KERNELS and _build_promotion_table).
        self.is_limited = limited

    def __repr__(self) -> str:
        # torch's text, so printed tensors and dtypes read exactly as in PyTorch.
        return "torch." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> "dtype":
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> "dtype":
        # torch pairs float16 with complex32, which ember lacks: complex64 stands in.
        return {float64: complex128, complex128: complex128}.get(self, complex64) \
            if self._category >= 2 else self


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


bool = dtype("bool", np.bool_, 0, "BoolTensor", "bool")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor", "unsigned char")
int8 = dtype("int8", np.int8, 1, "CharTensor", "signed char")
int16 = dtype("int16", np.int16, 1, "ShortTensor", "short int")
int32 = dtype("int32", np.int32, 1, "IntTensor", "int")
int64 = dtype("int64", np.int64, 1, "LongTensor", "long int")
float16 = dtype("float16", np.float16, 2, "HalfTensor", "c10::Half")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2, "BFloat16Tensor", "c10::BFloat16")
float32 = dtype("float32", np.float32, 2, "FloatTensor", "float")
float64 = dtype("float64", np.float64, 2, "DoubleTensor", "double")
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloatTensor",
                  "c10::complex<float>")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDoubleTensor",
                   "c10::complex<double>")

uint16 = dtype("uint16", np.uint16, 1, "UInt16Tensor", "uint16_t", limited=True)
uint32 = dtype("uint32", np.uint32, 1, "UInt32Tensor", "uint32_t", limited=True)
uint64 = dtype("uint64", np.uint64, 1, "UInt64Tensor", "uint64_t", limited=True)
# The 8-bit floats (storage and conversion formats: torch computes almost nothing in them).
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 2, "Float8_e4m3fnTensor",
                      "c10::Float8_e4m3fn", limited=True)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 2,
                        "Float8_e4m3fnuzTensor", "c10::Float8_e4m3fnuz", limited=True)
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2, 2, "Float8_e5m2Tensor",
                    "c10::Float8_e5m2", limited=True)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 2, "Float8_e5m2fnuzTensor",
                        "c10::Float8_e5m2fnuz", limited=True)
float8_e8m0fnu = dtype("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, 2, "Float8_e8m0fnuTensor",
                       "c10::Float8_e8m0fnu", limited=True, signed=False)
FLOAT8_DTYPES = (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu)
FLOAT8_NUMPY = frozenset(d.numpy for d in FLOAT8_DTYPES)

# torch's alternative names for the same objects.
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
              complex64, complex128, uint16, uint32, uint64) + FLOAT8_DTYPES
# The NumPy types of the low-precision floats, for kernels that test arrays directly.
LOW_PRECISION_NUMPY = tuple(d.numpy for d in ALL_DTYPES if d.is_low_precision)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}
BY_LEGACY_NAME = {d._legacy_name: d for d in ALL_DTYPES}


def _typestr_unreadable(np_dtype) -> builtins.bool:
    try:
        np.dtype(np_dtype.str)
    except TypeError:
        return True
    return False


# NumPy cannot read back the type string of some ml_dtypes types (float8_e5m2 says '<f1').
_UNREADABLE_TYPESTR = frozenset(d.numpy for d in ALL_DTYPES if _typestr_unreadable(d.numpy))


def as_strided(a: np.ndarray, shape, strides) -> np.ndarray:
    """np.lib.stride_tricks.as_strided for every ember dtype: NumPy rebuilds the view from
    the array's type string, so a dtype whose string it cannot read is strided as raw bytes
    and viewed back."""
    if a.dtype not in _UNREADABLE_TYPESTR:
        return np.lib.stride_tricks.as_strided(a, shape, strides)
    raw = a.view(np.dtype((np.void, a.itemsize)))
    return np.lib.stride_tricks.as_strided(raw, shape, strides).view(a.dtype)


def scalar_type_name(dt) -> str:
    """torch's ScalarType name of an ember or NumPy dtype ('Float', 'Long' ...), as its
    error messages print it."""
    return (dt if isinstance(dt, dtype) else from_numpy_dtype(dt)).scalar_name


def from_numpy_dtype(np_dtype) -> dtype:
    """The ember dtype that stores NumPy's `np_dtype` (TypeError when torch has none)."""
    found = _BY_NUMPY.get(np.dtype(np_dtype))
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return found


# ---------------------------------------------------------------- default dtype
_default = [float32]


def get_default_dtype() -> dtype:
    """The floating dtype that float-producing factories use when none is given (float32 unless
    changed)."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float32 or float64, say) used when none is given."""
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d


# ---------------------------------------------------------------- promotion
def _build_promotion_table() -> dict:
    """promote_types for every pair, following torch's lattice.

    NumPy agrees with torch for all pairs except those involving bfloat16 (which
    torch promotes with float16 to float32, and with integers to bfloat16) and
    uint8 with int8 (int16 in both). The limited dtypes promote only with themselves and the
    real floating types; every other pair involving one is missing from the table, and
    looking it up raises torch's RuntimeError (see _promote).
    """
    table = {}
    full = [d for d in ALL_DTYPES if not d.is_limited]
    for a in full:
        for b in full:
            if a is b:
                table[a, b] = a
            elif bfloat16 in (a, b):
                other = b if a is bfloat16 else a
                if other._category <= 1:
                    table[a, b] = bfloat16
                elif other is float16:
                    table[a, b] = float32
                else:
                    table[a, b] = other
            else:
                table[a, b] = _BY_NUMPY[np.promote_types(a.numpy, b.numpy)]
    # NumPy widens int64 + float16 to float64; torch keeps the float type.
    for f in (float16, float32, complex64):
        for i in (uint8, int8, int16, int32, int64, bool):
            table[f, i] = table[i, f] = f
    table[float64, complex64] = table[complex64, float64] = complex128
    for limited in (d for d in ALL_DTYPES if d.is_limited):
        table[limited, limited] = limited
        if limited not in FLOAT8_DTYPES:       # a float8 type promotes with nothing else
            for f in (float16, bfloat16, float32, float64):
                table[limited, f] = table[f, limited] = f
    return table


class _PromotionTable(dict):
    """{(a, b): promoted}; a pair torch refuses to promote raises its RuntimeError."""

    def __missing__(self, pair):
        a, b = pair
        kinds = "Float8 Types" if a in FLOAT8_DTYPES or b in FLOAT8_DTYPES \
            else "uint16, uint32, uint64 types"
        raise RuntimeError(f"Promotion for {kinds} is not supported, "
                           f"attempted to promote {a.scalar_name} and {b.scalar_name}")


_PROMOTE = _PromotionTable(_build_promotion_table())


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both `a` and `b` convert to without losing their category, by torch's
    promotion rules."""
    return _PROMOTE[a, b]


def _scalar_dtype(value) -> dtype:
    """The dtype a Python scalar takes part in promotion with (floats: the default dtype)."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.complex):
        return get_default_dtype().to_complex()
    return get_default_dtype()


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge the dtype of a tier with the dtype of the tier below it (torch's rule)."""
    if higher is None:
        return lower
    if lower is None or higher._category == 3:
        return higher
    if lower._category == 3:
        # A complex lower tier keeps a floating higher tier's precision.
        return higher.to_complex() if higher._category == 2 else lower
    if higher._category == 2:
        return higher
    if higher is bool or lower._category == 2:
        return _PROMOTE[higher, lower]
    return higher


def result_type(*operands) -> dtype:
    """The dtype torch gives an op over `operands` (Tensors and Python scalars).

    Three tiers: dimensioned tensors, zero-dim tensors, Python scalars. Each tier's
    dtypes are promoted together; a lower tier only matters when it brings a
    higher category than the tiers above it. A NumPy array (or a meta device array) counts
    as the Tensor it belongs to (a primitive's forward sees its Tensor inputs as arrays).
    """
    dims = zero = scalar = None
    for op in operands:
        d = getattr(op, "dtype", None)
        if isinstance(d, np.dtype) and not isinstance(op, np.generic):   # an array (or meta)
            d = _BY_NUMPY[d]
        elif not isinstance(d, dtype):  # a Python scalar, or a NumPy scalar acting as one
            d = _scalar_dtype(op.item() if isinstance(op, np.generic) else op)
            scalar = d if scalar is None else _PROMOTE[scalar, d]
            continue
        if op.ndim:
            dims = d if dims is None else _PROMOTE[dims, d]
        else:
            zero = d if zero is None else _PROMOTE[zero, d]
    return _combine(dims, _combine(zero, scalar))


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """torch's rule: casting may not lower the category (float -> int, int -> bool)."""
    return from_._category <= to._category


# The ops torch computes in the limited dtypes; its other kernels raise NotImplementedError
# for them. Names are ember's op names (a pointwise op's name, a reduction's ...).
LIMITED_KERNELS = frozenset({
    "mul", "eq", "ne", "bitwise_and", "bitwise_or", "bitwise_xor", "sum", "prod", "cumsum",
    "nansum", "sort", "argsort", "unique", "any", "all", "isnan", "isfinite", "isinf"})
FLOAT8_KERNELS = frozenset({"mul", "eq", "ne", "abs", "isnan", "isfinite", "isinf"})


LIMITED_NUMPY = frozenset(d.numpy for d in ALL_DTYPES if d.is_limited)


def unsupported_kernel(kernel: str, dt) -> NotImplementedError:
    """torch's error for its kernel `kernel` meeting a dtype it has no code for."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(dt)}\'')


def refuse_limited(array, kernel: str) -> None:
    """torch's NotImplementedError for an op that has no kernel for the limited dtypes, when
    `array` (a NumPy array) holds one."""
    if array.dtype in LIMITED_NUMPY:
        raise unsupported_kernel(kernel, array.dtype)


def check_limited(dt, op: str, kernel: str) -> None:
    """torch's NotImplementedError when op `op` computes in a limited dtype it has no kernel
    for (`kernel`: the kernel name torch's message gives). `dt`: an ember or NumPy dtype."""
    numpy_dtype = dt.numpy if isinstance(dt, dtype) else np.dtype(dt)
    if numpy_dtype in LIMITED_NUMPY:
        allowed = FLOAT8_KERNELS if _BY_NUMPY[numpy_dtype] in FLOAT8_DTYPES else LIMITED_KERNELS
        if op not in allowed:
            raise unsupported_kernel(kernel, dt)
