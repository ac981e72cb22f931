"""Shape, joining and splitting ops against torch: values, views, gradients, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

DTYPES = ["float32", "float64"]


def _is_view_of(out, base) -> bool:
    return out._base is base or out._base is base._base and base._base is not None


# ---------------------------------------------------------------- cat / stack
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("nc", [False, True])
def test_cat(dtype, dim, nc):
    check(lambda lib, x, y: lib.cat([x, y * 2, x], dim), (3, 4), (3, 4), dtype=dtype,
          non_contiguous=nc)


@pytest.mark.parametrize("fn", [
    lambda lib, x, y: lib.cat([x, y], 0),
    lambda lib, x, y: lib.concat((x, y), dim=0),
    lambda lib, x, y: lib.concatenate([x, y], axis=0) if lib is np else lib.concatenate([x, y]),
])
def test_cat_aliases_uneven(fn):
    check(fn, (2, 3), (4, 3))


@pytest.mark.parametrize("make", [
    lambda lib: [lib.ones(30, 20).t(), lib.ones(30, 20).t()],                # both transposed
    lambda lib: [lib.ones(30, 20).t(), lib.ones(20, 30)],
    lambda lib: [lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)] * 2,
    lambda lib: [lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last),
                 lib.ones(2, 3, 4, 5)],
    lambda lib: [lib.ones(2, 3, 2, 4, 5).contiguous(memory_format=lib.channels_last_3d)] * 3,
    lambda lib: [lib.ones(4, 5, 6).permute(2, 0, 1)] * 2,
])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_result_layout_is_torchs(make, dim):
    outs = [lib.cat(make(lib), dim) for lib in (torch, ember)]
    assert outs[1].stride() == outs[0].stride()
    assert outs[1].shape == outs[0].shape


def test_cat_empty_tensors():
    check(lambda lib, x, y: lib.cat([x, y, x]), (0,), (2, 3))          # legacy: (0,) skipped
    check(lambda lib, x, y: lib.cat([x, y], 1), (2, 0), (2, 3))
    check(lambda lib, x, y: lib.cat([x, y]), (0, 3), (0, 3))
    check(lambda lib, x, y: lib.cat([x, y]), (0,), (0,))


def test_cat_promotes_dtypes():
    check(lambda lib, x: lib.cat([x, lib.ones(2, 3, dtype=lib.float64)]), (2, 3))
    check(lambda lib: lib.cat([lib.ones(2, dtype=lib.int32), lib.tensor([True])]), grad=False)
    check(lambda lib: lib.cat([lib.ones(2, dtype=lib.int64), lib.ones(1)]), grad=False)
    check(lambda lib: lib.cat([lib.ones(2, dtype=lib.bfloat16), lib.ones(1, dtype=lib.float16)]),
          grad=False)      # torch's rule (float32), not NumPy's


def test_cat_errors():
    check_error(lambda lib: lib.cat([]), ValueError, r"^torch.cat\(\): expected a non-empty")
    check_error(lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3)]), RuntimeError,
                r"^Tensors must have same number of dimensions: got 2 and 1")
    check_error(lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3, 2)]), RuntimeError,
                r"^Sizes of tensors must match except in dimension 0. Expected size 3 but got "
                r"size 2 for tensor number 1 in the list.")
    check_error(lambda lib: lib.cat([lib.tensor(1.)]), RuntimeError,
                r"^zero-dimensional tensor \(at position 0\) cannot be concatenated")
    check_error(lambda lib: lib.cat([lib.ones(2)], 1), IndexError, r"^Dimension out of range")
    check_error(lambda lib: lib.cat(lib.ones(2)), TypeError,
                r"^cat\(\): argument 'tensors' \(position 1\) must be tuple of Tensors")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(dtype, dim):
    check(lambda lib, x, y: lib.stack([x, y], dim), (3, 4), (3, 4), dtype=dtype)


def test_stack_zero_dim_and_errors():
    check(lambda lib, x, y: lib.stack((x, y)), (), ())
    check_error(lambda lib: lib.stack([]), RuntimeError, r"^stack expects a non-empty TensorList")
    check_error(lambda lib: lib.stack([lib.ones(2, 3), lib.ones(3)]), RuntimeError,
                r"^stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and "
                r"\[3\] at entry 1")


@pytest.mark.parametrize("op", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (2, 3)), ((), ()), ((2, 3, 4),
                                                                            (2, 3, 4))])
def test_stacks(op, shapes):
    if op == "column_stack" and len(shapes[0]) == 3:
        shapes = ((2, 3), (2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x, y: getattr(lib, op)([x, y]), *shapes)


@pytest.mark.parametrize("op", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_atleast(op, shape):
    check(lambda lib, x: getattr(lib, op)(x), shape)
    check(lambda lib, x, y: getattr(lib, op)(x, y), shape, (2,))
    check(lambda lib, x, y: getattr(lib, op)([x, y]), shape, ())


# ---------------------------------------------------------------- splitting
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", [(2,), (3, 1), (1, -1), ([1, 3], 1), ([2, 0, 3], 0),
                                  (10,), ([4], -1)])
def test_split(dtype, args):
    shape = (5, 4)
    check(lambda lib, x: x.split(*args), shape, dtype=dtype)
    check(lambda lib, x: lib.split(x, *args), shape, dtype=dtype, non_contiguous=True)


def test_split_partial_grads_and_views():
    check(lambda lib, x: x.split(2)[1] * 3, (5, 2))
    check(lambda lib, x: lib.split(x * 1, [1, 2], 1)[0], (2, 3))
    x = ember.ones(4, 2)
    a, b = x.split(2)
    assert _is_view_of(a, x) and _is_view_of(b, x)
    b[0, 0] = 7
    assert x[2, 0].item() == 7 and x._version == 1


@pytest.mark.parametrize("chunks,dim", [(2, 0), (3, 0), (4, 1), (1, -1), (10, 0)])
def test_chunk(chunks, dim):
    check(lambda lib, x: x.chunk(chunks, dim), (5, 4))
    check(lambda lib, x: lib.chunk(x, chunks, dim), (0, 4), grad=False) if dim == 0 else None


@pytest.mark.parametrize("split", [
    lambda lib, x: lib.unsafe_chunk(x * 1, 3), lambda lib, x: (x * 1).unsafe_chunk(2, dim=1),
    lambda lib, x: lib.unsafe_split(x * 1, 2), lambda lib, x: (x * 1).unsafe_split(3, 1),
    lambda lib, x: lib.unsafe_split_with_sizes(x * 1, [1, 4]),
    lambda lib, x: (x * 1).unsafe_split_with_sizes([2, 2], dim=-1),
])
def test_unsafe_split_and_chunk(split):
    """Values, gradients and torch's node names; the blocks are not views of the input."""
    check(lambda lib, x: [*split(lib, x), type(split(lib, x)[0].grad_fn).__name__,
                          split(lib, x)[0]._base is None], (5, 4))


