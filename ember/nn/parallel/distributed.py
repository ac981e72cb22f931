"""DistributedDataParallel: one model replica per process, gradients averaged over the
process group during backward.

At construction the parameters and buffers of rank 0 are broadcast to every rank. The
parameters (in reverse order, roughly the order backward produces their gradients) are
split into buckets of `bucket_cap_mb` (the first one 1 MB, as torch). A hook on each
parameter copies its gradient into its bucket's flat buffer as soon as it is
accumulated; a full bucket starts a nonblocking all-reduce (buckets always start in
index order, so every rank issues the same sequence of collectives) while backward
goes on. When the backward pass ends, a final engine callback waits for the all-reduces
and writes the averaged gradients back into `.grad`.
"""
from __future__ import annotations

import contextlib
import functools
import warnings

import numpy as np

from ... import distributed as dist
from ..._tensor import Tensor
from ...autograd import engine
from ...autograd.grad_mode import is_grad_enabled
from .data_parallel import _Wrapper

_DEFAULT_BUCKET_CAP_MB = 25
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024
_UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by "
    "making sure all `forward` function outputs participate in calculating loss.")


class _Bucket:
    """Parameters whose gradients are all-reduced together through one flat buffer."""

    def __init__(self, indices: list[int], params: list) -> None:
        self.indices = indices
        sizes = [params[i].numel() for i in indices]
        self.offsets = dict(zip(indices, np.cumsum([0] + sizes[:-1]).tolist()))
        self.buffer = np.zeros(sum(sizes), params[indices[0]].dtype.numpy)
        self.pending = len(indices)
        self.work = None

    def slot(self, index: int, param) -> np.ndarray:
        start = self.offsets[index]
        return self.buffer[start:start + param.numel()]


def _assign_buckets(params: list, bucket_bytes: int, first_bucket_bytes: int) -> list:
    """Parameter indices per bucket: reverse parameter order, one dtype per bucket, a
    bucket closed once it holds `bucket_bytes` (`first_bucket_bytes` for the first)."""
    buckets, open_buckets = [], {}
    for index in reversed(range(len(params))):
        param = params[index]
        indices, size = open_buckets.get(param.dtype, ([], 0))
        indices.append(index)
        size += param.nbytes
        limit = first_bucket_bytes if not buckets else bucket_bytes
        if size >= limit:
            buckets.append(indices)
            open_buckets.pop(param.dtype, None)
        else:
            open_buckets[param.dtype] = (indices, size)
    buckets.extend(indices for indices, _ in open_buckets.values())
    return buckets


