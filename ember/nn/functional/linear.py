"""Linear maps: F.linear (one fused Function, torch's addmm) and F.bilinear."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._cpu import buffers
from ..._dtype import scalar_type_name
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from ...amp.policy import KEEP, LOWER, autocast_op
from ...ops.indexing import _named
from ._bias_grad import bias_grad

__all__ = ["linear", "bilinear"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY


def _t(g):
    return None if g is None else g.t()


class _AddmmGradLayout:
    """How torch's addmm/mm node lists its inputs: (bias, x, W^T) / (x, W^T). Legacy module
    backward hooks (register_backward_hook) see the gradients in this layout, and
    grad_fn.next_functions lists the edges in this order."""

    @staticmethod
    def torch_order(items: tuple) -> tuple:
        """(x, W, b) -> (b, x, W); (x, W) stays."""
        return (items[2],) + items[:2] if len(items) == 3 else items

    @staticmethod
    def to_torch(grads: tuple) -> tuple:
        *rest, gw = _AddmmGradLayout.torch_order(grads)
        return (*rest, _t(gw))

    @staticmethod
    def from_torch(grads: tuple) -> tuple:
        if len(grads) == 3:
            gb, gx, gwt = grads
            return gx, _t(gwt), gb
        gx, gwt = grads
        return gx, _t(gwt)


class _LinearFn(Function):
    """y = x @ W^T + b over the last dim of x: one GEMM plus the bias add."""

    backward_name = "AddmmBackward0"
    holomorphic = True
    torch_grad_layout = _AddmmGradLayout

    @staticmethod
    def forward(ctx, x, weight, bias=None):
        _check_dtypes(x, weight, bias)
        if x.ndim == 0 or weight.ndim != 2 or x.shape[-1] != weight.shape[1]:
            rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
            cols = x.shape[-1] if x.ndim else 1
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and "
                               f"{weight.shape[-1]}x{weight.shape[0]})")
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        compute = np.float32 if x.dtype in _LOW_PRECISION else None
        x2 = x.reshape(-1, x.shape[-1])
        w = weight
        if compute is not None:
            x2, w = x2.astype(compute), w.astype(compute)
        out = buffers.matmul(x2, w.T)
        if bias is not None:
            out += bias if compute is None else bias.astype(compute)
        return out.astype(x.dtype, copy=False).reshape(x.shape[:-1] + (weight.shape[0],))

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx._unpacked_saved
        need_x, need_w, need_b = ctx.needs_input_grad
        return _LinearGrads.apply(grad, x, weight, (need_x, need_w, need_b and ctx.has_bias))


class _LinearGrads(FusedBackward):
    """The gradients of _LinearFn, (grad @ W, grad^T @ x, grad summed over rows), each
    None unless `needs` asks for it: NumPy products, and the same in ember ops when they
    are differentiated again."""

    backward_name = "MmBackward0"       # torch's node of grad_x = grad.mm(W)

    @staticmethod
    def forward(ctx, grad, x, weight, needs):
        ctx.save_for_backward(grad, x, weight)
        ctx.needs = needs
        need_x, need_w, need_b = needs
        g_2d = grad.reshape(-1, weight.shape[0])
        if grad.dtype in _LOW_PRECISION:          # 16-bit floats multiply in float32
            g_2d, x, weight = (a.astype(np.float32) for a in (g_2d, x, weight))
        grad_x = buffers.matmul(g_2d, weight).reshape(x.shape) \
            .astype(grad.dtype, copy=False) if need_x else None
        grad_w = buffers.matmul(g_2d.T, x.reshape(-1, x.shape[-1])) \
            .astype(grad.dtype, copy=False) if need_w else None
        grad_b = bias_grad(g_2d, 1).astype(grad.dtype, copy=False) if need_b else None
        return grad_x, grad_w, grad_b

    @staticmethod
    def derivative(ctx, grad, x, weight):
        need_x, need_w, need_b = ctx.needs
        grad_2d = grad.reshape(-1, weight.shape[0])
        return (grad.matmul(weight) if need_x else None,
                grad_2d.mT.matmul(x.reshape(-1, x.shape[-1])) if need_w else None,
                grad_2d.sum(0) if need_b else None)


def _check_dtypes(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None) -> None:
    """torch's messages differ between its mm and addmm kernels; ember repeats them."""
    def name(a: np.ndarray) -> str:
        return scalar_type_name(a.dtype)

    hint = (" Hint: the input and the layer's parameters have different dtypes (float64 "
            "usually comes from a NumPy array through torch.from_numpy); convert one side, "
            "e.g. model.float() or input.float().")
    if bias is not None and bias.dtype != weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {name(bias)} and "
                           f"{name(weight)}." + hint)
    if x.dtype != weight.dtype:
        if bias is None:
            raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                               f"{name(x).lower()} != {name(weight).lower()}." + hint)
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {name(x)} and "
                           f"{name(weight)}." + hint)


@autocast_op(LOWER)
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = input @ weight.T + bias (weight has shape (out_features, in_features))."""
    out = _LinearFn.apply(input, weight, bias)
    if out._grad_fn is None:
        return out
    # torch's grad_fn names: addmm / mm for 2-D input, a view of them otherwise.
    if input.ndim == 2:
        return _named(out, "AddmmBackward0" if bias is not None else "MmBackward0")
    if input.ndim == 1 and bias is None:
        return _named(out, "SqueezeBackward4")
    return _named(out, "UnsafeViewBackward0" if bias is None else "ViewBackward0")


@autocast_op(KEEP)
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    batch = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (N, in1) @ (in1, out*in2) -> (N, out, in2), then contract in2 with x2: two GEMM-like steps.
    left = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    out = left.matmul(x2.unsqueeze(-1)).squeeze(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(tuple(batch) + (out_f,))