def test_unsafe_split_takes_an_int():
    check_error(lambda lib: lib.unsafe_split(lib.ones(4), [1, 3]), TypeError,
                r"unsafe_split\(\): argument 'split_size' \(position 2\) must be int, not list")


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unbind(dim):
    check(lambda lib, x: x.unbind(dim), (3, 4, 2))
    check(lambda lib, x: lib.unbind(x, dim)[1] * 2, (3, 4, 2), non_contiguous=True)


@pytest.mark.parametrize("spec", [3, 2, 7, [1, 3], [0, 5], [-1], [2, 1], (1, 4, 4),
                                  "tensor_sections", "tensor_indices"])
@pytest.mark.parametrize("dim", [0, -1])
def test_tensor_split(spec, dim):
    def fn(lib, x):
        if spec == "tensor_sections":
            return lib.tensor_split(x, lib.tensor(2), dim)
        if spec == "tensor_indices":
            return lib.tensor_split(x, lib.tensor([1, 3]), dim)
        return lib.tensor_split(x, spec, dim)
    check(fn, (5, 5))


def test_hsplit_vsplit_dsplit():
    check(lambda lib, x: lib.hsplit(x, 2), (3, 4, 2))
    check(lambda lib, x: lib.hsplit(x, [1]), (4,))
    check(lambda lib, x: lib.vsplit(x, [1, 2]), (3, 4, 2))
    check(lambda lib, x: lib.dsplit(x, 2), (3, 4, 2))
    check_error(lambda lib: lib.hsplit(lib.ones(3, 3), 2), RuntimeError,
                r"^torch.hsplit attempted to split along dimension 1, but the size of the "
                r"dimension 3 is not divisible by the split_size 2!")


def test_split_errors():
    x = lambda lib: lib.ones(2, 3)  # noqa: E731
    check_error(lambda lib: x(lib).split([1, 1], 1), RuntimeError,
                r"^split_with_sizes expects split_sizes to sum exactly to 3 \(input tensor's "
                r"size at dimension 1\), but got split_sizes=\[1, 1\]")
    check_error(lambda lib: x(lib).split(0), RuntimeError,
                r"^split_size can only be 0 if dimension size is 0, but got dimension size of 2")
    check_error(lambda lib: x(lib).chunk(0), RuntimeError,
                r"^chunk expects `chunks` to be greater than 0, got: 0")
    check_error(lambda lib: lib.tensor_split(x(lib), 0), RuntimeError,
                r"^number of sections must be larger than 0, got 0")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", [(0, 1, 2), (1, 0, 3), (-1, -2, 2), (0, 3, 0), (1, 2, 1)])
def test_narrow(dtype, args):
    out = check(lambda lib, x: x.narrow(*args), (3, 3), dtype=dtype, non_contiguous=True)
    check(lambda lib, x: lib.narrow(x, *args) * 2, (3, 3), dtype=dtype)
    assert out._base is not None


