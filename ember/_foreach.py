"""torch._foreach_*: one op over a list of tensors (the multi-tensor API).

torch's optimizers, EMA helpers and gradient clipping call these to update every parameter
with one kernel launch. ember runs the per-tensor op in a loop, so each result (values,
dtype, autograd) is exactly the single-tensor op's.

The second operand follows torch's overloads: a Number (`scalar`) or a 0-dim/broadcast
Tensor (`other`) is shared by every tensor; a list of Numbers (`scalars`) or of Tensors
(`other`) gives one per tensor. Out-of-place ops return a tuple of new tensors; in-place
ones (trailing underscore) update the tensors and return the list itself.
"""
from __future__ import annotations

from collections.abc import Sequence

from . import linalg
from ._tensor import Tensor

__all__: list[str] = []  # filled below with every _foreach_ name


def _check_list(tensors) -> list:
    if not isinstance(tensors, list):  # in-place ops hand back the very list they were given
        tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return tensors


def _per_tensor(tensors: list, operand) -> list:
    """`operand` spread over `tensors`: a list or tuple gives one item each, anything
    else (a Number, a Tensor) is shared."""
    if not isinstance(operand, (list, tuple)):
        return [operand] * len(tensors)
    if len(operand) != len(tensors):
        if all(isinstance(item, Tensor) for item in operand):
            raise RuntimeError("Tensor lists must have the same number of tensors, got "
                               f"{len(tensors)} and {len(operand)}")
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return list(operand)


def _pick(name: str, candidates: dict):
    """The one operand given among torch's overload names (other / scalar / scalars ...)."""
    given = {key: value for key, value in candidates.items() if value is not None}
    if len(given) != 1:
        raise TypeError(f"{name}() expects exactly one of {', '.join(candidates)}; got "
                        f"{', '.join(given) or 'none'}")
    return next(iter(given.values()))


def _finish(tensors: list, results: list, inplace: bool):
    if not inplace:
        return tuple(results)
    return tensors


def _apply_inplace(t: Tensor, method: str, *args, **kwargs) -> Tensor:
    """t.method_(...) where Tensor has it, else t.copy_(t.method(...)) (maximum_ ...)."""
    inplace_method = getattr(t, method + "_", None)
    if inplace_method is not None:
        return inplace_method(*args, **kwargs)
    return t.copy_(getattr(t, method)(*args, **kwargs))


def _call(t: Tensor, method: str, inplace: bool, *args, **kwargs) -> Tensor:
    if inplace:
        return _apply_inplace(t, method, *args, **kwargs)
    return getattr(t, method)(*args, **kwargs)


def _unary(method: str, inplace: bool):
    def op(self: Sequence[Tensor]):
        tensors = _check_list(self)
        return _finish(tensors, [_call(t, method, inplace) for t in tensors], inplace)
    return op


def _binary(method: str, inplace: bool, scalar_method: str | None = None):
    """`method(t, operand)`; `scalar_method` replaces it for Number operands (maximum with
    a Number is clamp_min)."""
    def op(self: Sequence[Tensor], other=None, *, alpha=None, scalar=None, scalars=None):
        tensors = _check_list(self)
        operand = _pick(op.__name__, {"other": other, "scalar": scalar, "scalars": scalars})
        extra = {} if alpha is None else {"alpha": alpha}
        results = []
        for t, o in zip(tensors, _per_tensor(tensors, operand)):
            name = scalar_method if scalar_method and not isinstance(o, Tensor) else method
            results.append(_call(t, name, inplace, o, **extra))
        return _finish(tensors, results, inplace)
    return op


def _pointwise3(method: str, inplace: bool):
    """addcmul / addcdiv: t + value * tensor1 (op) tensor2, value a Number, a list of
    Numbers or a 1-D Tensor of them (one per tensor)."""
    def op(self: Sequence[Tensor], tensor1, tensor2, value=1, *, scalars=None):
        tensors = _check_list(self)
        values = value if scalars is None else scalars
        if isinstance(values, Tensor):
            values = values.tolist()
        results = [_call(t, method, inplace, a, b, value=v) for t, a, b, v in zip(
            tensors, _per_tensor(tensors, list(tensor1)), _per_tensor(tensors, list(tensor2)),
            _per_tensor(tensors, values))]
        return _finish(tensors, results, inplace)
    return op


def _lerp(inplace: bool):
    def op(self: Sequence[Tensor], tensors1, weight=None, *, weights=None):
        tensors = _check_list(self)
        weight = _pick(op.__name__, {"weight": weight, "weights": weights})
        results = [_call(t, "lerp", inplace, end, w) for t, end, w in zip(
            tensors, _per_tensor(tensors, list(tensors1)), _per_tensor(tensors, weight))]
        return _finish(tensors, results, inplace)
    return op


def _pow(inplace: bool):
    def op(self, exponent):
        if not isinstance(self, (list, tuple)):  # Number ** [tensors]
            exponents = _check_list(exponent)
            return tuple(self ** e for e in exponents)
        tensors = _check_list(self)
        results = [_call(t, "pow", inplace, e)
                   for t, e in zip(tensors, _per_tensor(tensors, exponent))]
        return _finish(tensors, results, inplace)
    return op


def _foreach_norm(self: Sequence[Tensor], ord=2, dtype=None) -> tuple:
    """The vector norm of each tensor (all its elements), as 0-dim tensors."""
    return tuple(linalg.vector_norm(t, ord, dtype=dtype) for t in _check_list(self))


def _foreach_max(self: Sequence[Tensor]) -> tuple:
    """The largest element of each tensor, as 0-dim tensors."""
    return tuple(t.max() for t in _check_list(self))


def _foreach_clone(self: Sequence[Tensor]) -> tuple:
    return tuple(t.clone() for t in _check_list(self))


def _foreach_copy_(self: Sequence[Tensor], src: Sequence[Tensor],
                   non_blocking: bool = False) -> list:
    tensors = _check_list(self)
    for t, s in zip(tensors, _per_tensor(tensors, list(src))):
        t.copy_(s)
    return tensors


def _foreach_zero_(self: Sequence[Tensor]) -> list:
    tensors = _check_list(self)
    for t in tensors:
        t.zero_()
    return tensors


_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp",
          "expm1", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg",
          "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan",
          "tanh", "trunc")
_BINARY = {"add": None, "sub": None, "mul": None, "div": None, "clamp_min": None,
           "clamp_max": None, "maximum": "clamp_min", "minimum": "clamp_max"}


def _register(name: str, op) -> None:
    op.__name__ = op.__qualname__ = name
    op.__doc__ = op.__doc__ or f"torch.{name}: the op applied to each tensor of a list."
    globals()[name] = op
    __all__.append(name)


for _inplace, _suffix in ((False, ""), (True, "_")):
    for _name in _UNARY:
        _register(f"_foreach_{_name}{_suffix}", _unary(_name, _inplace))
    for _name, _scalar_method in _BINARY.items():
        _register(f"_foreach_{_name}{_suffix}", _binary(_name, _inplace, _scalar_method))
    for _name in ("addcmul", "addcdiv"):
        _register(f"_foreach_{_name}{_suffix}", _pointwise3(_name, _inplace))
    _register(f"_foreach_lerp{_suffix}", _lerp(_inplace))
    _register(f"_foreach_pow{_suffix}", _pow(_inplace))
__all__ += ["_foreach_norm", "_foreach_max", "_foreach_clone", "_foreach_copy_",
            "_foreach_zero_"]
