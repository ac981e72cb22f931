"""Matrix and tensor products: matmul and its relatives, einsum and everything built on it.

Two primitives carry the work:
- `MatMul` for matmul/mm/bmm/mv/dot (NumPy's BLAS-backed matmul);
- `Einsum`, a contraction written as an einsum equation. Its backward is again an einsum
  (the gradient contracted with the other operands), so every op expressed as a
  contraction (outer, inner, tensordot, kron, trace, addmm's product...) gets its
  gradient, and double backward, from one rule.
Ops the user calls by other names get torch's grad_fn names via `_named`.
"""
from __future__ import annotations

import math
import string

import numpy as np

from .. import _dtype
from .._dtype import LIMITED_NUMPY, unsupported_kernel
from .._tensor import Tensor
from .._recorded_call import replayed_call
from ..autograd.function import Function
from .pointwise import float_math
from .shape import _named
from ..amp.policy import FP32, LOWER, autocast_op

METHODS = ["matmul", "mm", "bmm", "addmm", "addmv", "addbmm", "baddbmm", "addr", "outer",
           "ger", "dot", "vdot", "inner", "mv", "kron", "cross", "trace", "diag"]
INPLACE = ["addmm", "addmv", "addbmm", "baddbmm", "addr"]

__all__ = ["matmul", "mm", "bmm", "addmm", "addmv", "addbmm", "baddbmm", "addr", "einsum",
           "outer", "ger", "dot", "vdot", "inner", "mv", "tensordot", "kron", "cross", "trace",
           "diag", "chain_matmul", "cdist"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY


class LinAlgError(RuntimeError):
    """A matrix was singular or not positive-definite (torch.linalg.LinAlgError)."""



def _check_same_dtype(a: np.ndarray, b: np.ndarray) -> None:
    """torch's words for mixed dtypes depend on the kernel matmul picks (dot, mv, bmm, mm)."""
    if a.dtype == b.dtype:
        return
    da, db = _dtype.from_numpy_dtype(a.dtype), _dtype.from_numpy_dtype(b.dtype)
    sa, sb = da.scalar_name, db.scalar_name
    if a.ndim == 1 and b.ndim == 1:
        message = f"dot : expected both vectors to have same dtype, but found {sa} and {sb}"
    elif b.ndim == 1:
        message = f"addmv input tensors must have the same dtype, but got {sb}, {sa}, and {sb}"
    elif b.ndim >= 3:
        message = f"expected scalar type {sa} but found {sb}"
    else:
        message = (f"expected m1 and m2 to have the same dtype, but got: "
                   f"{da.cpp_name} != {db.cpp_name}")
    raise RuntimeError(message + ". Hint: convert one operand, e.g. b.to(a.dtype) "
                       "(float64 usually comes from NumPy arrays).")


def _shape_error(a: Tensor | np.ndarray, b: Tensor | np.ndarray) -> RuntimeError:
    sa, sb = a.shape, b.shape
    if len(sa) == 2 and len(sb) == 2 or len(sa) == 1 or len(sb) == 1:
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                            f"({sa[0] if len(sa) > 1 else 1}x{sa[-1]} and "
                            f"{sb[0]}x{sb[-1] if len(sb) > 1 else 1})")
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                        f"[{sb[0]}, {sa[-1]}] but got: [{sb[0]}, {sb[-2]}].")


def _in_float32(fn, *arrays):
    """Run `fn` on the arrays, computing float16/bfloat16 in float32 and rounding back."""
    if arrays[0].dtype in _LOW_PRECISION:
        return fn(*(a.astype(np.float32) for a in arrays)).astype(arrays[0].dtype)
    return fn(*arrays)


