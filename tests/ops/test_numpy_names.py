"""torch accepts NumPy's keyword names axis= (for dim=) and keepdims= (for keepdim=) in every
op and method with those parameters (transformers' beam search calls
torch.all(x, axis=-1, keepdims=True))."""
import numpy as np
import pytest

from oracle import check, check_error

CASES = [
    lambda L, x: L.sum(x, axis=1),
    lambda L, x: x.sum(axis=0, keepdims=True),
    lambda L, x: L.all(x > 0, axis=-1, keepdims=True),
    lambda L, x: (x > 0).any(axis=0),
    lambda L, x: x.mean(axis=1),
    lambda L, x: x.max(axis=1).values,
    lambda L, x: x.argmax(axis=1),
    lambda L, x: L.cat([x, x], axis=0),
    lambda L, x: L.stack([x, x], axis=1),
    lambda L, x: L.softmax(x, axis=1),
    lambda L, x: x.cumsum(axis=1),
    lambda L, x: x.std(axis=1),
    lambda L, x: x.amax(axis=1, keepdims=True),
    lambda L, x: x.logsumexp(axis=1),
    lambda L, x: x.sort(axis=1).values,
    lambda L, x: x.unsqueeze(axis=0),
    lambda L, x: L.gather(x, axis=1, index=L.zeros(2, 1, dtype=L.long)),
]


@pytest.mark.parametrize("fn", CASES)
def test_numpy_keyword_names(fn):
    check(fn, (2, 3))


def test_both_spellings_at_once_are_refused():
    check_error(lambda L: L.sum(L.ones(2, 3), dim=0, axis=1), TypeError,
                r"^sum\(\) got an unexpected keyword argument 'axis'")
