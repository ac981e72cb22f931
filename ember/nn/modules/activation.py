"""Activation layers: each stores its constructor arguments and calls F.<name>; and
MultiheadAttention, which torch keeps here too."""
from __future__ import annotations

from ...ops.creation import empty
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..functional.attention import _canonical_mask, _none_or_dtype
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["Threshold", "ReLU", "ReLU6", "LeakyReLU", "RReLU", "PReLU", "ELU", "SELU", "CELU",
           "GELU", "SiLU", "Mish", "Sigmoid", "Tanh", "Hardtanh", "Hardsigmoid", "Hardswish",
           "Softplus", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "LogSigmoid",
           "Softmax", "Softmax2d", "LogSoftmax", "Softmin", "GLU", "MultiheadAttention"]


class _Stateless(Module):
    """Base of activations without arguments: forward is F.<function>(input)."""

    function = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input)


class _Inplace(Module):
    """Base of activations whose only argument is `inplace`."""

    function = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


def _inplace_suffix(module) -> str:
    return ", inplace=True" if module.inplace else ""


class ReLU(_Inplace):
    """Applies relu elementwise: max(0, x). Input and output have any shape (*)."""
    function = staticmethod(F.relu)


class SiLU(_Inplace):
    """Applies silu (swish) elementwise: x * sigmoid(x)."""
    function = staticmethod(F.silu)


class Mish(_Inplace):
    """Applies mish elementwise: x * tanh(softplus(x))."""
    function = staticmethod(F.mish)


class SELU(_Inplace):
    """Applies selu elementwise: scaled ELU with the self-normalising constants."""
    function = staticmethod(F.selu)


class Hardsigmoid(_Inplace):
    """Applies hardsigmoid elementwise: clamp(x / 6 + 1/2, 0, 1)."""
    function = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""


class Hardswish(_Inplace):
    """Applies hardswish elementwise: x * hardsigmoid(x)."""
    function = staticmethod(F.hardswish)

    def extra_repr(self) -> str:
        return ""


class Sigmoid(_Stateless):
    """Applies the logistic sigmoid 1 / (1 + exp(-x)) elementwise."""
    function = staticmethod(F.sigmoid)


class Tanh(_Stateless):
    """Applies the hyperbolic tangent elementwise."""
    function = staticmethod(F.tanh)


class Softsign(_Stateless):
    """Applies softsign elementwise: x / (1 + |x|)."""
    function = staticmethod(F.softsign)


class Tanhshrink(_Stateless):
    """Applies tanhshrink elementwise: x - tanh(x)."""
    function = staticmethod(F.tanhshrink)


class LogSigmoid(_Stateless):
    """Applies log(sigmoid(x)) elementwise, computed stably."""
    function = staticmethod(F.logsigmoid)


class Threshold(Module):
    """Keeps elements greater than `threshold` and replaces the others by `value`."""
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self)}"


class Hardtanh(Module):
    """Clamps every element into [min_val, max_val] (default [-1, 1])."""
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError("max_val must be greater than min_val")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self)}"


class ReLU6(Hardtanh):
    """Applies min(max(0, x), 6) elementwise."""
    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """Applies max(0, x) + negative_slope * min(0, x) elementwise (default slope 0.01)."""
    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self)}"


class RReLU(Module):
    """Randomized leaky ReLU: random negative slopes in training, their mean in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self)}"


class ELU(Module):
    """Applies elu elementwise: x for x > 0, alpha * (exp(x) - 1) otherwise."""
    function = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self)}"


class CELU(ELU):
    """Applies celu elementwise: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    function = staticmethod(F.celu)


class PReLU(Module):
    """Leaky ReLU with a learned slope (one per channel, or one shared)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        from .. import init
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class GELU(Module):
    """Applies gelu elementwise: x * Phi(x), exact (erf) or, with approximate='tanh', the tanh
    approximation."""
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """Applies log(1 + exp(beta * x)) / beta elementwise, linear above `threshold`."""
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """Applies soft shrinkage elementwise: moves values towards zero by lambd, zeroing those within
    [-lambd, lambd]."""
    function = staticmethod(F.softshrink)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """Zeroes the elements whose magnitude is at most lambd and keeps the others."""
    function = staticmethod(F.hardshrink)


class _DimModule(Module):
    """Base of the modules that act along one dimension."""

    function = None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self.__dict__.setdefault("dim", None)

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimModule):
    """Applies softmax along `dim`, so every slice along it sums to 1."""
    function = staticmethod(F.softmax)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(_DimModule):
    """Applies log_softmax along `dim`."""
    function = staticmethod(F.log_softmax)


class Softmin(_DimModule):
    """Applies softmin (softmax of -x) along `dim`."""
    function = staticmethod(F.softmin)


class GLU(Module):
    """Gated linear unit: splits the input in halves a, b along `dim` and returns a * sigmoid(b)
    (that dimension is halved)."""
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class MultiheadAttention(Module):
    """Attention with `num_heads` heads over embed_dim features; torch's parameter names."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim=None, vdim=None,
                 batch_first: bool = False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask=None,
                need_weights: bool = True, attn_mask=None, average_attn_weights: bool = True,
                is_causal: bool = False):
        batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if self.batch_first and batched:
            # (N, L, E) -> (L, N, E), keeping shared inputs shared.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights
