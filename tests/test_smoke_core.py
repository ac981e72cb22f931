"""First checks of the core against torch: arithmetic, broadcasting, matmul, views."""
import pytest

from oracle import check, check_error


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)),
                                    ((), (3,)), ((0, 3), (3,))])
def test_binary_arithmetic(dtype, shapes):
    check(lambda lib, x, y: x + y * 2 - x / (y * y + 1), *shapes, dtype=dtype)


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)),
                                    ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(shapes):
    check(lambda lib, x, y: x @ y, *shapes)


def test_views_and_reductions():
    check(lambda lib, x: x.view(4, 3).t().reshape(-1).sum(), (3, 4))
    check(lambda lib, x: x.permute(1, 0).mean(dim=0, keepdim=True), (3, 4))
    check(lambda lib, x: x.unsqueeze(1).expand(3, 2, 4).sum(dim=(0, -1)), (3, 4))


def test_indexing():
    check(lambda lib, x: x[1:, ::2] * x[0, ::2], (3, 4))
    check(lambda lib, x: x[lib.tensor([0, 2, 0])].exp(), (3, 4))


def test_matmul_shape_error():
    check_error(lambda lib: lib.ones(2, 3) @ lib.ones(2, 3), RuntimeError,
                r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)")
