"""3x3 stride-1 convolutions by Winograd's minimal filtering F(2x2, 3x3).

A 2x2 block of outputs of a 3x3 convolution depends on a 4x4 tile of the input. With
the tile d, the kernel g and three small constant matrices,

    Y = A^T [(G g G^T) * (B^T d B)] A                       (* elementwise)

computes the 2x2 outputs with 16 multiplications instead of 36. Over many channels the
16 products become 16 matrix products: for each of the 16 positions (a, b) of the
transformed tile, M[a, b] = V[a, b] @ U[a, b]^T, with V the transformed input tiles
(tiles x channels) and U the transformed kernels (out x in channels). That is 2.25x
fewer multiply-adds than im2col's single product, and the input is expanded 4x (each
4x4 tile overlaps its neighbours by two rows and columns) instead of 9x.

The backward passes are the same products transposed: with dM = A dY A^T (the output
gradient spread over the tile positions), dV = dM @ U gives the input tiles' gradient,
folded back by B; dU = dM^T @ V gives the kernels' gradient, folded back by G.

Layout: images are transformed as (H, W, N, C), so every slice taken along H and W
keeps N * C contiguous values, and the 16 products read (tiles * N, C) matrices. The
transforms are whole-array additions over the four row (then column) offsets of a
tile. The batch is processed a few images at a time, so that each chunk's tiles stay
in the processor's cache between the transform and the products (and the weight
gradient recomputes the tiles rather than keeping them); chunks run on all threads at
once (_cpu/parallel.py), each with its own scratch buffers and single-threaded products.

Rounding: the transforms add and subtract values and halve the kernel, so results
match a direct convolution to a few units of the last place of the largest terms.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..._cpu.transpose import move_first_axes_last, move_last_axes_first, transpose
from ..._cpu.parallel import parallel_for, split
from ..._cpu.scratch import ThreadScratch
from ..._cpu.tuning import WINOGRAD_CHUNK_VALUES, WINOGRAD_MIN_CHUNKS

# Temporaries are lent from per-thread scratch buffers, one slot per role (see
# _cpu/scratch.py); roles whose lifetimes do not overlap share a slot.
_SCRATCH = ThreadScratch()
_PADDED, _ROWS, _TILES, _PRODUCTS, _GRADIENT = range(5)

# G (4 x 3) spreads a kernel row over the tile positions; KERNEL_TRANSFORM[ab, kl] =
# G[a, k] G[b, l] maps a flattened 3x3 kernel to its 16 transformed values.
_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
_KERNEL_TRANSFORM = np.kron(_G, _G)
# The gradient's tile transform below skips a negation of its last row and column;
# the kernels it meets carry that sign instead.
_SIGN = np.array([1.0, 1.0, 1.0, -1.0])
_SIGNS = np.outer(_SIGN, _SIGN).reshape(16, 1)


def applies(x_shape, w_shape, geo) -> bool:
    """Whether a convolution has the shape this algorithm handles (2-d, 3x3 kernel,
    stride 1, no dilation, one group) and enough channels for it to pay off."""
    return (len(w_shape) == 4 and tuple(w_shape[2:]) == (3, 3) and geo.groups == 1
            and tuple(geo.stride) == (1, 1) and tuple(geo.dilation) == (1, 1)
            and w_shape[1] >= 16 and w_shape[0] >= 16)


class _Plan:
    """Output size, tiles per image along H and W, and images per chunk."""

    def __init__(self, x_shape, w_shape, geo):
        n, c, h, w = x_shape
        self.out = geo.out_size((h, w), (3, 3))
        self.th, self.tw = ((size + 1) // 2 for size in self.out)
        self.pads = geo.pads
        per_image = 16 * self.th * self.tw * max(c, w_shape[0])
        self.values = n * per_image
        # Chunks small enough to stay in cache, and at least two (one per thread on a
        # two-core machine). They depend on the shapes only, never on the thread count,
        # so the weight gradient's sum over the chunks is the same on any machine.
        self.chunks = split(n, max(-(-self.values // WINOGRAD_CHUNK_VALUES), WINOGRAD_MIN_CHUNKS))


# ---------------------------------------------------------------- kernels
def _kernel_tiles(w: np.ndarray) -> np.ndarray:
    """U (16, O, C): the transformed kernels of w (O, C, 3, 3)."""
    o, c = w.shape[:2]
    flat = transpose(w.reshape(o * c, 9))                  # (9, O C)
    return (_KERNEL_TRANSFORM.astype(w.dtype, copy=False) @ flat).reshape(16, o, c)


def _kernel_gradient(du: np.ndarray, w_shape) -> np.ndarray:
    """dL/dw (O, C, 3, 3) from the gradient of the signed transformed kernels."""
    o, c = w_shape[:2]
    fold = (_KERNEL_TRANSFORM * _SIGNS).T.astype(du.dtype)     # (9, 16)
    return transpose(fold @ du.reshape(16, o * c)).reshape(w_shape)


# ---------------------------------------------------------------- forward
def forward(x: np.ndarray, w: np.ndarray, geo, bias: np.ndarray | None = None) -> np.ndarray:
    """The convolution of x (N, C, H, W) with w (O, C, 3, 3): (N, O, OH, OW)."""
    plan = _Plan(x.shape, w.shape, geo)
    n, o = x.shape[0], w.shape[0]
    u_t = _kernel_tiles(w).transpose(0, 2, 1)             # (16, C, O)
    y = np.empty((n, o) + tuple(plan.out), dtype=x.dtype)

    def convolve(part):
        with _input_tiles(x[part], plan) as tiles, \
                _SCRATCH.lend((16, tiles.shape[1], o), x.dtype, _PRODUCTS) as products:
            np.matmul(tiles, u_t, out=products)
            _output_transform(products, plan, out=y[part])

    parallel_for(plan.chunks, convolve, plan.values)
    if bias is not None:
        y += bias.astype(y.dtype, copy=False).reshape(-1, 1, 1)
    return y


@contextmanager
def _input_tiles(x: np.ndarray, plan: _Plan):
    """V (16, tiles * N, C) of x (N, C, H, W), lent from the scratch buffer."""
    n, c = x.shape[:2]
    th, tw = plan.th, plan.tw
    with _SCRATCH.lend((4, 4, th, tw, n, c), x.dtype, _TILES) as tiles:
        with _padded_hwnc(x, plan) as padded, \
                _SCRATCH.lend((4, th, 2 * tw + 2, n, c), x.dtype, _ROWS) as rows:
            _tile_transform(padded, th, axis=0, out=rows)
            # tiles[r, b]: the transform of rows[r] along W.
            _tile_transform(rows, tw, axis=2, out=tiles.transpose(1, 0, 2, 3, 4, 5))
        yield tiles.reshape(16, th * tw * n, c)


@contextmanager
def _padded_hwnc(x: np.ndarray, plan: _Plan):
    """x (N, C, H, W) as (2 th + 2, 2 tw + 2, N, C) with zeros around it: the explicit
    padding before, and after it as many zeros as the last tiles need."""
    n, c, h, w = x.shape
    (top, _), (left, _) = plan.pads
    with _SCRATCH.lend((2 * plan.th + 2, 2 * plan.tw + 2, n, c), x.dtype, _PADDED) as padded:
        padded[:top] = 0
        padded[top + h:] = 0
        padded[top:top + h, :left] = 0
        padded[top:top + h, left + w:] = 0
        padded[top:top + h, left:left + w] = move_first_axes_last(x, 2)
        yield padded


def _tile_transform(src: np.ndarray, tiles: int, axis: int, out: np.ndarray) -> None:
    """B^T applied along `axis` of src to every 4-long window starting at an even
    offset: out[r] (r = 0..3) is src with `tiles` entries along `axis`,
        out[0] = d0 - d2, out[1] = d1 + d2, out[2] = d2 - d1, out[3] = d1 - d3
    where dk is src's entry 2 t + k."""
    def offset(k):
        index = [slice(None)] * src.ndim
        index[axis] = slice(k, k + 2 * tiles, 2)
        return src[tuple(index)]

    d0, d1, d2, d3 = (offset(k) for k in range(4))
    np.subtract(d0, d2, out=out[0])
    np.add(d1, d2, out=out[1])
    np.subtract(d2, d1, out=out[2])
    np.subtract(d1, d3, out=out[3])


