"""Bind the op library to Tensor as methods and Python operators.

Each op is an ordinary function whose first parameter is the tensor, so it serves
both as `ember.exp(x)` and, bound here, as `x.exp()`. Every ops module lists its
method names in METHODS and the ops that get a `name_` in-place variant in INPLACE.
"""
from __future__ import annotations

import warnings

from .._modes import current
from .._tensor import Tensor
from . import (calculus, complex, creation, hashing, householder, indexing, linalg, lu,
               matrix_exp, pointwise, random, reduction, shape, softmax, sorting,
               special_functions, spectral, statistics, triangular)
from . import joining  # after shape, which it builds on
from . import _inplace  # noqa: F401  (binds Tensor._inplace)
from ._numpy_names import accept_numpy_names


def _reflected(fn):
    def method(self, other):
        return fn(creation.scalar_tensor_like(other, self) if not isinstance(other, Tensor)
                  else other, self)
    return method


def _inplace_method(fn):
    def method(self, *args, **kwargs):
        return self._inplace(lambda s, *a: fn(s, *a, **kwargs), *args)
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place Tensor.{fn.__name__}: writes the result into self, returns self."
    return method


def bind(names_by_module: dict) -> None:
    """Attach each named function of each module to Tensor (method of the same name)."""
    for module, names in names_by_module.items():
        for name in names:
            setattr(Tensor, name, getattr(module, name))


def accept_numpy_names_in(module) -> None:
    """Let the module's public ops (torch.X and Tensor.X alike) take axis= and keepdims=."""
    wrapped = {}        # one wrapper per function, so aliases (concat = cat) stay one object
    for name in sorted(set(getattr(module, "__all__", ())) | set(getattr(module, "METHODS", ()))):
        fn = getattr(module, name, None)
        if callable(fn) and not isinstance(fn, type):
            if id(fn) not in wrapped:
                wrapped[id(fn)] = accept_numpy_names(fn)
            setattr(module, name, wrapped[id(fn)])


def bind_inplace(module, names) -> None:
    """Attach `name_` in-place variants that write the out-of-place result into self."""
    for name in names:
        setattr(Tensor, name + "_", _inplace_method(getattr(module, name)))


for _module in (pointwise, reduction, shape, joining, linalg, indexing, random, sorting,
                creation, hashing, householder, matrix_exp, calculus, complex, lu, statistics,
                triangular, spectral, special_functions, softmax):
    accept_numpy_names_in(_module)
    bind({_module: getattr(_module, "METHODS", [])})
    bind_inplace(_module, getattr(_module, "INPLACE", []))

# The hottest operators call their primitive's apply directly (bound once, here: no
# keyword handling or attribute lookups on the way).
_add, _sub, _mul = pointwise.Add.apply, pointwise.Sub.apply, pointwise.Mul.apply


def _watched_sum(add):
    """`add` as a `+`/`+=` operator that ember.doctor, when on, sees first (it looks for
    sums kept across iterations)."""
    def operator(self, other):
        doctor = current().doctor
        if doctor is not None:
            doctor.add(self, other)
        return add(self, other)
    return operator


Tensor.__add__ = Tensor.__radd__ = _watched_sum(_add)
Tensor.__sub__ = lambda self, other: _sub(self, other)
Tensor.__rsub__ = pointwise.rsub
Tensor.__mul__ = Tensor.__rmul__ = lambda self, other: _mul(self, other)
Tensor.__truediv__ = pointwise.div
Tensor.__rtruediv__ = Tensor.__rdiv__ = pointwise.reflected_div
Tensor.__floordiv__ = pointwise.floor_divide
Tensor.__rfloordiv__ = _reflected(pointwise.floor_divide)
Tensor.__pow__ = pointwise.pow
Tensor.__rpow__ = lambda self, other: pointwise.pow(other, self)
Tensor.__matmul__ = linalg.matmul
Tensor.__rmatmul__ = _reflected(linalg.matmul)
Tensor.__neg__ = pointwise.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = pointwise.abs
Tensor.__eq__ = pointwise.eq
Tensor.__ne__ = pointwise.ne
Tensor.__lt__ = pointwise.lt
Tensor.__le__ = pointwise.le
Tensor.__gt__ = pointwise.gt
Tensor.__ge__ = pointwise.ge
Tensor.__iadd__ = _watched_sum(Tensor.add_)
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_
Tensor.__ifloordiv__ = Tensor.floor_divide_
Tensor.__ipow__ = Tensor.pow_
Tensor.__mod__ = pointwise.remainder
Tensor.__rmod__ = _reflected(pointwise.remainder)
Tensor.__imod__ = Tensor.remainder_
Tensor.__and__ = Tensor.__rand__ = pointwise.bitwise_and
Tensor.__or__ = Tensor.__ror__ = pointwise.bitwise_or
Tensor.__xor__ = Tensor.__rxor__ = pointwise.bitwise_xor
Tensor.__iand__ = Tensor.bitwise_and_
Tensor.__ior__ = Tensor.bitwise_or_
Tensor.__ixor__ = Tensor.bitwise_xor_
Tensor.__invert__ = pointwise.bitwise_not
Tensor.__lshift__ = pointwise.bitwise_left_shift
Tensor.__rlshift__ = _reflected(pointwise.bitwise_left_shift)
Tensor.__ilshift__ = Tensor.bitwise_left_shift_
Tensor.__rshift__ = pointwise.bitwise_right_shift
Tensor.__rrshift__ = _reflected(pointwise.bitwise_right_shift)
Tensor.__irshift__ = Tensor.bitwise_right_shift_
Tensor.__getitem__ = indexing.getitem
Tensor.__setitem__ = indexing.setitem


def _reversed_dims(self: Tensor) -> Tensor:
    """x.T: torch still reverses every dim of a non-matrix, with a deprecation warning."""
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
    elif self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                      "of a tensor.", UserWarning, stacklevel=2)
    return self.permute(tuple(reversed(range(self.ndim))))


def _matrix_transpose(self: Tensor, name: str, conjugate: bool) -> Tensor:
    """x.mT / x.mH: the (conjugate) transpose of the last two dims (0-dim: deprecated)."""
    if self.ndim == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           f"matrices. Got 1-D tensor.")
    if self.ndim == 0:
        advice = ("Consider using x.conj()." if conjugate
                  else "This function is the identity in these cases.")
        warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. {advice}", UserWarning,
                      stacklevel=3)
        out = self.view(())
    else:
        out = self.transpose(-2, -1)
    return out.conj() if conjugate and self.is_complex() else out


def _conjugate_transpose(self: Tensor) -> Tensor:
    """x.H: the conjugate transpose of a matrix (0-dim passes, batches need x.mH)."""
    if self.ndim not in (0, 2):
        batches = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.{batches}")
    return _matrix_transpose(self, "H", conjugate=True)


Tensor.T = property(_reversed_dims)
Tensor.mT = property(lambda self: _matrix_transpose(self, "mT", conjugate=False))
Tensor.mH = property(lambda self: _matrix_transpose(self, "mH", conjugate=True))
Tensor.H = property(_conjugate_transpose)
Tensor.new_tensor = lambda self, data, dtype=None, device=None, requires_grad=False: \
    creation.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)
Tensor.new_tensor.__doc__ = "A new tensor copying `data`, with self's dtype unless one is given."
