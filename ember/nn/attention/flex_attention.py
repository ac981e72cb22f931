"""torch.nn.attention.flex_attention: attention whose scores a Python function modifies
(`score_mod`) and whose pattern a block-sparse mask describes (`BlockMask`).

ember computes it as torch does without torch.compile (its "unfused" math path): the full
score matrix, score_mod applied to it, masked positions set to -inf, a softmax (rows with
nothing to attend give zeros) and the product with the values. As torch on the CPU, it
refuses query, key or value that require grad (torch has no CPU backward for it). Where torch vmaps score_mod and mask_mod over the batch, head, query and key
indices, ember calls them once with those indices as broadcasting tensors of shapes
(B, 1, 1, 1), (1, H, 1, 1), (1, 1, Q, 1) and (1, 1, 1, KV): mods written with tensor ops
(comparisons, arithmetic, torch.where, indexing a tensor with an index) give torch's
results; Python control flow on an index's value is refused by both.

A BlockMask marks, per (query block, key block), whether the block is skipped, computed
with mask_mod ("partial"), or computed whole ("full"), in torch's layout: per row of
blocks, the number of blocks and their indices (listed blocks first, each group in
ascending order).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from ... import _dtype
from ..._tensor import Tensor
from ...ops.creation import arange, ones, zeros
from ...ops.pointwise import where
from ...ops.sorting import argsort
from ...ops.shape import repeat_interleave
from ...ops.softmax import softmax

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions",
           "create_block_mask", "create_mask", "or_masks", "and_masks", "noop_mask"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_score_mod_signature = Callable[[Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]
_mask_mod_signature = Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]
FlexKernelOptions = dict        # kernel tuning hints: accepted, nothing to tune here


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention should return."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """flex_attention's auxiliary outputs (None where not requested)."""
    lse: Tensor | None = None
    max_scores: Tensor | None = None


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """The mask_mod that keeps every position."""
    return ones((), dtype=_dtype.bool)


def _combine(mask_mods, combine, name: str) -> _mask_mod_signature:
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def combined(b, h, q_idx, kv_idx):
        result = None
        for mask_mod in mask_mods:
            kept = mask_mod(b, h, q_idx, kv_idx)
            result = kept if result is None else combine(result, kept)
        return result
    combined.__name__ = name
    return combined


def and_masks(*mask_mods: _mask_mod_signature) -> _mask_mod_signature:
    """The mask_mod keeping the positions every one of mask_mods keeps."""
    return _combine(mask_mods, lambda a, b: a & b, "and_mask") if mask_mods else noop_mask


def or_masks(*mask_mods: _mask_mod_signature) -> _mask_mod_signature:
    """The mask_mod keeping the positions any one of mask_mods keeps."""
    if not mask_mods:
        return lambda b, h, q_idx, kv_idx: zeros((), dtype=_dtype.bool)
    return _combine(mask_mods, lambda a, b: a | b, "or_mask")


def _indices(B: int, H: int, Q_LEN: int, KV_LEN: int) -> tuple:
    """The batch, head, query and key indices as tensors broadcasting to (B, H, Q, KV)."""
    return (arange(B).view(B, 1, 1, 1), arange(H).view(1, H, 1, 1),
            arange(Q_LEN).view(1, 1, Q_LEN, 1), arange(KV_LEN).view(1, 1, 1, KV_LEN))