def _output_transform(products: np.ndarray, plan: _Plan, out: np.ndarray) -> None:
    """A^T M A for every tile, written to out (N, O, OH, OW): rows y0 = m0 + m1 + m2,
    y1 = m1 - m2 - m3, then the same along the columns."""
    th, tw = plan.th, plan.tw
    n, o = out.shape[:2]
    m = products.reshape(4, 4, th, tw, n, o)
    with _SCRATCH.lend((2, 4, th, tw, n, o), m.dtype, _ROWS) as half, \
            _SCRATCH.lend((th, 2, tw, 2, n, o), m.dtype, _PADDED) as full:
        _fold_rows(m, out=half)
        # full[i, p, j, q] = output (2 i + p, 2 j + q): fold the columns of each half[p].
        _fold_rows(half.transpose(1, 0, 2, 3, 4, 5), out=full.transpose(3, 1, 0, 2, 4, 5))
        oh, ow = plan.out
        out[...] = move_last_axes_first(full.reshape(2 * th, 2 * tw, n, o)[:oh, :ow], 2)


def _fold_rows(m: np.ndarray, out: np.ndarray) -> None:
    """out[0] = m0 + m1 + m2, out[1] = m1 - m2 - m3 (A^T along the first axis)."""
    np.add(m[0], m[1], out=out[0])
    out[0] += m[2]
    np.subtract(m[1], m[2], out=out[1])
    out[1] -= m[3]


