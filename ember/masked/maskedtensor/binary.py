"""Elementwise functions of two operands, at least one a MaskedTensor: the function of the
data, with the MaskedTensor's mask (mt + other, mt.mul(other) ...; the in-place forms,
mt.add_(other) and mt += other, change mt's data). Two MaskedTensors must have the same
mask."""
from __future__ import annotations

from ..._tensor import Tensor
from ...ops.creation import scalar_tensor_like
from ...ops.pointwise import equal
from .core import MaskedTensor, is_masked_tensor

__all__ = []

# The binary ops torch defines on MaskedTensors.
BINARY_NAMES = [
    "add", "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "div", "divide", "floor_divide", "fmod",
    "logaddexp", "logaddexp2", "mul", "multiply", "nextafter", "remainder", "sub", "subtract",
    "true_divide", "eq", "ne", "le", "ge", "greater", "greater_equal", "gt", "less_equal", "lt",
    "less", "maximum", "minimum", "fmax", "fmin", "not_equal"]
INPLACE_NAMES = [name + "_" for name in BINARY_NAMES
                 if name not in ("logaddexp", "logaddexp2", "fmin", "minimum", "maximum", "fmax")]
# Python operators: (method name, whether the MaskedTensor is the right operand).
OPERATORS = {
    "__add__": ("add", False), "__radd__": ("add", True), "__sub__": ("sub", False),
    "__rsub__": ("sub", True), "__mul__": ("mul", False), "__rmul__": ("mul", True),
    "__truediv__": ("div", False), "__rtruediv__": ("div", True),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("remainder", False), "__rmod__": ("remainder", True),
    "__and__": ("bitwise_and", False), "__rand__": ("bitwise_and", True),
    "__or__": ("bitwise_or", False), "__ror__": ("bitwise_or", True),
    "__xor__": ("bitwise_xor", False), "__rxor__": ("bitwise_xor", True),
    "__eq__": ("eq", False), "__ne__": ("ne", False), "__lt__": ("lt", False),
    "__le__": ("le", False), "__gt__": ("gt", False), "__ge__": ("ge", False),
    "__iadd__": ("add_", False), "__isub__": ("sub_", False), "__imul__": ("mul_", False),
    "__itruediv__": ("div_", False)}


def _masks_match(a, b) -> bool:
    if not (is_masked_tensor(a) and is_masked_tensor(b)):
        return True
    mask_a, mask_b = a.get_mask(), b.get_mask()
    return mask_a is mask_b or (mask_a.dim() == mask_b.dim() and equal(mask_a, mask_b))


def _data(operand):
    return operand._masked_data if is_masked_tensor(operand) else operand



def _binary(name: str, reflected: bool = False):
    op = getattr(Tensor, name)

    def method(self, other, *args):
        if any(isinstance(a, Tensor) for a in args):
            raise TypeError("MaskedTensor binary ops do not support Tensor arguments aside "
                            "from the lhs and rhs")
        if not _masks_match(self, other):
            raise ValueError("Input masks must match. If you need support for this, please "
                             "open an issue on Github.")
        if reflected:             # other (op) self, with other a number or a plain tensor
            data = self._masked_data
            lhs = other if isinstance(other, Tensor) else scalar_tensor_like(other, data)
            result = op(lhs, data, *args)
        else:
            result = op(self._masked_data, _data(other), *args)
        if name.endswith("_"):
            return self
        return MaskedTensor._make(result, self._masked_mask.expand_as(result))

    method.__name__ = name
    method.__doc__ = f"Tensor.{name} of the data; the MaskedTensor's mask is kept."
    return method


for _name in BINARY_NAMES + INPLACE_NAMES:
    setattr(MaskedTensor, _name, _binary(_name))
for _operator, (_name, _reflected) in OPERATORS.items():
    setattr(MaskedTensor, _operator, _binary(_name, _reflected))