def test_narrow_select_errors():
    check_error(lambda lib: lib.ones(2, 3).narrow(1, 4, 1), IndexError,
                r"^start out of range \(expected to be in range of \[-3, 3\], but got 4\)")
    check_error(lambda lib: lib.ones(2, 3).narrow(1, 2, 3), RuntimeError,
                r"^start \(2\) \+ length \(3\) exceeds dimension size \(3\).")
    check_error(lambda lib: lib.ones(2, 3).select(0, 5), IndexError,
                r"^select\(\): index 5 out of range for tensor of size \[2, 3\] at dimension 0")
    check_error(lambda lib: lib.ones(2, 3).select(2, 0), IndexError, r"^Dimension out of range")


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (-1, 2), (2, 0)])
def test_select(dim, index):
    check(lambda lib, x: x.select(dim, index), (2, 3, 4), non_contiguous=True)
    check(lambda lib, x: lib.select(x, dim, index).exp(), (2, 3, 4), dtype="float64")


# ---------------------------------------------------------------- reordering
@pytest.mark.parametrize("src,dst", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ([0, 2], [-1, -2]),
                                     ((), ())])
def test_movedim(src, dst):
    check(lambda lib, x: lib.movedim(x, src, dst), (2, 3, 4))
    check(lambda lib, x: x.moveaxis(src, dst), (2, 3, 4), non_contiguous=True)


def test_movedim_errors():
    check_error(lambda lib: lib.movedim(lib.ones(2, 3), (0, 0), (1, 0)), RuntimeError,
                r"^movedim: repeated dim in `source` \(\[0, 0\]\)")
    check_error(lambda lib: lib.movedim(lib.ones(2, 3), (0, 1), (1,)), RuntimeError,
                r"^movedim: Invalid source or destination dims: source \(\[0, 1\] dims\) should "
                r"contain the same number of dims as destination \(\[1\] dims\)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [(0,), (1,), (-1,), (0, 2), ()])
def test_flip(dtype, dims):
    check(lambda lib, x: lib.flip(x, dims), (2, 3, 4), dtype=dtype, non_contiguous=True)
    if dims:
        check(lambda lib, x: x.flip(*dims) * 2, (2, 3, 4), dtype=dtype)


def test_flip_lr_ud_and_errors():
    check(lambda lib, x: lib.fliplr(x), (3, 4))
    check(lambda lib, x: lib.flipud(x), (3,))
    check(lambda lib, x: lib.flip(x, [0]), (0, 2))
    check_error(lambda lib: lib.fliplr(lib.ones(3)), RuntimeError, r"^Input must be >= 2-d.")
    check_error(lambda lib: lib.ones(2, 3).flip(0, 0), RuntimeError,
                r"^dim 0 appears multiple times in the list of dims")


@pytest.mark.parametrize("shifts,dims", [(1, 0), (-2, 1), (5, None), ((1, 2), (0, 1)),
                                         (7, -1), (0, 0)])
def test_roll(shifts, dims):
    check(lambda lib, x: lib.roll(x, shifts, dims), (3, 4), non_contiguous=True)
    check(lambda lib, x: x.roll(shifts, dims), (3, 4), dtype="float64")


def test_roll_errors():
    check_error(lambda lib: lib.ones(2, 3).roll(1, (0, 1)), RuntimeError,
                r"^shifts and dimensions must align. shifts: 1, dims:2")


@pytest.mark.parametrize("k", [0, 1, 2, 3, -1, 5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-1, 0), (1, 2)])
def test_rot90(k, dims):
    check(lambda lib, x: lib.rot90(x, k, dims), (2, 3, 4))


def test_rot90_errors():
    x = lambda lib: lib.ones(2, 3)  # noqa: E731
    check_error(lambda lib: lib.rot90(x(lib), 1, [0, 0]), RuntimeError,
                r"^expected rotation dims to be different, but got dim0 = 0 and dim1 = 0")
    check_error(lambda lib: lib.rot90(x(lib), 1, [0, 1, 2]), RuntimeError,
                r"^expected total rotation dims == 2, but got dims = 3")
    check_error(lambda lib: lib.rot90(lib.ones(3)), RuntimeError,
                r"^expected total dims >= 2, but got total dims = 1")


# ---------------------------------------------------------------- repeating
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,sizes", [((2, 3), (2, 2)), ((2, 3), (3, 1, 2)), ((), (2, 3)),
                                         ((3,), (0, 2)), ((2, 1), (1, 1))])