def _broadcast_coalesced(tensors: list, group) -> None:
    """Give every rank rank 0's values of `tensors`, one broadcast per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for same in by_dtype.values():
        flat = np.concatenate([t.numpy(force=True).reshape(-1) for t in same])
        dist.broadcast(Tensor._wrap(flat), group=group, group_src=0)
        start = 0
        for t in same:
            size = t.numel()
            t._data_to_write()[...] = flat[start:start + size].reshape(t.shape)
            start += size


def _tensors_in(obj):
    """The tensors in a forward output (nested tuples, lists and dicts)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from _tensors_in(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors_in(item)


class DistributedDataParallel(_Wrapper):
    """Data parallelism over the processes of `process_group` (the default group).

    ember runs on the CPU: `device_ids` and `output_device` must be None, as in torch
    for CPU modules. `gradient_as_bucket_view` and `static_graph` are accepted and give
    the same results (gradients are copied out of the buckets). find_unused_parameters
    finds the unused parameters when backward ends rather than after forward.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool | None = None, init_sync: bool = True,
                 process_group=None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params: bool = False, bucket_cap_mb_list=None,
                 batched_grad_copy: bool = False,
                 forward_sync_buffers: bool | None = None) -> None:
        super().__init__()
        for name, value in (("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("param_to_hook_all_reduce", param_to_hook_all_reduce),
                            ("mixed_precision", mixed_precision), ("device_mesh", device_mesh),
                            ("bucket_cap_mb_list", bucket_cap_mb_list)):
            if value is not None:
                raise NotImplementedError(f"DistributedDataParallel: ember does not support "
                                          f"the `{name}` argument")
        ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        params = [p for n, p in module.named_parameters() if n not in ignore]
        if not any(p.requires_grad for p in params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                "{device(type='cpu')}.")
        if broadcast_buffers is not None and forward_sync_buffers is None:
            warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` "
                          "instead.", FutureWarning, stacklevel=2)
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module "
                          "is deprecated. Please avoid using it.", FutureWarning, stacklevel=2)
        self.module = module
        self.process_group = process_group if process_group is not None else \
            dist.GroupMember.WORLD
        if self.process_group is None:
            raise ValueError("Default process group has not been initialized, please make "
                             "sure to call init_process_group.")
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, sync_buffers_at_init = forward_sync_buffers, True
        else:
            self.forward_sync_buffers = sync_buffers_at_init = broadcast_buffers is not False
        self.broadcast_buffers = self.forward_sync_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((bucket_cap_mb if bucket_cap_mb is not None
                                     else _DEFAULT_BUCKET_CAP_MB) * 1024 * 1024)
        first_bucket_bytes = _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None \
            else self.bucket_bytes_cap
        self._module_buffers = [b for n, b in module.named_buffers()
                                if n not in ignore and b is not None]
        if init_sync:
            self._verify_same_shapes(params)
            _broadcast_coalesced(params + (self._module_buffers if sync_buffers_at_init
                                           else []), self.process_group)
        # Reducer state: the parameters that get gradients, their buckets, and the
        # bookkeeping of one backward pass (reset at each synchronising forward).
        self._params = [p for p in params if p.requires_grad]
        bucket_indices = _assign_buckets(self._params, self.bucket_bytes_cap, first_bucket_bytes)
        self._buckets = [_Bucket(indices, self._params) for indices in bucket_indices]
        self._bucket_of = {i: b for b in self._buckets for i in b.indices}
        self._hook_handles = [p.register_post_accumulate_grad_hook(
            functools.partial(self._grad_ready, i)) for i, p in enumerate(self._params)]
        self._syncing = False
        self._finalize_queued = False
        self._unfinished_reduction = False
        self._ready = np.zeros(len(self._params), np.bool_)
        self._next_bucket = 0

    def _verify_same_shapes(self, params: list) -> None:
        shapes = [tuple(p.shape) for p in params]
        all_shapes = [None] * dist.get_world_size(self.process_group)
        dist.all_gather_object(all_shapes, shapes, group=self.process_group)
        for rank, other in enumerate(all_shapes):
            if other != shapes:
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank "
                    f"{dist.get_rank(self.process_group)} has {len(shapes)} params of shapes "
                    f"{shapes}, while rank {rank} has {len(other)} params of shapes {other}.")

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs, **kwargs):
        if self._unfinished_reduction:
            raise RuntimeError(_UNFINISHED_REDUCTION)
        if self.forward_sync_buffers and self._module_buffers:
            _broadcast_coalesced(self._module_buffers, self.process_group)
        sync = is_grad_enabled() and self.require_backward_grad_sync
        if is_grad_enabled():  # a no-grad forward leaves a pending backward's state alone
            self._syncing = sync
        if sync:
            self._start_pass()
        output = self.module(*inputs, **kwargs)
        if sync:
            # Backward reaching the output queues the final callback even when this rank
            # has no parameter gradient (all unused here, used on other ranks).
            for t in _tensors_in(output):
                if t.requires_grad:
                    t.register_hook(self._on_output_grad)
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Within this context, forward/backward only accumulate gradients locally; the
        first synchronising backward after it all-reduces the accumulated sums."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    # ------------------------------------------------------------------ backward
    def _start_pass(self) -> None:
        self._ready[:] = False
        self._next_bucket = 0
        self._finalize_queued = False
        for bucket in self._buckets:
            bucket.pending = len(bucket.indices)
            bucket.work = None

    def _queue_finalize(self) -> None:
        if not self._finalize_queued:
            self._finalize_queued = True
            engine.queue_callback(self._finalize)

    def _on_output_grad(self, grad) -> None:
        if self._syncing:
            self._queue_finalize()

    def _grad_ready(self, index: int, param) -> None:
        """Post-accumulate hook of parameter `index`: copy its gradient into its bucket."""
        if not self._syncing or self._ready[index]:
            return
        self._queue_finalize()
        bucket = self._bucket_of[index]
        bucket.slot(index, param)[...] = param._grad.numpy(force=True).reshape(-1)
        self._mark_ready(index, bucket)

    def _mark_ready(self, index: int, bucket: _Bucket) -> None:
        self._ready[index] = True
        bucket.pending -= 1
        while (self._next_bucket < len(self._buckets)
               and self._buckets[self._next_bucket].pending == 0):
            ready = self._buckets[self._next_bucket]
            ready.work = dist.all_reduce(Tensor._wrap(ready.buffer), dist.ReduceOp.AVG,
                                         self.process_group, async_op=True)
            self._next_bucket += 1

    def _finalize(self) -> None:
        """End of backward: all-reduce what is left, wait, write the averages to .grad."""
        self._syncing = False
        unused = np.flatnonzero(~self._ready)
        if len(unused) and not self.find_unused_parameters:
            self._unfinished_reduction = True  # raised at the next forward, as in torch
            return
        used = self._ready.astype(np.int32)
        for index in unused:  # locally unused: contribute zeros
            bucket = self._bucket_of[index]
            bucket.slot(index, self._params[index])[...] = 0
            self._mark_ready(index, bucket)
        if self.find_unused_parameters:
            dist.all_reduce(Tensor._wrap(used), dist.ReduceOp.MAX, self.process_group)
        for bucket in self._buckets:
            bucket.work.wait()
            for index in bucket.indices:
                if used[index]:  # a parameter unused on every rank keeps its .grad
                    self._write_grad(self._params[index], bucket.slot(index, self._params[index]))

    @staticmethod
    def _write_grad(param, averaged: np.ndarray) -> None:
        if param._grad is None:
            param._grad = Tensor._wrap(averaged.reshape(param.shape).copy())
        else:
            param._grad._data_to_write()[...] = averaged.reshape(param.shape)


class DistributedDataParallelCPU(DistributedDataParallel):
    """Deprecated alias of DistributedDataParallel (torch warns too)."""

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn("`torch.nn.parallel.DistributedDataParallelCPU` is deprecated, please "
                      "use `torch.nn.parallel.DistributedDataParallel` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__(*args, **kwargs)