# ---------------------------------------------------------------- matmul
class MatMul(Function):
    backward_name = "MmBackward0"
    saved_names = ("self", "mat2")
    holomorphic = True

    @staticmethod
    def forward(ctx, x, y):
        _check_same_dtype(x, y)
        if x.dtype in LIMITED_NUMPY:
            kernel = "dot" if x.ndim == y.ndim == 1 else "bmm" if x.ndim == y.ndim == 3 \
                else "addmm_impl_cpu_"
            raise unsupported_kernel(kernel, x.dtype)
        if x.ndim == 0 or y.ndim == 0:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                               f"{x.ndim}D and {y.ndim}D")
        if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
            raise _shape_error(x, y)
        ctx.save_for_backward(x, y)
        if x.dtype in _LOW_PRECISION:
            return float_math(np.matmul, x, y.astype(np.float32))
        if x.ndim > 2 and y.ndim == 2:
            # NumPy runs a stack times a matrix as one BLAS call per matrix of the stack;
            # folding the stack into the rows makes it one large (much faster) GEMM.
            rows = np.matmul(x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), y)  # -1 fails at 0
            return rows.reshape(x.shape[:-1] + (y.shape[-1],))
        return np.matmul(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._unpacked_saved
        need_a, need_b = ctx.needs_input_grad
        if a.ndim == 1 and b.ndim == 1:
            return grad * b if need_a else None, grad * a if need_b else None
        a2 = a.unsqueeze(0) if a.ndim == 1 else a
        b2 = b.unsqueeze(-1) if b.ndim == 1 else b
        g = grad
        if a.ndim == 1:
            g = g.unsqueeze(-2)
        if b.ndim == 1:
            g = g.unsqueeze(-1)
        grad_a = grad_b = None
        if need_a:
            grad_a = g.matmul(b2.mT)
            if a.ndim == 1:
                grad_a = grad_a.squeeze(-2)
        if need_b:
            grad_b = a2.mT.matmul(g)
            if b.ndim == 1:
                grad_b = grad_b.squeeze(-1)
        return grad_a, grad_b


# torch dispatches matmul by the operands' ranks; the last op it runs names the grad_fn.
_MATMUL_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4",
                 (2, 2): "MmBackward0"}


def _with_out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from .pointwise import _with_out as copy_to_out
    return copy_to_out(result, out)


@autocast_op(LOWER)
def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Matrix product with numpy-style rules: dot for 1-D by 1-D, mm for 2-D, batched and broadcast
    matmul when either has more than two dimensions (a 1-D operand gets a temporary dimension)."""
    if input.is_sparse or other.is_sparse:     # ember.sparse's tensors multiply themselves
        product = input._matmul(other) if input.is_sparse else other._rmatmul(input)
        return _with_out(product, out)
    nd = (input.ndim, other.ndim)
    default = "CloneBackward0" if nd[0] == 2 and nd[1] >= 3 else "UnsafeViewBackward0"
    result = _named(MatMul.apply(input, other), _MATMUL_NAMES.get(nd, default))
    return _with_out(result, out)


@autocast_op(LOWER)
def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """Matrix product of (n, m) and (m, p) matrices, giving (n, p); no broadcasting."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2, out=out)


@autocast_op(LOWER)
def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p), giving (b, n, p); no broadcasting."""
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return _with_out(_named(MatMul.apply(input, mat2), "BmmBackward0"), out)


def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    """Product of an (n, m) matrix and an m-vector, giving an n-vector."""
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                           f"({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    return _with_out(_named(MatMul.apply(input, vec), "MvBackward0"), out)


def _check_vectors(input: Tensor, other: Tensor, name: str) -> None:
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           "tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and "
                           f"src [{other.shape[0]}] to have the same number of elements, but "
                           f"got {input.shape[0]} and {other.shape[0]} elements respectively")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{input.dtype.scalar_name} and "
                           f"{other.dtype.scalar_name}")


def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    """Inner product of two 1-D tensors of the same length."""
    _check_vectors(input, tensor, "dot")
    return _with_out(_named(MatMul.apply(input, tensor), "DotBackward0"), out)


def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Inner product of two 1-D tensors, conjugating the first one."""
    _check_vectors(input, other, "vdot")
    if input.is_complex():
        if input.requires_grad or other.requires_grad:
            raise NotImplementedError("ember does not implement the gradient of vdot for "
                                      "complex tensors")
        return _with_out(Tensor._wrap(np.asarray(np.vdot(input._data, other._data))), out)
    return _with_out(_named(MatMul.apply(input, other), "VdotBackward0"), out)


# ---------------------------------------------------------------- einsum
def _letters_from_sublist(sublist) -> str:
    """einsum's sublist format: ints 0..51 name dimensions, Ellipsis stands for '...'."""
    return "".join("..." if s is Ellipsis else string.ascii_letters[s] for s in sublist)