def test_repeat(dtype, shape, sizes):
    check(lambda lib, x: x.repeat(*sizes), shape, dtype=dtype)
    check(lambda lib, x: x.repeat(sizes), shape, dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("shape,dims", [((2, 3), (2,)), ((2, 3), (2, 1, 2)), ((3,), (2, 2)),
                                        ((), (3,))])
def test_tile(shape, dims):
    check(lambda lib, x: lib.tile(x, dims), shape)
    check(lambda lib, x: x.tile(dims), shape)


def test_repeat_errors():
    check_error(lambda lib: lib.ones(2, 3).repeat(2), RuntimeError,
                r"^Number of dimensions of repeat dims can not be smaller than number of "
                r"dimensions of tensor")


@pytest.mark.parametrize("repeats,dim", [(2, None), (3, 0), (2, -1), ("tensor", 0),
                                         ("tensor1", 1), ("zero", 0)])
def test_repeat_interleave(repeats, dim):
    def fn(lib, x):
        r = {"tensor": lib.tensor([1, 0, 2]), "tensor1": lib.tensor([2]),
             "zero": lib.tensor([0, 0, 0])}.get(repeats, repeats)
        return lib.repeat_interleave(x, r, dim)
    check(fn, (3, 3))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1, 0, 3])), grad=False)
    check(lambda lib, x: x.repeat_interleave(2), ())


def test_repeat_interleave_errors():
    check_error(lambda lib: lib.ones(3).repeat_interleave(lib.tensor([1, 2]), 0), RuntimeError,
                r"^repeats must have the same size as input along dim")
    check_error(lambda lib: lib.ones(3).repeat_interleave(lib.tensor([1, -2, 1]), 0),
                RuntimeError, r"^repeats can not be negative")


# ---------------------------------------------------------------- diagonals, triangles
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", [(), (1,), (-1,), (0, 1, 2), (1, -1, 0), (5,), (0, 2, 0)])
def test_diagonal(dtype, args):
    check(lambda lib, x: x.diagonal(*args), (3, 4, 5), dtype=dtype, non_contiguous=True)
    check(lambda lib, x: lib.diagonal(x, *args) * 2, (3, 4, 5), dtype=dtype)


def test_diagonal_is_a_writable_view():
    for lib in (torch, ember):
        x = lib.zeros(3, 3)
        d = x.diagonal()
        d.fill_(1) if lib is torch else d.__setitem__(Ellipsis, 1.0)
        assert x.sum().item() == 3 and x._version == 1
    check_error(lambda lib: lib.ones(2, 3).diagonal(0, 0, 0), RuntimeError,
                r"^diagonal dimensions cannot be identical 0, 0")


@pytest.mark.parametrize("args", [(), (1,), (-2,), (0, 0, 2), (1, -1, 0), (0, 1, 2)])
def test_diag_embed(args):
    check(lambda lib, x: lib.diag_embed(x, *args), (2, 3))
    if len(args) < 2 or max(args[1:]) < 2:
        check(lambda lib, x: x.diag_embed(*args), (3,), dtype="float64")


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (0, 3)])
def test_tril_triu(op, k, shape):
    check(lambda lib, x: getattr(lib, op)(x, k), shape, non_contiguous=True)
    check(lambda lib, x: getattr(x, op)(diagonal=k), shape, dtype="float64")
    check(lambda lib, x: getattr(x * 1, op + "_")(k), shape)


def test_tril_error():
    check_error(lambda lib: lib.tril(lib.ones(3)), RuntimeError,
                r"^tril: input tensor must have at least 2 dimensions")


# ---------------------------------------------------------------- strided views
@pytest.mark.parametrize("args", [((2, 2), (1, 2)), ((3,), (2,), 1), ((2, 2), (0, 1)),
                                  ((4, 2), (1, 1)), ((0,), (1,))])
def test_as_strided(args):
    out = check(lambda lib, x: x.as_strided(*args), (2, 3))
    check(lambda lib, x: lib.as_strided(x[1:], *args[:2]) * 2, (3, 3), dtype="float64")
    assert out._base is not None


def test_as_strided_error():
    check_error(lambda lib: lib.ones(2, 3).as_strided((10,), (1,)), RuntimeError,
                r"^setStorage: sizes \[10\], strides \[1\], storage offset 0, and itemsize 4 "
                r"requiring a storage size of 40 are out of bounds for storage of size 24")


@pytest.mark.parametrize("args", [(0, 2, 1), (1, 2, 2), (-1, 3, 1), (1, 1, 3), (0, 3, 3)])
def test_unfold(args):
    out = check(lambda lib, x: x.unfold(*args), (3, 4))
    check(lambda lib, x: (x * 1).unfold(*args), (3, 4), dtype="float64", non_contiguous=True)
    assert out._base is not None
    check(lambda lib, x: x.unfold(0, 1, 1), ())


def test_unfold_errors():
    check_error(lambda lib: lib.ones(2, 3).unfold(1, 5, 1), RuntimeError,
                r"^maximum size for tensor at dimension 1 is 3 but size is 5")
    check_error(lambda lib: lib.ones(2, 3).unfold(1, 2, 0), RuntimeError,
                r"^step is 0 but must be > 0")


