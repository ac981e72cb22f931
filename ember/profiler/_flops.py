"""The profiler's FLOP estimates (`with_flops=True`), by torch's formulas.

torch estimates floating point operations for a few ops only: matrix products (mm, bmm,
addmm, baddbmm: 2 * M * K * N per matrix), 2-D convolutions (2 * each output element's
multiply-adds) and elementwise mul/add (one per element of the first input); every other
op counts 0. ember applies the same formulas to its own ops: a matrix product of any
batch rank (torch's matmul reaches mm/bmm), Linear (torch's reaches addmm/mm), addmm and
baddbmm, a 2-D forward convolution, mul and add. Where torch puts a Linear's FLOPs on its
addmm/mm child, ember's single Linear op carries them.
"""
from __future__ import annotations

import math

from ..autograd import function


def _matrix_product(left, right, result) -> int:
    """2 * K per output element of a product of (batches of) matrices, else 0 (torch
    counts no FLOPs for the matrix-vector and vector forms)."""
    if left.ndim < 2 or right.ndim < 2:
        return 0
    return 2 * result.numel() * left.shape[-1]


def _first_input(args, result) -> int:
    first = args[0] if isinstance(args[0], function.Tensor) else result
    return first.numel()


def _linear(args, result) -> int:
    input, weight = args[0], args[1]
    return 2 * result.numel() * weight.shape[-1] if input.ndim >= 2 else 0


def _add_product(args, result) -> int:
    m1, m2 = args[1], args[2]
    return _matrix_product(m1, m2, result) if m1.ndim == m2.ndim else 0


def _convolution(args, result) -> int:
    weight = args[1]
    return 2 * result.numel() * math.prod(weight.shape[1:]) if weight.ndim == 4 else 0


# op name -> its FLOPs from (the op's arguments, its result); the names are those the
# recorder gives ember's Functions (see _recorder.op_name).
_RULES = {
    "aten::mm": lambda args, result: _matrix_product(args[0], args[1], result),
    "aten::linear": _linear,
    "ember::AddProduct": _add_product,
    "aten::mul": _first_input,
    "aten::add": _first_input,
}


def count_flops(name: str, op_class: type, args: tuple, result) -> int:
    """The FLOPs torch would report for one call of the op `name` (ember Function class
    `op_class`, called with `args`, returning `result`)."""
    if not isinstance(result, function.Tensor):
        return 0
    if name == "aten::convolution":     # the forward convolution, not its gradients
        return _convolution(args, result) if op_class.__qualname__ == "Conv" else 0
    rule = _RULES.get(name)
    return 0 if rule is None else rule(args, result)
