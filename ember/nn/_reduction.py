"""torch.nn._reduction: the reduction names of the loss functions, for code that writes
its own losses the way torch's were once written (F._Reduction.get_enum(...))."""
from .functional.loss import _check_reduction, legacy_reduction

_CODES = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The number torch's kernels used for a reduction: none 0, mean 1, sum 2."""
    return _CODES[_check_reduction(reduction)]


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction the deprecated size_average/reduce flags stand for."""
    return legacy_reduction(size_average, reduce, emit_warning)


def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