def _is_score_mod(mod_fn) -> bool:
    import inspect
    positional = [p for p in inspect.signature(mod_fn).parameters.values()
                  if p.default is inspect.Parameter.empty and p.kind in (
                      p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 5


def create_mask(mod_fn, B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,
                device=None) -> Tensor:
    """The dense boolean mask (B, H, Q_LEN, KV_LEN) of a mask_mod, or of a score_mod (the
    positions it does not set to -inf)."""
    B, H = B or 1, H or 1
    b, h, q_idx, kv_idx = _indices(B, H, Q_LEN, KV_LEN)
    if _is_score_mod(mod_fn):
        kept = ~mod_fn(zeros(B, H, Q_LEN, KV_LEN), b, h, q_idx, kv_idx).isneginf()
    else:
        kept = mod_fn(b, h, q_idx, kv_idx)
    return kept.expand(B, H, Q_LEN, KV_LEN).clone()


def _dense_to_ordered(dense: Tensor) -> tuple:
    """(number of listed blocks per row, the block indices with the listed ones first)."""
    dense = dense.to(_dtype.int32)
    return (dense.sum(-1).to(_dtype.int32),
            argsort(dense, dim=-1, descending=True, stable=True).to(_dtype.int32))


def _ordered_to_dense(num_blocks: Tensor, indices: Tensor) -> Tensor:
    """The (..., rows, cols) 0/1 int32 map of the blocks that `num_blocks`/`indices` list."""
    listed = arange(indices.shape[-1]) < num_blocks.unsqueeze(-1)
    dense = zeros(indices.shape, dtype=_dtype.int32)
    return dense.scatter(-1, indices.long(), listed.to(_dtype.int32))


class BlockMask:
    """Which (query block, key block) pairs flex_attention computes: partial blocks (with
    mask_mod) and full blocks, listed per row of blocks for the forward pass (kv_*) and per
    column for the backward pass (q_*)."""

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                 full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks, full_q_indices,
                 BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod: _mask_mod_signature = noop_mask) -> None:
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks: Tensor, kv_indices: Tensor,
                       full_kv_num_blocks: Tensor | None = None,
                       full_kv_indices: Tensor | None = None,
                       BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, mask_mod=None,
                       seq_lengths=None, compute_q_blocks: bool = True) -> "BlockMask":
        """A BlockMask from its forward-pass listing (the backward one is derived)."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError("full_kv_num_blocks and full_kv_indices must be both "
                                 "provided or omitted")
        q_blocks = full_q_blocks = (None, None)
        if compute_q_blocks:
            q_blocks = _dense_to_ordered(
                _ordered_to_dense(kv_num_blocks, kv_indices).transpose(-2, -1))
            if full_kv_num_blocks is not None:
                full_q_blocks = _dense_to_ordered(
                    _ordered_to_dense(full_kv_num_blocks, full_kv_indices).transpose(-2, -1))
        if isinstance(BLOCK_SIZE, int):
            BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * BLOCK_SIZE[0],
                           kv_indices.shape[-1] * BLOCK_SIZE[1])
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                   full_kv_indices, *q_blocks, *full_q_blocks, BLOCK_SIZE,
                   mask_mod if mask_mod is not None else noop_mask)

    def as_tuple(self, flatten: bool = True) -> tuple:
        """The mask's fields in torch's order."""
        block_size = self.BLOCK_SIZE if flatten else (self.BLOCK_SIZE,)
        return (*self.seq_lengths, self.kv_num_blocks, self.kv_indices,
                self.full_kv_num_blocks, self.full_kv_indices, self.q_num_blocks,
                self.q_indices, self.full_q_num_blocks, self.full_q_indices, *block_size,
                self.mask_mod)

    @property
    def shape(self) -> tuple:
        return (*self.kv_indices.shape[:-2], *self.seq_lengths)

    def numel(self) -> int:
        return math.prod(self.shape)

    def sparsity(self) -> float:
        """The percentage of the score matrix that is never computed."""
        computed = self.kv_num_blocks.sum()
        if self.full_kv_num_blocks is not None:
            computed = computed + self.full_kv_num_blocks.sum()
        computed_size = computed.item() * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - computed_size / self.numel())

    def to_dense(self) -> Tensor:
        """The (B, H, query blocks, key blocks) int32 map of the computed blocks."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices)
        if self.full_kv_num_blocks is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices)
        return dense

    def to(self, device) -> "BlockMask":
        return self

    def __repr__(self) -> str:
        fields = ["kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                  "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices"]
        lines = [f"{name}={getattr(getattr(self, name), 'shape', None)}" for name in fields]
        lines += [f"BLOCK_SIZE={self.BLOCK_SIZE}", f"shape={self.shape}",
                  f"sparsity={self.sparsity():.2f}%",
                  f"mask_mod={getattr(self.mask_mod, '__name__', self.mask_mod)}"]
        return "BlockMask(\n" + ",\n".join("    " + line for line in lines) + "\n)"


def create_block_mask(mask_mod: _mask_mod_signature, B: int | None, H: int | None,
                      Q_LEN: int, KV_LEN: int, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile: bool = False,
                      separate_full_blocks: bool = True) -> BlockMask:
    """The BlockMask of mask_mod over (B, H, Q_LEN, KV_LEN) (B, H None: 1, broadcasting)."""
    if _is_score_mod(mask_mod):
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    q_block, kv_block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN)
    B, H = mask.shape[:2]
    q_blocks, kv_blocks = -(-Q_LEN // q_block), -(-KV_LEN // kv_block)
    padded = zeros(B, H, q_blocks * q_block, kv_blocks * kv_block, dtype=_dtype.bool)
    padded[:, :, :Q_LEN, :KV_LEN] = mask       # positions past the ends are masked
    kept = padded.view(B, H, q_blocks, q_block, kv_blocks, kv_block).sum(dim=(3, 5))
    if separate_full_blocks:
        full = kept == q_block * kv_block
        partial, full_listing = (kept > 0) & ~full, _dense_to_ordered(full)
    else:
        partial, full_listing = kept > 0, (None, None)
    return BlockMask.from_kv_blocks(*_dense_to_ordered(partial), *full_listing,
                                    BLOCK_SIZE=(q_block, kv_block), mask_mod=mask_mod,
                                    seq_lengths=(Q_LEN, KV_LEN))


def flex_attention(query: Tensor, key: Tensor, value: Tensor, score_mod=None,
                   block_mask: BlockMask | None = None, scale: float | None = None,
                   enable_gqa: bool = False, return_lse: bool = False, kernel_options=None,
                   *, return_aux: AuxRequest | None = None):
    """softmax(score_mod(query @ key^T * scale) masked by block_mask) @ value, for
    (B, H, L, E) query and (B, H_kv, S, E) key/value; with return_lse (or return_aux) also
    the rows' logsumexp (B, H, L) (and their max scores)."""
    if any(t.requires_grad for t in (query, key, value)):
        # torch's CPU implementation has no backward; ember keeps its refusal.
        raise NotImplementedError("FlexAttention does not support backward on CPU. Please set "
                                  "the input requires_grad to False or use another device.")
    B, Hq, Q_LEN, head_dim = query.shape
    Hkv, KV_LEN = key.shape[1], key.shape[2]
    if Hq != Hkv:
        if not enable_gqa:
            raise ValueError(f"Expect query and key/value to have the same number of heads but "
                             f"got Hq={Hq} and Hkv={Hkv}. Try setting enable_gqa=True for GQA.")
        if Hq % Hkv:
            raise ValueError(f"Expect number of query heads to be a multiple of kv heads for "
                             f"GQA but got Hq={Hq} and Hkv={Hkv}.")
        key = repeat_interleave(key, Hq // Hkv, dim=1)
        value = repeat_interleave(value, Hq // Hkv, dim=1)
    if return_aux is not None and return_aux.max_scores:
        raise NotImplementedError("Returning max scores is not supported on CPU/MPS.")
    scale = 1.0 / math.sqrt(head_dim) if scale is None else scale
    work = _dtype.float64 if query.dtype is _dtype.float64 else _dtype.float32
    scores = (query.to(work) @ key.to(work).transpose(-2, -1)) * scale     # (B, H, L, S)
    indices = _indices(B, Hq, Q_LEN, KV_LEN)
    if score_mod is not None:
        scores = score_mod(scores, *indices)
    # As torch's unfused path: mask_mod decides every position (the block listing is what
    # a fused kernel would skip).
    mask_mod = noop_mask if block_mask is None else block_mask.mask_mod
    scores = where(mask_mod(*indices), scores, -math.inf)
    empty = (scores == -math.inf).all(dim=-1)       # rows with nothing to attend
    weights = where(empty.unsqueeze(-1), 0.0, softmax(scores, dim=-1))
    out = weights.to(query.dtype) @ value.to(query.dtype)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    # torch's kernels keep it in base 2: scaled there and back, with their rounding
    lse = where(empty, -math.inf, scores.logsumexp(dim=-1)) / math.log(2) * math.log(2) \
        if want_lse else None
    if return_aux is not None:
        return out, AuxOutput(lse, None)
    return (out, lse) if return_lse else out