# ---------------------------------------------------------------- backward
def backward(x: np.ndarray | None, g: np.ndarray, w: np.ndarray | None, geo, x_shape,
             w_shape, need_input: bool, need_weight: bool):
    """(dL/dx or None, dL/dw or None) of the convolution, for the output gradient g.
    The input gradient needs w; the weight gradient needs x."""
    plan = _Plan(x_shape, w_shape, geo)
    n, c = x_shape[:2]
    o = w_shape[0]
    gx = np.empty(x_shape, dtype=g.dtype) if need_input else None
    u = _kernel_tiles(w) * _SIGNS.reshape(16, 1, 1).astype(w.dtype) if need_input else None
    du_parts = {}                     # each chunk's share of the kernels' gradient

    def differentiate(part):
        with _gradient_tiles(g[part], plan) as dm:
            if need_input:
                with _SCRATCH.lend((16, dm.shape[1], c), g.dtype, _PRODUCTS) as dv:
                    np.matmul(dm, u, out=dv)
                    _fold_input(dv, plan, out=gx[part])
            if need_weight:
                with _input_tiles(x[part], plan) as tiles:
                    du_parts[part.start] = np.matmul(dm.transpose(0, 2, 1), tiles)

    parallel_for(plan.chunks, differentiate, plan.values)
    if not need_weight:
        return gx, None
    du = np.zeros((16, o, c), dtype=g.dtype)
    for start in sorted(du_parts):        # a fixed order: the same sum on any thread count
        du += du_parts[start]
    return gx, _kernel_gradient(du, w_shape)


