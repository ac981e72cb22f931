"""Reusable temporaries (ember/_cpu/scratch.py) and the convolution's use of them."""
import pickle
import threading

import numpy as np
import pytest

from ember._cpu.scratch import ThreadScratch


def test_slot_reuses_memory_and_grows():
    s = ThreadScratch()
    with s.lend((4, 5), np.float32) as a:
        pass
    with s.lend((2, 3), np.float32) as b:
        assert np.shares_memory(a, b) and b.shape == (2, 3) and b.dtype == np.float32
    with s.lend((10, 10), np.float32) as c:            # larger: a new buffer
        assert c.shape == (10, 10) and not np.shares_memory(a, c)
        with s.lend((2,), np.float32, slot=1) as d:
            assert not np.shares_memory(d, c)
    with s.lend((3,), np.float64) as e:
        assert e.dtype == np.float64


def test_a_lent_slot_cannot_be_lent_again():
    s = ThreadScratch()
    with s.lend((4,), np.float32):
        with pytest.raises(RuntimeError, match="scratch slot 0 is still lent out"):
            with s.lend((4,), np.float32):
                pass
    with s.lend((4,), np.float32) as again:         # returned when the block ended
        assert again.shape == (4,)


def test_a_slot_is_returned_when_the_block_raises():
    s = ThreadScratch()
    with pytest.raises(ValueError):
        with s.lend((4,), np.float32, slot=2):
            raise ValueError
    with s.lend((4,), np.float32, slot=2) as buf:
        assert buf.shape == (4,)


def test_pickle_drops_buffers():
    s = ThreadScratch()
    with s.lend((100,), np.float32):
        pass
    assert pickle.loads(pickle.dumps(s))._buffers == {}


def test_threads_get_their_own_scratch():
    shared = ThreadScratch()
    seen = []

    def other():
        with shared.lend((8,), np.float32) as buf:
            seen.append(buf)

    with shared.lend((8,), np.float32) as mine:      # lent here, free in the other thread
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert len(seen) == 1 and not np.shares_memory(seen[0], mine)


def _conv_grads(seed):
    """Output, input gradient and recomputed-column weight gradient of a padded 2-d
    convolution, at the NumPy level where the scratch columns are used."""
    from ember.nn.functional.conv import (Geometry, conv_forward, conv_input_grad,
                                          conv_weight_grad)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 3, 12, 12), dtype=np.float32)
    w = rng.standard_normal((5, 3, 3, 3), dtype=np.float32)
    g = rng.standard_normal((4, 5, 12, 12), dtype=np.float32)
    geo = Geometry((1, 1), (1, 1), ((1, 1), (1, 1)), 1)
    y, _ = conv_forward(x, w, geo, keep_columns=False)
    return (y, conv_input_grad(g, w, geo, x.shape),
            conv_weight_grad(x, g, geo, w.shape, None))


def test_convolutions_in_two_threads_do_not_share_columns():
    expected = {seed: _conv_grads(seed) for seed in range(8)}
    results = {}

    def work(seeds):
        for _ in range(5):
            for seed in seeds:
                results.setdefault(seed, []).append(_conv_grads(seed))

    threads = [threading.Thread(target=work, args=(range(k, 8, 2),)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(8))
    for seed, runs in results.items():
        for run in runs:
            for got, want in zip(run, expected[seed]):
                np.testing.assert_array_equal(got, want)