# ---------------------------------------------------------------- broadcasting
@pytest.mark.parametrize("shapes", [((3, 1), (4,)), ((2, 1, 3), (5, 1), ()), ((0, 1), (3,))])
def test_broadcast_tensors_and_shapes(shapes):
    check(lambda lib, *xs: lib.broadcast_tensors(*xs), *shapes)
    assert ember.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)
    assert isinstance(ember.broadcast_shapes(*shapes), ember.Size)


def test_broadcast_to_and_errors():
    check(lambda lib, x: lib.broadcast_to(x, (2, 3, 4)), (3, 1))
    check(lambda lib, x: x.broadcast_to((2, -1)), (3,))
    assert ember.broadcast_shapes(2, (3, 1)) == torch.broadcast_shapes(2, (3, 1))
    check_error(lambda lib: lib.broadcast_shapes((2, 3), (4,)), RuntimeError,
                r"^Attempting to broadcast a dimension of length 4 at -1! Mismatching argument "
                r"at index 1 had \(4,\); but expected shape should be broadcastable to \[2, 3\]")


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [((3,), (4,)), ((2,), (3,), (4,)), ((3,),), ((), (2,))])
def test_meshgrid(indexing, shapes):
    check(lambda lib, *xs: lib.meshgrid(*xs, indexing=indexing), *shapes)
    check(lambda lib, *xs: lib.meshgrid(list(xs), indexing=indexing), *shapes)


def test_meshgrid_warns_without_indexing():
    with pytest.warns(UserWarning, match="torch.meshgrid: in an upcoming release"):
        ember.meshgrid(ember.ones(2), ember.ones(3))


# ---------------------------------------------------------------- existing view ops
def test_squeeze_tuple_dims():
    check(lambda lib, x: x.squeeze((0, 2)), (1, 3, 1, 1))
    check(lambda lib, x: lib.squeeze(x, (-1, 1)), (1, 3, 1, 1))
    check(lambda lib, x: x.squeeze(()), (1, 3))


def test_view_reshape_errors():
    check_error(lambda lib: lib.ones(2, 3).view(-1, 4), RuntimeError,
                r"^shape '\[-1, 4\]' is invalid for input of size 6")
    check_error(lambda lib: lib.ones(2, 3).view(3, -1, -1), RuntimeError,
                r"^only one dimension can be inferred")
    check_error(lambda lib: lib.ones(2, 3).t().view(6), RuntimeError,
                r"^view size is not compatible with input tensor's size and stride")
    check_error(lambda lib: lib.ones(2, 3).reshape(4), RuntimeError,
                r"^shape '\[4\]' is invalid for input of size 6")


# ---------------------------------------------------------------- memory sharing
@pytest.mark.parametrize("make", [
    lambda x: x.narrow(1, 1, 2), lambda x: x.select(0, 1), lambda x: x.diagonal(),
    lambda x: x.unfold(1, 2, 1), lambda x: x.as_strided((2,), (4,), 1),
    lambda x: x.movedim(0, 1), lambda x: x.split(1)[1], lambda x: x.unbind(1)[2],
    lambda x: x.chunk(2, 1)[0], lambda x: ember.tensor_split(x, 2)[0] if isinstance(
        x, ember.Tensor) else torch.tensor_split(x, 2)[0],
    lambda x: x.broadcast_to((2, 3, 4)),
])
def test_views_share_memory_and_version(make):
    for lib in (torch, ember):
        x = lib.arange(12.).reshape(3, 4)
        v = make(x)
        before = x._version
        x.add_(1)
        assert v._version == before + 1
        assert np.isin(v.numpy(), x.numpy()).all()
        assert v.data_ptr() >= x.data_ptr()


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.cat([x, x * 2], 1), lambda lib, x: x.diagonal(1),
    lambda lib, x: x.unfold(0, 2, 1), lambda lib, x: x.repeat(2, 1),
    lambda lib, x: lib.stack(x.split(1), 2), lambda lib, x: x.flip(0).roll(1, 1).tril(),
    lambda lib, x: x.as_strided((2, 2), (1, 3)), lambda lib, x: lib.diag_embed(x),
])
def test_double_backward(fn):
    def grad_of_grad(lib, x):
        g, = lib.autograd.grad((fn(lib, x) ** 3).sum(), x, create_graph=True)
        return g
    check(grad_of_grad, (3, 3), dtype="float64")


# ---------------------------------------------------------------- views and copies
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 3), (2, 1, 4)])
@pytest.mark.parametrize("nc", [False, True])
def test_ravel(dtype, shape, nc):
    check(lambda lib, x: lib.ravel(x * 1) + x.ravel(), shape, dtype=dtype, non_contiguous=nc)


