"""torch.masked.logaddexp (ember/masked/_binary.py) against torch: a mask per operand."""
import numpy as np
import pytest

from oracle import check

# ember's logaddexp backward computes -inf - -inf where both operands are masked out, and
# NumPy says so; torch is silent.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

INPUT_MASK = np.array([[True, False, True], [False, False, True]])
OTHER_MASK = np.array([[True, True, False], [False, True, True]])


def test_logaddexp_with_a_mask_for_each_operand():
    check(lambda lib, x, y: lib.masked.logaddexp(x, y, input_mask=lib.tensor(INPUT_MASK),
                                                 other_mask=lib.tensor(OTHER_MASK)), (2, 3), (2, 3))


def test_logaddexp_dtype_and_missing_masks():
    check(lambda lib, x, y: lib.masked.logaddexp(x, y, dtype=lib.float64,
                                                 input_mask=lib.tensor(INPUT_MASK)), (2, 3), (3,))
    check(lambda lib, x, y: lib.masked.logaddexp(x, y), (2, 3), (2, 3))