@contextmanager
def _gradient_tiles(g: np.ndarray, plan: _Plan):
    """dM (16, tiles * N, O) of the output gradient g (N, O, OH, OW), lent from the
    scratch buffer, with the last row and column of each tile's transform negated (the
    kernels carry that sign)."""
    n, o = g.shape[:2]
    th, tw = plan.th, plan.tw
    g_hwno = move_first_axes_last(g, 2)
    if g_hwno.shape[:2] != (2 * th, 2 * tw):
        padded = np.zeros((2 * th, 2 * tw, n, o), g.dtype)
        padded[:g_hwno.shape[0], :g_hwno.shape[1]] = g_hwno
        g_hwno = padded
    with _SCRATCH.lend((4, 4, th, tw, n, o), g.dtype, _GRADIENT) as tiles:
        with _SCRATCH.lend((4, th, 2 * tw, n, o), g.dtype, _ROWS) as rows:
            _spread(g_hwno, axis=0, out=rows)
            _spread(rows, axis=2, out=tiles.transpose(1, 0, 2, 3, 4, 5))
        yield tiles.reshape(16, th * tw * n, o)


def _spread(src: np.ndarray, axis: int, out: np.ndarray) -> None:
    """A along `axis` of src (pairs e = entry 2 t, f = entry 2 t + 1), the last row's
    sign skipped: out[0] = e, out[1] = e + f, out[2] = e - f, out[3] = f."""
    index = [slice(None)] * src.ndim
    index[axis] = slice(0, None, 2)
    even = src[tuple(index)]
    index[axis] = slice(1, None, 2)
    odd = src[tuple(index)]
    np.copyto(out[0], even)
    np.add(even, odd, out=out[1])
    np.subtract(even, odd, out=out[2])
    np.copyto(out[3], odd)


def _fold_input(dv: np.ndarray, plan: _Plan, out: np.ndarray) -> None:
    """The input gradient (N, C, H, W) from the tiles' gradient dV, written to out."""
    th, tw = plan.th, plan.tw
    n, c, h, w = out.shape
    # dv[a, b]: the tile rows a are folded onto the image rows first, then the columns b.
    with _SCRATCH.lend((4, 2 * th + 2, tw, n, c), dv.dtype, _ROWS) as rows, \
            _SCRATCH.lend((2 * th + 2, 2 * tw + 2, n, c), dv.dtype, _PADDED) as padded:
        _overlap_add(dv.reshape(4, 4, th, tw, n, c), axis=1, out=rows)
        _overlap_add(rows, axis=1, out=padded)
        (top, _), (left, _) = plan.pads
        out[...] = move_last_axes_first(padded[top:top + h, left:left + w], 2)


def _overlap_add(dv: np.ndarray, axis: int, out: np.ndarray) -> None:
    """B along the tile axis, each tile's four rows added into `out` at rows 2 t .. 2 t + 3
    (neighbouring tiles share two rows). dv[k] (k = 0..3) holds the transformed row k
    with the tiles along `axis`; out is shaped like dv[k] with 2 tiles + 2 rows there:
        row 2 t     gets d0[t] + d2[t - 1],   d0 = v0,            d2 = v1 + v2 - v0
        row 2 t + 1 gets d1[t] + d3[t - 1],   d1 = v1 - v2 + v3,  d3 = -v3"""
    v0, v1, v2, v3 = dv
    lead = (slice(None),) * axis
    even, odd = out[lead + (slice(0, None, 2),)], out[lead + (slice(1, None, 2),)]
    first, last, end = lead + (slice(None, -1),), lead + (slice(1, None),), lead + (-1,)
    # even[t] = v0[t] - v0[t - 1] + (v1 + v2)[t - 1]
    np.copyto(even[first], v0)
    even[end] = 0
    even[last] -= v0
    total = np.add(v1, v2)
    even[last] += total
    # odd[t] = (v1 - v2 + v3)[t] - v3[t - 1]
    np.subtract(v1, v2, out=total)
    total += v3
    np.copyto(odd[first], total)
    odd[end] = 0
    odd[last] -= v3
