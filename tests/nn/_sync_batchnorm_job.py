"""Run under MPI by test_sync_batchnorm_lrn.py: each rank normalises its own slice of one
batch with SyncBatchNorm; the results must equal torch's BatchNorm over the whole batch."""
import os
import sys

import numpy as np
import torch

import ember
import ember.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "distributed", "scripts"))
from _harness import run_checks  # noqa: E402

FEATURES = 3


def _rows(rank: int) -> slice:
    """Uneven slices: rank r holds r + 2 samples."""
    start = sum(r + 2 for r in range(rank))
    return slice(start, start + rank + 2)


def _full_batch(shape_tail, seed):
    total = sum(r + 2 for r in range(dist.get_world_size()))
    r = np.random.default_rng(seed)
    x = r.standard_normal((total, FEATURES) + shape_tail).astype(np.float64)
    upstream = r.standard_normal(x.shape).astype(np.float64)
    weight, bias = r.standard_normal(FEATURES), r.standard_normal(FEATURES)
    return x, upstream, weight, bias


def _close(e, t, what):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-9, atol=1e-10,
                               err_msg=what)


def _compare(shape_tail, group=None, momentum=0.1, steps=2):
    mine = _rows(dist.get_rank())
    e_bn = ember.nn.SyncBatchNorm(FEATURES, momentum=momentum, process_group=group).double()
    reference = {0: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm2d}[len(shape_tail)]
    t_bn = reference(FEATURES, momentum=momentum).double()
    for step in range(steps):
        x, upstream, weight, bias = _full_batch(shape_tail, seed=step)
        if step == 0:
            with torch.no_grad():
                t_bn.weight.copy_(torch.tensor(weight))
                t_bn.bias.copy_(torch.tensor(bias))
            e_bn.load_state_dict({k: ember.tensor(v.numpy())
                                  for k, v in t_bn.state_dict().items()})
        tx = torch.tensor(x, requires_grad=True)
        t_out = t_bn(tx)
        (t_out * torch.tensor(upstream)).sum().backward()
        ex = ember.tensor(x[mine], requires_grad=True)
        e_out = e_bn(ex)
        (e_out * ember.tensor(upstream[mine])).sum().backward()
        _close(e_out, t_out[mine], "output")
        _close(ex.grad, tx.grad[mine], "input gradient")
        # Each rank's parameter gradients are its own share (DDP would sum/average them).
        for name in ("weight", "bias"):
            total = getattr(e_bn, name).grad.clone()
            dist.all_reduce(total)
            _close(total, getattr(t_bn, name).grad, f"{name} gradient summed over ranks")
        _close(e_bn.running_mean, t_bn.running_mean, "running_mean")
        _close(e_bn.running_var, t_bn.running_var, "running_var")
        e_bn.zero_grad()
        t_bn.zero_grad()
    assert int(e_bn.num_batches_tracked) == steps


def check_matches_full_batch_2d():
    _compare((4, 5))


def check_matches_full_batch_1d_input():
    _compare(())


def check_cumulative_average_and_subgroup():
    _compare((2, 2), group=dist.new_group(list(range(dist.get_world_size()))), momentum=None)


def check_eval_uses_running_stats_without_sync():
    bn = ember.nn.SyncBatchNorm(FEATURES).double().eval()
    with ember.no_grad():
        bn.running_mean.copy_(ember.tensor([0.5, -1.0, 2.0]))
    x = ember.randn(dist.get_rank() + 2, FEATURES, 3, dtype=ember.float64)
    expected = ember.nn.functional.batch_norm(x, bn.running_mean, bn.running_var, bn.weight,
                                              bn.bias, False)
    assert ember.equal(bn(x), expected)


def check_double_backward():
    # d/dx of |grad wrt x|^2 also crosses the processes; compare with torch's full batch.
    x, upstream, weight, bias = _full_batch((3,), seed=5)
    mine = _rows(dist.get_rank())
    tx = torch.tensor(x, requires_grad=True)
    t_out = torch.nn.functional.batch_norm(tx, None, None, torch.tensor(weight),
                                           torch.tensor(bias), True)
    tg, = torch.autograd.grad((t_out * torch.tensor(upstream)).sum(), tx, create_graph=True)
    (tg * tg).sum().backward()
    bn = ember.nn.SyncBatchNorm(FEATURES, track_running_stats=False).double()
    with ember.no_grad():
        bn.weight.copy_(ember.tensor(weight))
        bn.bias.copy_(ember.tensor(bias))
    ex = ember.tensor(x[mine], requires_grad=True)
    e_out = bn(ex)
    eg, = ember.autograd.grad((e_out * ember.tensor(upstream[mine])).sum(), ex,
                              create_graph=True)
    (eg * eg).sum().backward()
    _close(eg, tg[mine], "first derivative")
    _close(ex.grad, tx.grad[mine], "second derivative")


CHECKS = [check_matches_full_batch_2d, check_matches_full_batch_1d_input,
          check_cumulative_average_and_subgroup, check_eval_uses_running_stats_without_sync,
          check_double_backward]

if __name__ == "__main__":
    dist.init_process_group("mpi")
    run_checks(CHECKS)
    dist.destroy_process_group()