def _sublist_equation(args) -> tuple:
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> ('ab,bc->ac', op0, op1)."""
    output = _letters_from_sublist(args[-1]) if len(args) % 2 else None
    pairs = args[:-1] if len(args) % 2 else args
    operands, specs = list(pairs[0::2]), [_letters_from_sublist(s) for s in pairs[1::2]]
    equation = ",".join(specs) + ("" if output is None else "->" + output)
    return equation, operands


def _parse_equation(equation: str, shapes: list) -> tuple:
    """Spell out an einsum equation with one letter per dimension.

    Returns (input label strings, output label string): '...' becomes letters unused in
    the equation (right-aligned, like broadcasting) and an implicit output is made
    explicit (labels used once, sorted, after the broadcast dimensions).
    """
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(specs) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in equation]
    n_broadcast = max([len(shape) - len(spec.replace("...", ""))
                       for spec, shape in zip(specs, shapes) if "..." in spec] + [0])
    broadcast = "".join(spare[:n_broadcast])
    inputs = []
    for i, (spec, shape) in enumerate(zip(specs, shapes)):
        named = len(spec.replace("...", ""))
        if "..." in spec:
            spec = spec.replace("...", broadcast[n_broadcast - (len(shape) - named):])
        elif named != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) "
                               f"does not match the number of dimensions ({len(shape)}) for "
                               f"operand {i} and no ellipsis was given")
        inputs.append(spec)
    if arrow:
        output = rhs.replace("...", broadcast)
        for label in output:
            if not any(label in spec for spec in inputs):
                raise RuntimeError(f"einsum(): output subscript {label} does not appear in the "
                                   "equation for any input operand")
    else:
        joined = "".join(specs)
        output = broadcast + "".join(sorted(c for c in set(joined) if joined.count(c) == 1
                                            and c.isalpha()))
    return inputs, output


def _label_sizes(inputs: list, shapes: list) -> dict:
    """The size of every label (size-1 dimensions broadcast), with torch's error."""
    sizes = {}
    for i, (spec, shape) in enumerate(zip(inputs, shapes)):
        for label, n in zip(spec, shape):
            seen = sizes.get(label, 1)
            if n != seen and n != 1 and seen != 1:
                raise RuntimeError(f"einsum(): subscript {label} has size {n} for operand {i} "
                                   f"which does not broadcast with previously seen size {seen}")
            sizes[label] = n if seen == 1 else seen
    return sizes


class Einsum(Function):
    """A contraction given by an explicit equation (see `_parse_equation`)."""

    backward_name = "ViewBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, inputs, output, *operands):
        ctx.spec = (inputs, output)
        ctx.save_for_backward(*operands)
        equation = ",".join(inputs) + "->" + output
        result = _in_float32(lambda *a: np.einsum(equation, *a, optimize=True), *operands)
        # NumPy returns views for pure relabellings ('ij->ji', 'ii->i'); torch copies.
        if any(np.may_share_memory(result, a) for a in operands):
            result = result.copy()
        return result

    @staticmethod
    def backward(ctx, grad):
        inputs, output = ctx.spec
        operands = ctx._unpacked_saved
        sizes = _label_sizes(inputs, [o._data.shape for o in operands])
        grads = [None, None]
        for i, need in enumerate(ctx.needs_input_grad[2:]):
            grads.append(_operand_grad(i, grad, inputs, output, operands, sizes) if need
                         else None)
        return tuple(grads)


def _operand_grad(i: int, grad: Tensor, inputs: list, output: str, operands, sizes) -> Tensor:
    """Gradient of operand i: the output grad contracted with all the other operands.

    Labels that only operand i uses were summed away in forward, so they come back by
    contracting with a ones tensor; a label repeated within operand i (a diagonal) is
    renamed and tied to its twin through an identity matrix.
    """
    target = inputs[i]
    specs = [output] + [s for j, s in enumerate(inputs) if j != i]
    tensors = [grad] + [o for j, o in enumerate(operands) if j != i]
    elsewhere = set("".join(specs))
    only_here = "".join(dict.fromkeys(c for c in target if c not in elsewhere))
    const = lambda array: Tensor._wrap(array.astype(grad._data.dtype))  # noqa: E731
    if only_here:
        specs.append(only_here)
        tensors.append(const(np.ones([sizes[c] for c in only_here])))
    spare = iter(c for c in string.ascii_letters if c not in "".join(inputs) + output)
    renamed = []
    for label in target:
        if label in renamed:
            twin = next(spare)
            specs.append(label + twin)
            tensors.append(const(np.eye(sizes[label])))
            label = twin
        renamed.append(label)
    result = Einsum.apply(specs, "".join(renamed), *tensors)
    # A dimension operand i broadcast (size 1) comes out at the size the others lent it;
    # one it shared with a broadcast operand comes out at size 1 and is expanded back.
    shape = [sizes[c] for c in target]
    return result if list(result.shape) == shape else result.expand(shape)


