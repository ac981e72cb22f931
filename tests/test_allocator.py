"""ember keeps freed blocks in the heap: a repeated conv step stops page-faulting."""
import resource

import numpy as np

import ember
import ember._allocator
import ember.nn.functional as F


def test_malloc_tuning_is_applied_on_linux_glibc():
    assert ember._allocator.tune_malloc() is True


def test_repeated_training_steps_reuse_memory_instead_of_faulting():
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal((64, 10, 12, 12), dtype=np.float32),
                     requires_grad=True)
    w = ember.tensor(rng.standard_normal((20, 10, 5, 5), dtype=np.float32), requires_grad=True)
    for _ in range(3):
        F.conv2d(x, w).sum().backward()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        F.conv2d(x, w).sum().backward()
    faults_per_step = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20
    # Without the tuning this step faults ~2,000 pages (a few MB of fresh mappings).
    assert faults_per_step < 200