def test_ravel_is_a_view_when_contiguous():
    x = ember.zeros(2, 3)
    x.ravel()[4] = 7
    assert x[1, 1].item() == 7
    check(lambda lib, x: (x.ravel().grad_fn.name(), x.t().ravel().grad_fn.name()), (2, 3))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (0, 2)])
def test_adjoint(dtype, shape):
    check(lambda lib, x: (lib.adjoint(x), x.adjoint() * 2), shape, dtype=dtype)


def test_adjoint_complex_and_errors():
    check(lambda lib, x: lib.adjoint(x).resolve_conj(), np.array([[1 + 2j, 3 - 1j], [0.5j, 2]]),
          grad=False)
    check_error(lambda lib: lib.adjoint(lib.ones(3)), RuntimeError,
                r"^tensor.adjoint\(\) is only supported on matrices or batches of matrices. "
                r"Got 1-D tensor.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", [(0, 1, 2), (1, -3, 2), (-1, 0, 0)])
def test_narrow_copy(dtype, args):
    out = check(lambda lib, x: (lib.narrow_copy(x, *args), x.narrow_copy(*args)), (3, 4),
                dtype=dtype, non_contiguous=True)
    assert out[0]._base is None


def test_narrow_copy_grad_fn_and_errors():
    check(lambda lib, x: lib.narrow_copy(x, 0, 1, 1).grad_fn.name(), (3, 4))
    check_error(lambda lib: lib.narrow_copy(lib.ones(3), 0, 2, 2), RuntimeError,
                r"^start \(2\) \+ length \(2\) exceeds dimension size \(3\)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sizes, dim", [([1, 2], 0), ((3, 0, 1), -1), ([4], 1)])
def test_split_with_sizes(dtype, sizes, dim):
    shape = (3, 4) if dim != 0 else (3, 2)
    check(lambda lib, x: lib.split_with_sizes(x, sizes, dim) if dim != 0
          else x.split_with_sizes(sizes), shape, dtype=dtype)


def test_split_with_sizes_errors_and_name():
    check(lambda lib, x: x.split_with_sizes([1, 1])[0].grad_fn.name(), (2, 3))
    check_error(lambda lib: lib.ones(2, 3).split_with_sizes([1, 3]), RuntimeError,
                r"^split_with_sizes expects split_sizes to sum exactly to 2")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3,), (2, 3), (), (0,)])
@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diagflat(dtype, shape, offset):
    check(lambda lib, x: (lib.diagflat(x, offset), x.diagflat(offset=offset)), shape,
          dtype=dtype)


def test_diagflat_integers_and_name():
    check(lambda lib, x: lib.diagflat(x, -1), np.arange(4), grad=False)
    check(lambda lib, x: lib.diagflat(x).grad_fn.name(), (3,))


# ---------------------------------------------------------------- in-place shape changes
def _in_place_result(op):
    def run(lib, x):
        y = x * 1
        returned = op(y)
        return returned is y, y, y.shape, y.grad_fn.name(), y._version
    return run


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", [
    lambda x: x.unsqueeze_(0),
    lambda x: x.unsqueeze_(-1),
    lambda x: x.squeeze_(),
    lambda x: x.squeeze_(1),
    lambda x: x.squeeze_(-1),
    lambda x: x.squeeze_((1, 3)),
])
def test_in_place_squeeze_unsqueeze(dtype, op):
    check(_in_place_result(op), (2, 1, 3, 1), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op, shape", [
    (lambda x: x.t_(), (3, 4)),
    (lambda x: x.transpose_(0, 2), (2, 3, 4)),
    (lambda x: x.transpose_(1, -1), (2, 3, 4)),
    (lambda x: x.swapaxes_(0, 1), (2, 3, 4)),
    (lambda x: x.swapdims_(-1, 0), (2, 3, 4)),
])
def test_in_place_transposes(dtype, op, shape):
    check(_in_place_result(op), shape, dtype=dtype)
    check(lambda lib, x: (op(x).stride(), x.is_contiguous()), shape, dtype=dtype, grad=False)


@pytest.mark.parametrize("op", [lambda x: x.t_(), lambda x: x.squeeze_(0)])
@pytest.mark.parametrize("shape", [(3,), (), (1, 2)])
def test_in_place_shape_ops_small(op, shape):
    check(lambda lib, x: (op(x), x.shape, x._version), shape, grad=False)


def test_in_place_shape_op_keeps_memory_and_views():
    for lib in (torch, ember):
        base = lib.zeros(2, 3)
        view = base[1:]
        view.unsqueeze_(0)
        view.t_() if view.ndim == 2 else view.transpose_(0, 2)
        view[0, 0, 0] = 5.0
        assert base[1, 0].item() == 5.0
        assert tuple(view.shape) == (3, 1, 1)
        assert view._base is base


def test_in_place_shape_op_gradient_chain():
    def run(lib, x):
        y = x * 2
        y.unsqueeze_(0).t_() if y.ndim == 1 else y.t_()
        return (y * y).sum()
    check(run, (3, 2), dtype="float64")