def _einsum_name(inputs: list, output: str) -> str:
    """The grad_fn torch's einsum ends with: a sum, a permute, a product or a view."""
    summed = set("".join(inputs)) - set(output)
    if len(inputs) == 1:
        return "SumBackward1" if summed else "PermuteBackward0"
    return "ViewBackward0" if summed else "MulBackward0"


@autocast_op(LOWER)
def einsum(*args) -> Tensor:
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist format."""
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    shapes = [o._data.shape for o in operands]
    inputs, output = _parse_equation(equation, shapes)
    _label_sizes(inputs, shapes)
    return _named(Einsum.apply(inputs, output, *operands), _einsum_name(inputs, output))


def _contract(equation: str, name: str, *operands: Tensor) -> Tensor:
    """An explicit-equation einsum (no '...') under the grad_fn name of the calling op."""
    inputs, output = equation.split("->")
    return _named(Einsum.apply(inputs.split(","), output, *operands), name)


def _labels(n: int, start: int = 0) -> str:
    return string.ascii_letters[start:start + n]


def outer(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    """Outer product of vectors input (n) and vec2 (m), giving (n, m)."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return _with_out(_contract("i,j->ij", "MulBackward0", input, vec2), out)


ger = outer


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Inner product over the last dimension of both tensors (scalars are multiplied)."""
    if input.ndim == 0 or other.ndim == 0:
        return _with_out(input * other, out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    a, b = _labels(input.ndim - 1), _labels(other.ndim - 1, 26)
    return _with_out(_contract(f"{a}z,{b}z->{a}{b}", "ViewBackward0", input, other), out)


@autocast_op(LOWER)
def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contraction of a and b over the last `dims` dimensions of a and the first of b (or over the
    listed dimension pairs)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    la, lb = list(_labels(a.ndim)), list(_labels(b.ndim, 26))
    for da, db in zip(dims_a, dims_b):
        size_a, size_b = a.shape[da], b.shape[db]
        if size_a != size_b and 1 not in (size_a, size_b):
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{size_a} in dim {da} and second has size {size_b} "
                               f"in dim {db}")
        # a size-1 contracted dim broadcasts against the other, as in torch
        if size_a == 1 and size_b != 1:
            a = a.expand(*(size_b if d == da % a.ndim else -1 for d in range(a.ndim)))
        elif size_b == 1 and size_a != 1:
            b = b.expand(*(size_a if d == db % b.ndim else -1 for d in range(b.ndim)))
        lb[db] = la[da]
    keep = [c for c in la if c not in lb] + [c for c in lb if c not in la]
    equation = f"{''.join(la)},{''.join(lb)}->{''.join(keep)}"
    return _with_out(_contract(equation, "ViewBackward0", a, b), out)


def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Kronecker product: every element of input times a whole copy of other, in blocks."""
    n = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (n - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (n - other.ndim) + tuple(other.shape))
    la, lb = _labels(n), _labels(n, 26)
    interleaved = "".join(x + y for x, y in zip(la, lb))
    product = _contract(f"{la},{lb}->{interleaved}", "ViewBackward0", a, b)
    shape = tuple(x * y for x, y in zip(a.shape, b.shape))
    return _with_out(_named(product.reshape(shape), "UnsafeViewBackward0"), out)


@autocast_op(FP32)
def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a 2-D tensor."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return _named(DiagCopy.apply(input, 0).sum(), "TraceBackward0")


def chain_matmul(*matrices, out=None) -> Tensor:
    """Product of a sequence of 2-D matrices (deprecated in torch for linalg.multi_dot)."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        return matrices[0].clone()
    return _with_out(multi_dot(matrices), out)


def multi_dot(tensors, *, out=None) -> Tensor:
    """Product of a chain of matrices (the first may be a row vector, the last a column)."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    result = tensors[0]
    for t in tensors[1:]:
        result = matmul(result, t)
    return _with_out(_named(result.view(tuple(result.shape)), "ViewBackward0"), out)


