"""Shape and indexing ops of a MaskedTensor (ember/masked/maskedtensor/passthrough.py)
against torch: the same op on data and mask."""
import numpy as np
import pytest

DATA = np.arange(12.0, dtype=np.float32).reshape(3, 4)
MASK = np.arange(12).reshape(3, 4) % 3 != 1


def mt(lib, **kwargs):
    return lib.masked.masked_tensor(lib.tensor(DATA), lib.tensor(MASK), **kwargs)


@pytest.mark.parametrize("call", [
    lambda m: m[0], lambda m: m[:, 1:3], lambda m: m[1, 2], lambda m: m.select(1, 2),
    lambda m: m.transpose(0, 1), lambda m: m.t(), lambda m: m.view(2, 6),
    lambda m: m.reshape(4, 3), lambda m: m.unsqueeze(1), lambda m: m[1:2].expand(3, 4),
    lambda m: m.unfold(1, 2, 2), lambda m: m.t().contiguous(),
])
def test_passthrough_ops(same_masked, call):
    same_masked(lambda lib: call(mt(lib)))


def test_gradient_through_a_view(same_masked):
    # (torch's grad is masked out beyond the view; ember's grad has the leaf's mask)
    def run(lib):
        leaf = mt(lib, requires_grad=True)
        (leaf.t()[1:] * 2).sum().backward()
        return leaf.grad.get_data()
    same_masked(run)
