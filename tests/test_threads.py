"""ember.set_num_threads / get_num_threads against torch's rules."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error


@pytest.fixture
def restore_threads():
    before = ember.get_num_threads()
    yield
    ember.set_num_threads(before)


def test_set_then_get(restore_threads):
    ember.set_num_threads(1)
    assert ember.get_num_threads() == 1
    a = np.random.default_rng(0).standard_normal((300, 300))
    single = ember.tensor(a) @ ember.tensor(a)
    ember.set_num_threads(2)
    assert ember.get_num_threads() == 2
    np.testing.assert_allclose((ember.tensor(a) @ ember.tensor(a)).numpy(), single.numpy(),
                               rtol=1e-5)  # the split of the sums may round differently


def test_default_is_positive():
    assert ember.get_num_threads() >= 1
    assert ember.get_num_interop_threads() >= 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_errors_match_torch(bad):
    err = check_error(lambda lib: lib.set_num_threads(bad), RuntimeError)
    with pytest.raises(RuntimeError) as torch_err:
        torch.set_num_threads(bad)
    assert str(err) == str(torch_err.value)


def test_interop_threads():
    # torch refuses any change once its inter-op pool has started, which a test process
    # cannot rule out; ember keeps the number and checks it like set_num_threads.
    before = ember.get_num_interop_threads()
    ember.set_num_interop_threads(3)
    assert ember.get_num_interop_threads() == 3
    ember.set_num_interop_threads(before)
    with pytest.raises(RuntimeError, match="expects a positive integer"):
        ember.set_num_interop_threads(0)


def test_no_keyword_argument():
    with pytest.raises(TypeError):
        ember.set_num_threads(count=1)
    with pytest.raises(TypeError):
        torch.set_num_threads(int=1)