# ---------------------------------------------------------------- add + product
class AddProduct(Function):
    """beta * input + alpha * (contraction of m1 and m2): addmm, addmv, addr, baddbmm..."""
    holomorphic = True

    @staticmethod
    def forward(ctx, input, m1, m2, equation, beta, alpha):
        _check_same_dtype(m1, m2)
        ctx.save_for_backward(m1, m2)
        ctx.args = (equation, beta, alpha)
        product = _in_float32(lambda x, y: np.einsum(equation, x, y, optimize=True), m1, m2)
        # einsum may hand back a column-major result; torch's is row-major (and what is laid
        # out like it, e.g. dropout's mask, follows that order).
        product = np.ascontiguousarray(product)
        scaled = product if alpha == 1 else product * alpha
        if beta == 0:          # input is ignored (even its nans), as in torch
            return np.broadcast_to(scaled, np.broadcast_shapes(scaled.shape,
                                                               input.shape)).copy()
        bias = input if beta == 1 else input * beta
        return (bias + scaled).astype(product.dtype)

    @staticmethod
    def backward(ctx, grad):
        m1, m2 = ctx._unpacked_saved
        equation, beta, alpha = ctx.args
        need_input, need_m1, need_m2 = ctx.needs_input_grad[:3]
        inputs, output = equation.split("->")
        inputs = inputs.split(",")
        sizes = _label_sizes(inputs, [m1._data.shape, m2._data.shape])
        grad_product = grad if alpha == 1 else grad * alpha
        grad_input = (grad if beta == 1 else grad * beta) if need_input else None
        grads = [_operand_grad(i, grad_product, inputs, output, (m1, m2), sizes) if need
                 else None for i, need in enumerate((need_m1, need_m2))]
        return (grad_input, *grads, None, None, None)


def _add_product(name: str, equation: str, input, m1, m2, beta, alpha, out) -> Tensor:
    if not (m1.is_floating_point() or m1.is_complex()):
        # integer products: addr refuses float scalars, the others truncate them
        for arg, value in (("beta", beta), ("alpha", alpha)):
            if name == "AddrBackward0" and isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {arg} must not be a "
                                   "floating point number.")
        beta, alpha = int(beta), int(alpha)
    result = AddProduct.apply(input, m1, m2, equation, beta, alpha)
    return _with_out(_named(result, name), out)