def test_in_place_shape_op_errors():
    check_error(lambda lib: lib.ones(2, requires_grad=True).unsqueeze_(0), RuntimeError,
                r"^a leaf Variable that requires grad is being used in an in-place operation.")
    check_error(lambda lib: lib.ones(2, 3, requires_grad=True)[0].unsqueeze_(0), RuntimeError,
                r"^a view of a leaf Variable that requires grad is being used in an in-place")
    check_error(lambda lib: lib.ones(2, 3, 4).t_(), RuntimeError,
                r"^t_\(\) expects a tensor with <= 2 dimensions, but self is 3D")
    check_error(lambda lib: lib.ones(2, 3).unsqueeze_(3), IndexError, r"^Dimension out of range")
    check_error(lambda lib: lib.ones(2, 3).transpose_(0, 2), IndexError,
                r"^Dimension out of range")


def test_in_place_shape_op_under_no_grad_on_leaf():
    for lib in (torch, ember):
        a = lib.ones(2, 3, requires_grad=True)
        with lib.no_grad():
            a.unsqueeze_(0)
        assert tuple(a.shape) == (1, 2, 3) and a.is_leaf and a._version == 1


def test_in_place_shape_op_invalidates_saved_tensor():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 1
        z = y * y
        y.unsqueeze_(0)
        z.sum().backward()
    check_error(run, RuntimeError, r"modified by an inplace operation")


def test_out_of_place_squeeze_and_t_names():
    check(lambda lib, x: [x.squeeze().grad_fn.name(), x.squeeze(1).grad_fn.name(),
                          x.squeeze((1, 3)).grad_fn.name(), x.squeeze((0, 2)).t().grad_fn.name()],
          (1, 2, 1, 3)[:3] + (1,))


# ---------------------------------------------------------------- int-list arguments
# Ops whose sizes/dims torch takes as separate ints, one sequence, or by keyword.
INT_LIST_FORMS = [
    lambda lib, x: lib.flip(x, dims=(0,)), lambda lib, x: x.flip(dims=[0, 1]),
    lambda lib, x: lib.flip(input=x, dims=(1,)), lambda lib, x: x.flip(0, 2),
    lambda lib, x: x.permute(dims=(2, 0, 1)), lambda lib, x: lib.permute(x, dims=(2, 0, 1)),
    lambda lib, x: x.view(size=(6, 4)), lambda lib, x: x.view(-1, 4),
    lambda lib, x: x.reshape(shape=(6, 4)), lambda lib, x: lib.reshape(input=x, shape=(4, 6)),
    lambda lib, x: x.expand(size=(2, 2, 3, 4)), lambda lib, x: x.expand((2, 2, 3, 4), implicit=False),
    lambda lib, x: x.repeat(repeats=(1, 2, 1)), lambda lib, x: x.tile(dims=(2,)),
    lambda lib, x: lib.tile(x, dims=(2, 1)), lambda lib, x: x.tile(2, 1),
    lambda lib, x: x.sum_to_size(size=(1, 3, 1)), lambda lib, x: x.sum_to_size(3, 1),
]


@pytest.mark.parametrize("form", INT_LIST_FORMS)
def test_int_list_keyword_forms(form):
    check(lambda lib, x: form(lib, x) * 1, (2, 3, 4))


@pytest.mark.parametrize("call", [lambda x: x.flip(), lambda x: x.permute(), lambda x: x.repeat(),
                                  lambda x: x.reshape()])
def test_int_list_missing(call):
    check_error(lambda lib: call(lib.ones(2, 3)), TypeError, r"missing 1 required positional")
    check_error(lambda lib: lib.ones(2, 3).view(), TypeError,
                r"view\(\) received an invalid combination of arguments - got \(\)")


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "int16", "uint8"])
def test_view_dtype_reinterprets_bytes(dtype):
    def view(lib, x):
        out = x.view(getattr(lib, dtype))
        twice = x.view(dtype=getattr(lib, dtype))
        return [out, twice, out.requires_grad, out.grad_fn is None]
    check(view, np.arange(24, dtype=np.float32).reshape(3, 8), grad=False)


@pytest.mark.parametrize("make, dtype, match", [
    (lambda lib: lib.ones(2, 3), "float64", r"self.size\(-1\) must be divisible by 2 to view "
                                             r"Float as Double"),
    (lambda lib: lib.tensor(1.0), "float64", r"self.dim\(\) cannot be 0 to view Float as Double"),
    (lambda lib: lib.ones(4, 4).t(), "float64", r"self.stride\(-1\) must be 1 to view Float"),
])
def test_view_dtype_errors(make, dtype, match):
    check_error(lambda lib: make(lib).view(getattr(lib, dtype)), RuntimeError, match)


