"""torch.masked's normalizations (ember/masked/_normalizations.py) against torch: softmax,
log_softmax, softmin, normalize, cumsum and cumprod along each dim, values and gradients,
including a fully masked-out row (NaN for the softmaxes, zeros for normalize)."""
import numpy as np
import pytest

from oracle import check, same

MASK = np.array([[True, False, True, True], [False, False, False, False],
                 [True, True, True, True]])


def mask(lib, array=MASK):
    return lib.tensor(array)


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_normalization_values_and_gradients(op, dim):
    check(lambda lib, x: getattr(lib.masked, op)(x, dim, mask=mask(lib)), (3, 4))


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"])
def test_dtype_and_a_broadcast_mask(op):
    check(lambda lib, x: getattr(lib.masked, op)(x, 1, dtype=lib.float64, mask=mask(lib)[0]),
          (3, 4))
    check(lambda lib, x: getattr(lib.masked, op)(x, 1), (3, 4))


@pytest.mark.parametrize("ord", [2.0, 1, float("inf")])
@pytest.mark.parametrize("dim", [0, 1])
def test_normalize(ord, dim):
    check(lambda lib, x: lib.masked.normalize(x, ord, dim, mask=mask(lib)), (3, 4))


def test_normalize_eps_and_integer_cumsum():
    check(lambda lib, x: lib.masked.normalize(x * 1e-3, 2.0, 1, eps=0.5, mask=mask(lib)), (3, 4))
    same(lambda lib: lib.masked.cumsum(lib.tensor(np.arange(12).reshape(3, 4),
                                                  dtype=lib.int32), 1, mask=mask(lib)))