@autocast_op(LOWER)
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2), with input broadcast to the (n, p) result."""
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor" if mat1.ndim != 2
                           else f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise _shape_error(mat1, mat2)
    return _add_product("AddmmBackward0", "ij,jk->ik", input, mat1, mat2, beta, alpha, out)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), "
                           f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    return _add_product("AddmvBackward0", "ij,j->i", input, mat, vec, beta, alpha, out)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D"
                           if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return _add_product("AddrBackward0", "i,j->ij", input, vec1, vec2, beta, alpha, out)


def _check_batches(batch1: Tensor, batch2: Tensor) -> None:
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch1.shape[0]}, {batch1.shape[2]}] but got: "
                           f"[{batch2.shape[0]}, {batch2.shape[1]}].")


@autocast_op(LOWER)
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1,
            out=None) -> Tensor:
    """beta * input + alpha * bmm(batch1, batch2), per batch."""
    _check_batches(batch1, batch2)
    return _add_product("BaddbmmBackward0", "bij,bjk->bik", input, batch1, batch2, beta,
                        alpha, out)


@autocast_op(LOWER)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1,
           out=None) -> Tensor:
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    _check_batches(batch1, batch2)
    return _add_product("AddbmmBackward0", "bij,bjk->ik", input, batch1, batch2, beta,
                        alpha, out)


# ---------------------------------------------------------------- cross, diag, cdist
class Cross(Function):
    backward_name = "LinalgCrossBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        return _in_float32(lambda x, y: np.cross(x, y, axis=dim), a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._unpacked_saved
        need_a, need_b = ctx.needs_input_grad[:2]
        grad_a = Cross.apply(b, grad, ctx.dim) if need_a else None
        grad_b = Cross.apply(grad, a, ctx.dim) if need_b else None
        return grad_a, grad_b, None


def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """torch.cross: without `dim`, the first dimension of size 3 (torch.linalg.cross: -1)."""
    shape = np.broadcast_shapes(input.shape, other.shape)
    if dim is None:
        dim = next((d for d, n in enumerate(shape) if n == 3), -1)
    return _cross(input, other, dim, out)


def _cross(input: Tensor, other: Tensor, dim: int, out) -> Tensor:
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    axis = input._wrap_dim(dim)
    if input.shape[axis] != 3 or other.shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[axis]} and {other.shape[axis]}")
    return _with_out(Cross.apply(input, other, axis - input.ndim), out)


def _diagonal_index(shape: tuple, offset: int) -> tuple:
    """Row and column indices of diagonal `offset` of a matrix of `shape`."""
    rows, cols = shape
    length = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    index = np.arange(length)
    return index + max(-offset, 0), index + max(offset, 0)


class DiagEmbed(Function):
    """A vector placed on diagonal `offset` of a zero matrix of `shape`."""

    backward_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, v, offset, shape):
        ctx.offset = offset
        out = np.zeros(shape, dtype=v.dtype)
        out[_diagonal_index(shape, offset)] = v
        return out

    @staticmethod
    def backward(ctx, grad):
        return DiagCopy.apply(grad, ctx.offset), None, None


class DiagCopy(Function):
    """Diagonal `offset` of a matrix, as a new vector."""

    backward_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, m, offset):
        ctx.meta = (offset, m.shape)
        return m[_diagonal_index(m.shape, offset)]

    @staticmethod
    def backward(ctx, grad):
        offset, shape = ctx.meta
        return DiagEmbed.apply(grad, offset, shape), None


def diag(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """For a 1-D input, the square matrix with it on diagonal `diagonal`; for a 2-D input, that
    diagonal as a 1-D tensor."""
    if input.ndim == 1:
        n = input.shape[0] + abs(diagonal)
        return _with_out(DiagEmbed.apply(input, diagonal, (n, n)), out)
    if input.ndim == 2:
        return _with_out(DiagCopy.apply(input, diagonal), out)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


class Cdist(Function):
    """p-norm distance between every row of x1 and every row of x2 (batched)."""

    backward_name = "CdistBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x1, x2, p):
        ctx.save_for_backward(x1, x2)
        ctx.p = p
        return _in_float32(lambda d: _p_norm(d, p), x1[..., :, None, :] - x2[..., None, :, :])

    @staticmethod
    def backward(ctx, grad):
        x1, x2 = ctx._unpacked_saved
        grad_diff = grad.unsqueeze(-1) * _cdist_slope(x1, x2, ctx.output(0), ctx.p, grad.dtype)
        need_1, need_2 = ctx.needs_input_grad[:2]
        return (grad_diff.sum(-2) if need_1 else None,
                -grad_diff.sum(-3) if need_2 else None, None)


@replayed_call
def _cdist_slope(x1: Tensor, x2: Tensor, dist: Tensor, p: float, dtype) -> Tensor:
    """d dist / d (x1_i - x2_j), (B, P, R, M), as a constant: torch does not differentiate
    cdist twice either. A replayed call: compile recomputes it from each call's values."""
    diff = (x1._data[..., :, None, :] - x2._data[..., None, :, :]).astype(np.float64)
    dist = dist._data[..., None].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            slope = np.zeros_like(diff)
        elif p == np.inf:
            ties = np.abs(diff) == dist
            slope = np.sign(diff) * ties / ties.sum(-1, keepdims=True)
        else:
            slope = np.sign(diff) * np.abs(diff) ** (p - 1) / dist ** (p - 1)
        return Tensor._wrap(np.where(dist == 0, 0.0, slope).astype(dtype.numpy))


def _p_norm(diff: np.ndarray, p: float) -> np.ndarray:
    magnitude = np.abs(diff)
    if p == 0:
        return (magnitude != 0).sum(-1).astype(diff.dtype)
    if p == np.inf:
        return magnitude.max(-1, initial=0)
    if p == 2:
        return np.sqrt((magnitude * magnitude).sum(-1))
    return (magnitude ** p).sum(-1) ** (1.0 / p)


@autocast_op(FP32)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between each row of x1 (B, P, M) and each row of x2 (B, R, M), giving (B, P,
    R)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D"
                           if x1.ndim < 2 else
                           f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return Cdist.apply(x1, x2, float(p))
