"""DistributedDataParallel checks on 2 ranks. Each rank trains on its half of a batch;
rank 0 also trains a plain copy of the model on the whole batch, and the parameters
must agree: averaging the ranks' gradients of the mean loss equals the gradient of the
mean loss on the concatenated batch."""
import os
import sys
import tempfile

import numpy as np

import ember
import ember.distributed as dist
import ember.nn as nn
import ember.nn.functional as F
from ember.nn.parallel import DistributedDataParallel as DDP
from _harness import Skip, run_checks

BATCH = 8  # per rank


class MnistCNN(nn.Module):
    """The classic small MNIST network: two conv blocks and two linear layers."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc1 = nn.Linear(8 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def _batch(step: int):
    """The whole batch of `step` (both ranks' halves), identical on every rank."""
    rng = np.random.default_rng(step)
    images = rng.standard_normal((2 * BATCH, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 2 * BATCH)
    return ember.tensor(images), ember.tensor(labels)


def _half(tensor):
    r = dist.get_rank()
    return tensor[r * BATCH:(r + 1) * BATCH]


def _model(seed: int) -> nn.Module:
    # A different seed on each rank: DDP must start every rank from rank 0's weights.
    ember.manual_seed(seed + dist.get_rank())
    return MnistCNN()


def _same_parameters(a: nn.Module, b: nn.Module, atol=2e-6) -> None:
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), atol=atol, rtol=1e-5,
                                   err_msg=name)


def _train(model, steps: int, full_batch: bool):
    optimizer = ember.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(steps):
        images, labels = _batch(step)
        if not full_batch:
            images, labels = _half(images), _half(labels)
        optimizer.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()


def _reference_of(ddp: DDP) -> nn.Module:
    reference = MnistCNN()
    reference.load_state_dict(ddp.module.state_dict())
    return reference


def check_initial_broadcast():
    ddp = DDP(_model(1))
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, ddp.module.conv1.weight.detach().numpy())
    np.testing.assert_array_equal(gathered[0], gathered[1])
    assert list(ddp.state_dict())[0] == "module.conv1.weight"
    assert ddp.module.fc2.out_features == 10


def check_training_matches_single_process():
    for bucket_cap_mb in (None, 0.0005):  # one bucket of 1 MB / many tiny buckets
        ddp = DDP(_model(2), bucket_cap_mb=bucket_cap_mb)
        if bucket_cap_mb:
            assert len(ddp._buckets) > 3
        reference = _reference_of(ddp)
        _train(ddp, 20, full_batch=False)
        _train(reference, 20, full_batch=True)
        _same_parameters(ddp.module, reference, atol=1e-5)


def check_all_reduce_overlaps_backward():
    ddp = DDP(_model(3), bucket_cap_mb=0.0005)
    started = []
    # conv1.weight is the first parameter, so its gradient comes last in backward: by
    # then the buckets of the later layers must already be on their way.
    ddp.module.conv1.weight.register_hook(
        lambda grad: started.append(sum(b.work is not None for b in ddp._buckets)))
    images, labels = _batch(0)
    F.cross_entropy(ddp(_half(images)), _half(labels)).backward()
    assert started and started[0] > 0, started


def check_no_sync_accumulation():
    ddp = DDP(_model(4))
    reference = _reference_of(ddp)
    for step in range(3):
        images, labels = _batch(step)
        if step < 2:
            with ddp.no_sync():
                F.cross_entropy(ddp(_half(images)), _half(labels)).backward()
        else:
            F.cross_entropy(ddp(_half(images)), _half(labels)).backward()
        F.cross_entropy(reference(images), labels).backward()
        if step == 0:  # inside no_sync the ranks' gradients are their own
            grads = [None] * 2
            dist.all_gather_object(grads, ddp.module.fc2.bias.grad.numpy())
            assert not np.allclose(grads[0], grads[1])
    for p, q in zip(ddp.module.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-6, rtol=1e-5)


class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 2)
        self.b = nn.Linear(4, 2)
        self.never = nn.Linear(4, 2)

    def forward(self, x, use_a: bool):
        return self.a(x) if use_a else self.b(x)


def check_find_unused_parameters():
    ember.manual_seed(5)
    ddp = DDP(Branches(), find_unused_parameters=True)
    x = ember.ones(3, 4) * (dist.get_rank() + 1)
    ddp(x, use_a=dist.get_rank() == 0).sum().backward()
    # a is used on rank 0 only: its average counts rank 1's contribution as zero.
    expected_a = np.full((2, 4), 3.0 / 2)
    np.testing.assert_allclose(ddp.module.a.weight.grad.numpy(), expected_a)
    np.testing.assert_allclose(ddp.module.b.weight.grad.numpy(), np.full((2, 4), 6.0 / 2))
    assert ddp.module.never.weight.grad is None  # unused everywhere: left alone


def check_unused_parameters_error():
    ember.manual_seed(6)
    ddp = DDP(Branches())
    x = ember.ones(3, 4)
    ddp(x, use_a=True).sum().backward()
    try:
        ddp(x, use_a=True)
    except RuntimeError as error:
        assert "Expected to have finished reduction in the prior iteration" in str(error)
    else:
        raise AssertionError("no error for unused parameters")


def check_buffers_broadcast():
    ember.manual_seed(7 + dist.get_rank())
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    ddp = DDP(model)
    ddp(ember.randn(6, 4) + dist.get_rank())  # running stats now differ per rank
    ddp(ember.randn(6, 4))  # ... and are overwritten by rank 0's before this forward
    stats = [None] * 2
    dist.all_gather_object(stats, model[1].num_batches_tracked.item())
    assert stats == [2, 2], stats


def check_distributed_sampler():
    from ember.utils.data import DataLoader, DistributedSampler, TensorDataset
    dataset = TensorDataset(ember.arange(10))
    sampler = DistributedSampler(dataset, shuffle=False)
    assert (sampler.num_replicas, sampler.rank) == (2, dist.get_rank())
    seen = [x.item() for (batch,) in DataLoader(dataset, batch_size=2, sampler=sampler)
            for x in batch]
    assert seen == list(range(dist.get_rank(), 10, 2)), seen


def check_rank0_checkpoint():
    if not hasattr(ember, "save"):
        raise Skip("ember.save is not available")
    ddp = DDP(_model(8))
    _train(ddp, 2, full_batch=False)
    paths = [tempfile.mkdtemp() if dist.get_rank() == 0 else None]
    dist.broadcast_object_list(paths, src=0)
    path = os.path.join(paths[0], "model.pt")
    if dist.get_rank() == 0:
        ember.save(ddp.state_dict(), path)
    dist.barrier()
    restored = DDP(_model(9))
    restored.load_state_dict(ember.load(path))
    _same_parameters(ddp, restored, atol=0)


CHECKS = [check_initial_broadcast, check_training_matches_single_process,
          check_all_reduce_overlaps_backward, check_no_sync_accumulation,
          check_find_unused_parameters, check_unused_parameters_error,
          check_buffers_broadcast, check_distributed_sampler, check_rank0_checkpoint]

if __name__ == "__main__":
    dist.init_process_group("gloo")
    assert dist.get_world_size() == 2
    run_checks(CHECKS, only=sys.argv[1:])
    dist.destroy_process_group()