# ---------------------------------------------------------------- as_strided_scatter
AS_STRIDED_SCATTER = [
    ((3, 3), (2, 2), (1, 2), 0), ((3, 3), (2, 2), (1, 2), 1), ((5,), (3,), (1,), 2),
    ((1,), (), (), 0), ((4, 2), (3,), (2,), 1), ((2, 3), (2, 0), (1, 1), 0),
]


@pytest.mark.parametrize("shape, size, stride, offset", AS_STRIDED_SCATTER)
def test_as_strided_scatter(shape, size, stride, offset):
    """Values and src's gradient against torch; input's gradient by gradcheck, because
    torch's own is known to be wrong (its OpInfo marks test_fn_grad as an expected failure)."""
    def scatter(lib, x, src):
        return lib.as_strided_scatter(x, src, size, stride, storage_offset=offset)
    check(scatter, shape, size, grad_inputs=[1])
    x = ember.randn(shape, dtype=ember.float64, requires_grad=True)
    src = ember.randn(size, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b: scatter(ember, a, b), (x, src))


def test_as_strided_scatter_memory_order_and_errors():
    """On a transposed input the strides count the copy's memory, which keeps the layout."""
    check(lambda lib, x, src: lib.as_strided_scatter(x.t(), src, (2,), (1,), 0), (3, 2), (2,),
          grad=False)
    check(lambda lib, x, src: type(lib.as_strided_scatter(x * 1, src, (2,), (1,)).grad_fn)
          .__name__, (3,), (2,), grad=False)
    check_error(lambda lib: lib.as_strided_scatter(lib.zeros(3), lib.ones(3), (2,), (1,), 0),
                RuntimeError, r"expected src to have a size equal to the slice of self")
    check_error(lambda lib: lib.as_strided_scatter(lib.zeros(3), lib.ones(2), (2,), (1,), 5),
                RuntimeError, r"setStorage: sizes \[2\], strides \[1\], storage offset 5, and "
                              r"itemsize 4 requiring a storage size of 28 are out of bounds")
    check_error(lambda lib: lib.as_strided_scatter(lib.zeros(3), lib.ones(2), (2,), (0,)),
                RuntimeError, r"unsupported operation: more than one element of the written-to "
                              r"tensor refers to a single memory location")


@pytest.mark.parametrize("make,sizes,match", [
    ("float32", (1,), r"^expand\(torch.FloatTensor\{\[2, 3\]\}, size=\[1\]\): the number of "
                      r"sizes provided \(1\) must be greater or equal"),
    ("float64", (4,), r"^expand\(torch.DoubleTensor\{\[2, 3\]\}, size=\[4\]\)"),
    ("float32", (2, 3, 4), r"^The expanded size of the tensor \(4\) must match the existing "
                           r"size \(3\) at non-singleton dimension 2"),
    ("float32", (-1, -1, 3), r"^The expanded size of the tensor \(-1\) isn't allowed in a "
                             r"leading, non-existing dimension 0"),
])
def test_expand_errors(make, sizes, match):
    """The sizes are checked from the last dim, as torch does (the message for too few
    sizes raised a TypeError while it was formatted)."""
    check_error(lambda lib: lib.ones(2, 3, dtype=getattr(lib, make)).expand(*sizes),
                RuntimeError, match)


@pytest.mark.parametrize("call", [
    lambda lib: lib.repeat_interleave(lib.tensor([1.5, 2.0])),
    lambda lib: lib.tensor([1, 2]).repeat_interleave(lib.tensor([1.0, 2.0])),
    lambda lib: lib.repeat_interleave(lib.tensor([True, False])),
])
def test_repeat_interleave_counts_must_be_integers(call):
    check_error(call, NotImplementedError, "^\"repeat_interleave_cpu\" not implemented for '")


def test_expanded_tensor_writes_as_torch():
    """transformers' BERT init does position_ids.copy_(...) on an arange(n).expand((1, -1))
    buffer: an expand that repeats nothing is writable; one that repeats elements takes
    fill_ and indexed writes but refuses in-place math and copy_."""
    def no_repeat(lib):
        x = lib.arange(5).expand((1, -1))
        x.copy_(lib.zeros(1, 5, dtype=lib.long))
        x.add_(2)
        return x.tolist(), x.stride()
    assert no_repeat(ember) == no_repeat(torch)

    def repeated(lib):
        base = lib.arange(3.0)
        y = base.expand(2, -1)
        y.fill_(2.0)
        y[0, 1] = 5.0
        return base.tolist(), y.tolist(), y.stride()
    assert repeated(ember) == repeated(torch)
    message = r"^unsupported operation: more than one element of the written-to tensor refers"
    for write in (lambda y, lib: y.copy_(lib.zeros(2, 3)), lambda y, lib: y.add_(1),
                  lambda y, lib: y.mul_(2), lambda y, lib: lib.add(y, 1, out=y)):
        check_error(lambda lib: write(lib.arange(3.0).expand(2, -1), lib), RuntimeError, message)
