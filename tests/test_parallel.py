"""ember/_parallel.py: pieces of a pass on the BLAS threads, same results as in order."""
import threading

import numpy as np
import pytest

import ember
from ember._cpu import parallel as _parallel
from ember._cpu.parallel import parallel_for, split

BIG = 1 << 20


@pytest.fixture
def two_threads():
    before = ember.get_num_threads()
    ember.set_num_threads(2)
    if _parallel.threads() < 2:
        pytest.skip("NumPy's BLAS here cannot run Python on its threads")
    yield
    ember.set_num_threads(before)


def test_split():
    assert split(10, 3) == [slice(0, 3), slice(3, 6), slice(6, 10)]
    assert split(2, 5) == [slice(0, 1), slice(1, 2)]
    assert split(0, 2) == [slice(0, 0)]


def test_pieces_run_on_two_threads(two_threads):
    seen = set()
    barrier = threading.Barrier(2, timeout=10)

    def task(piece):
        seen.add(threading.get_ident())
        barrier.wait()       # only returns if both pieces run at the same time

    parallel_for([0, 1], task, BIG)
    assert len(seen) == 2


@pytest.mark.parametrize("parts", [1, 2, 3, 8])
def test_results_equal_the_serial_pass(two_threads, parts):
    x = np.random.default_rng(0).standard_normal((64, 34, 34, 8)).astype(np.float32)
    out = np.empty((64, 9, 32, 32, 8), np.float32)

    def im2col(part):
        for k in range(9):
            out[part, k] = x[part, k // 3:k // 3 + 32, k % 3:k % 3 + 32]

    parallel_for(split(64, parts), im2col, out.size)
    expected = np.stack([x[:, k // 3:k // 3 + 32, k % 3:k % 3 + 32] for k in range(9)], 1)
    np.testing.assert_array_equal(out, expected)


def test_errors_reach_the_caller(two_threads):
    def task(piece):
        if piece == 1:
            raise ValueError("piece failed")
    with pytest.raises(ValueError, match="piece failed"):
        parallel_for([0, 1, 2], task, BIG)
    assert ember.get_num_threads() == 2           # the BLAS thread count is restored


def test_blas_and_nested_regions_inside_pieces(two_threads):
    a = np.random.default_rng(1).standard_normal((300, 300))
    results = [None] * 4

    def task(i):
        inner = [None] * 2
        parallel_for([0, 1], lambda j: inner.__setitem__(j, a @ a), BIG)
        results[i] = inner[0] + inner[1]
    parallel_for(range(4), task, BIG)
    for r in results:
        # A GEMM inside a piece runs on one BLAS thread, outside on two: the summation
        # order differs, so entries near zero differ by a few ulps of the row's scale.
        np.testing.assert_allclose(r, 2 * (a @ a), rtol=1e-12, atol=1e-12 * np.abs(a @ a).max())


def test_small_passes_and_one_thread_run_in_the_calling_thread(two_threads):
    caller = threading.get_ident()
    seen = []
    parallel_for([0, 1], lambda p: seen.append(threading.get_ident()), 10)
    ember.set_num_threads(1)
    parallel_for([0, 1], lambda p: seen.append(threading.get_ident()), BIG)
    assert seen == [caller] * 4


def test_regions_from_two_python_threads(two_threads):
    sums = []

    def worker():
        out = np.zeros(8)
        for _ in range(20):
            parallel_for(range(8), lambda i: out.__setitem__(i, out[i] + 1), BIG)
        sums.append(out.sum())
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sums == [160.0, 160.0]


class _TransposingDataset:
    """Each item runs a parallel region (a large transpose) inside a DataLoader worker."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        a = np.arange(2000 * 600, dtype=np.float32).reshape(2000, 600) + i
        return ember.tensor(a).t().contiguous().sum()


def test_regions_in_forked_dataloader_workers(two_threads):
    # the parent's BLAS workers have run Python before the fork
    parallel_for([0, 1], lambda i: None, BIG)
    loader = ember.utils.data.DataLoader(_TransposingDataset(), batch_size=2, num_workers=2,
                                         timeout=60)
    sums = [float(x) for batch in loader for x in batch]
    base = float(np.arange(2000 * 600, dtype=np.float64).sum())
    assert sums == pytest.approx([base + i * 2000 * 600 for i in range(4)], rel=1e-6)


def _training_results():
    """Gradients of a Winograd convolution, a row-blocked cross-entropy and an Adam
    update in slices, as arrays."""
    rng = np.random.default_rng(3)
    x = ember.tensor(rng.standard_normal((8, 16, 12, 12), dtype=np.float32),
                     requires_grad=True)
    w = ember.tensor(rng.standard_normal((16, 16, 3, 3), dtype=np.float32),
                     requires_grad=True)
    logits = ember.tensor(rng.standard_normal((300, 400), dtype=np.float32),
                          requires_grad=True)
    labels = ember.tensor(rng.integers(0, 400, 300))
    loss = ember.nn.functional.conv2d(x, w, padding=1).square().mean() + \
        ember.nn.functional.cross_entropy(logits, labels)
    loss.backward()
    big = ember.nn.Parameter(ember.tensor(rng.standard_normal((600, 500), dtype=np.float32)))
    big.grad = ember.tensor(rng.standard_normal((600, 500), dtype=np.float32))
    ember.optim.Adam([big], lr=0.1).step()
    return [t.numpy().copy() for t in (x.grad, w.grad, logits.grad, big.detach())]


def test_results_do_not_depend_on_the_thread_count(two_threads):
    on_two = _training_results()
    ember.set_num_threads(1)
    on_one = _training_results()
    for a, b in zip(on_two, on_one):
        np.testing.assert_array_equal(a, b)
