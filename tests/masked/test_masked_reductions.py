"""torch.masked's reductions (ember/masked/_reductions.py) against torch: values and
gradients (first and second order) over dims and keepdim, fully masked-out slices (each
reduction's identity, or NaN), integer inputs, dtype=, broadcast masks and errors."""
import numpy as np
import pytest

import ember
from oracle import check, check_error, same

# ember's logsumexp and var backward compute -inf - -inf and 0 * inf on a fully masked-out
# row (whose gradient where() then drops), and NumPy says so; torch is silent.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

# Row 1 is fully masked out; rows 0 and 2 are partly and fully masked in.
MASK = np.array([[True, False, True, True], [False, False, False, False],
                 [True, True, True, True]])
INTS = np.array([[1, -2, 3, 4], [5, 6, 7, 8], [-9, 10, 11, 0]])


def mask(lib, array=MASK):
    return lib.tensor(array)


@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin", "mean", "logsumexp", "norm",
                                "var", "std"])
@pytest.mark.parametrize("dim", [None, 1, 0, -1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_values_and_gradients(op, dim, keepdim):
    check(lambda lib, x: getattr(lib.masked, op)(x, dim=dim, keepdim=keepdim, mask=mask(lib)),
          (3, 4))


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "var"])
def test_reductions_in_float64_and_without_mask(op):
    check(lambda lib, x: getattr(lib.masked, op)(x, 1, mask=mask(lib)), (3, 4), dtype="float64")
    check(lambda lib, x: getattr(lib.masked, op)(x, 1), (3, 4))


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_arg_reductions_keep_the_input_dtype_as_torch_does(op, dim):
    check(lambda lib, x: getattr(lib.masked, op)(x, dim, mask=mask(lib)), (3, 4), grad=False)
    check(lambda lib, x: getattr(lib.masked, op)(x, dim, keepdim=True, dtype=lib.int64,
                                                 mask=mask(lib)), (3, 4), grad=False)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_median_skips_masked_out_elements(dim):
    check(lambda lib, x: lib.masked.median(x, dim, mask=mask(lib)), (3, 4))
    check(lambda lib, x: lib.masked.median(x, dim, keepdim=True, mask=mask(lib)), (3, 4))


@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin", "argmax", "argmin",
                                "logsumexp", "var", "std"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integer_inputs(op, dtype):
    same(lambda lib: getattr(lib.masked, op)(lib.tensor(np.abs(INTS).astype(dtype)), 1,
                                             mask=mask(lib)), atol=1e-6)


def test_integer_median_and_its_error_on_a_fully_masked_row():
    full = np.ones_like(MASK)
    same(lambda lib: lib.masked.median(lib.tensor(INTS), 1, mask=mask(lib, full)))
    check_error(lambda lib: lib.masked.median(lib.tensor(INTS), 1, mask=mask(lib)), ValueError,
                "masked median expects no fully masked out rows")


def test_dtype_argument():
    same(lambda lib: lib.masked.sum(lib.tensor(INTS, dtype=lib.int32), 1, mask=mask(lib),
                                    dtype=lib.float64))
    check(lambda lib, x: lib.masked.mean(x, 1, mask=mask(lib), dtype=lib.float64), (3, 4))
    check(lambda lib, x: lib.masked.amax(x, 0, mask=mask(lib), dtype=lib.float64), (3, 4),
          grad2=False)     # torch has no second derivative of a dtype cast after amax


@pytest.mark.parametrize("ord", [1, 3.0, float("inf"), float("-inf"), 0])
def test_norm_orders(ord):
    check(lambda lib, x: lib.masked.norm(x, ord, 1, mask=mask(lib)), (3, 4), grad=ord != 0)


def test_var_and_std_corrections():
    check(lambda lib, x: lib.masked.var(x, 1, False, mask=mask(lib)), (3, 4))
    check(lambda lib, x: lib.masked.std(x, 1, correction=2, keepdim=True, mask=mask(lib)),
          (3, 4))
    check_error(lambda lib: lib.masked.var(lib.ones(2, 2), 1, True, correction=1),
                AssertionError, "Only one of unbiased and correction may be given")


@pytest.mark.parametrize("mask_array", [MASK[0], MASK[:1], np.array(True)])
def test_a_smaller_mask_broadcasts(mask_array):
    check(lambda lib, x: lib.masked.sum(x, 1, mask=mask(lib, mask_array)), (3, 4))


def test_a_non_bool_mask_is_read_as_bool():
    check(lambda lib, x: lib.masked.amax(x, 1, mask=mask(lib).int()), (3, 4))


def test_zero_dim_input():
    check(lambda lib, x: lib.masked.sum(x, mask=lib.tensor(False)), ())
    check(lambda lib, x: lib.masked.amax(x, mask=lib.tensor(True)), ())


def test_mean_needs_a_floating_dtype():
    check_error(lambda lib: lib.masked.mean(lib.tensor(INTS), 1, mask=mask(lib)), ValueError,
                r"mean\(\): Could not infer output dtype. Input dtype must be either a "
                "floating point or complex dtype")


def test_bad_dims_and_masks():
    check_error(lambda lib: lib.masked.sum(lib.ones(3, 4), 2, mask=mask(lib)), IndexError,
                r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)")
    check_error(lambda lib: lib.masked.sum(lib.ones(3, 4), (1, 1), mask=mask(lib)),
                RuntimeError, "dim=1 appears multiple times in the list of dims")
    check_error(lambda lib: lib.masked.sum(lib.ones(4), 0, mask=mask(lib)), IndexError,
                "_input_mask expected broadcastable mask")


def test_the_identity_of_a_bool_maximum_is_missing_as_in_torch():
    check_error(lambda lib: lib.masked.amax(lib.ones(3, 4, dtype=lib.bool), 1, mask=mask(lib)),
                NotImplementedError, "identity of amax on torch.bool input")


def test_sparse_inputs_are_refused_by_name():
    dense = ember.ones(3, 4)
    with pytest.raises(NotImplementedError, match="torch.masked.sum: torch.sparse_coo input"):
        ember.masked.sum(dense.to_sparse(), 1, mask=ember.tensor(MASK))
