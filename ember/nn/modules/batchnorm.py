"""Batch normalisation layers: _NormBase (parameters, running-stat buffers) and
BatchNorm1d/2d/3d over F.batch_norm."""
from __future__ import annotations

from ..._dtype import int64
from ...ops.creation import ones, tensor, zeros
from ..._tensor import Tensor
from .. import functional as F
from ..functional.normalization import _sync_batch_norm
from ..parameter import UninitializedBuffer
from .lazy import LazyModuleMixin, uninitialize_weight_and_bias
from .module import Module
from .normalization import _register_affine, _reset_affine

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d"]


class _NormBase(Module):
    """Affine weight/bias and running_mean/running_var/num_batches_tracked buffers."""

    # Version 2 added num_batches_tracked; older checkpoints lack it (see _load_from_state_dict).
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        factory = {"device": device, "dtype": dtype}
        _register_affine(self, num_features, affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory))
            self.register_buffer("running_var", ones(num_features, **factory))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # Checkpoints from before num_batches_tracked existed: keep the current count.
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked
                                   is not None else tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return F.batch_norm(input, *self._batch_norm_args())

    def _batch_norm_args(self) -> tuple:
        """F.batch_norm's arguments after the input; counts this batch when training."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:   # cumulative moving average over all batches so far
                factor = 1.0 / float(self.num_batches_tracked)
        # Batch statistics in training, and in eval when there are no running stats.
        use_batch_stats = self.training or (self.running_mean is None
                                            and self.running_var is None)
        # Running stats are passed only to be updated (training) or used (eval).
        keep = not self.training or self.track_running_stats
        return (self.running_mean if keep else None, self.running_var if keep else None,
                self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over input (N, C) or (N, C, L): normalise each channel by its batch
    statistics (running estimates in eval mode), then scale and shift."""
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over input (N, C, H, W): normalise each channel by its batch statistics
    (running estimates in eval mode), then scale and shift."""
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over input (N, C, D, H, W): normalise each channel by its batch
    statistics (running estimates in eval mode), then scale and shift."""
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over (N, C, *) input whose training statistics cover the batches of all
    processes in `process_group` (default: the world), when a process group of more than
    one process is initialised; otherwise it is plain batch norm.

    ember departs from torch on purpose here: torch synchronises only CUDA/XPU tensors and
    raises ValueError for CPU ones, while ember (CPU only) reduces the statistics with
    ember.distributed's all_reduce."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        args = self._batch_norm_args()
        running_mean, running_var, weight, bias, use_batch_stats, factor, eps = args
        group = self._sync_group() if use_batch_stats and self.training else None
        if group is None:
            return F.batch_norm(input, *args)
        return _sync_batch_norm(input, running_mean, running_var, weight, bias, factor, eps,
                                group)

    def _sync_group(self):
        """The process group to synchronise over, or None when there is nothing to sync."""
        from ... import distributed
        if not (distributed.is_available() and distributed.is_initialized()):
            return None
        group = self.process_group or distributed.group.WORLD
        return group if distributed.get_world_size(group) > 1 else None

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """`module` with every BatchNorm*d in it replaced by a SyncBatchNorm that shares its
        parameters and buffers. Children are replaced in place, as in torch; a BatchNorm given
        as `module` itself comes back as its replacement."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                      module.affine, module.track_running_stats, process_group,
                                      bias=module.bias is not None)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features comes from dim 1 of the first input. The eager class is built with 0
    features and no tensors; the requested ones are then made uninitialized."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            uninitialize_weight_and_bias(self, bias, device, dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if not self.has_uninitialized_params():
            return
        # As torch: dim 1 even for an unbatched instance-norm input.
        self.num_features = input.shape[1]
        for t in (self.weight, self.bias, self.running_mean, self.running_var):
            if t is not None:
                t.materialize((self.num_features,))
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d whose num_features is taken from the first input's channel dimension."""
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d whose num_features is taken from the first input's channel dimension."""
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d whose num_features is taken from the first input's channel dimension."""
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim
