"""Weight averaging: AveragedModel (SWA / EMA), the SWALR scheduler, update_bn.

Averaging runs in place on the averaged copy's NumPy arrays. Integer tensors (such
as BatchNorm's num_batches_tracked when use_buffers=True) are copied from the
model instead of averaged: an average of step counters has no meaning, and
writing a float average into an integer buffer would be a lossy cast.
"""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy
from typing import Any, Callable, Iterable

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn import Module
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Optimizer, _lerp_

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _is_float(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _write(dst: Tensor, src) -> None:
    """dst[...] = src in place (a Tensor or an array), bumping dst's version."""
    dst._data_to_write()[...] = src.numpy(force=True) if isinstance(src, Tensor) else src


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """multi_avg_fn for an exponential moving average: ema += (1 - decay) * (p - ema)."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")

    def ema_update(ema_param_list, current_param_list, _num_averaged) -> None:
        for p_ema, p_model in zip(ema_param_list, current_param_list):
            if _is_float(p_ema):
                _lerp_(p_ema._data_to_write(), p_model.numpy(force=True), 1 - decay)
            else:
                ema, model = p_ema.numpy(force=True), p_model.numpy(force=True)
                _write(p_ema, ema * decay + model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """multi_avg_fn for an equal-weight running mean of all the models seen."""

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        weight = float(np.float32(1 / (int(num_averaged) + 1)))
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            if _is_float(p_avg):
                _lerp_(p_avg._data_to_write(), p_model.numpy(force=True), weight)
            else:
                avg = p_avg.numpy(force=True)
                _write(p_avg, avg + (p_model.numpy(force=True) - avg) * weight)
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """avg_fn (one tensor at a time) for an exponential moving average."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable:
    """avg_fn (one tensor at a time) for the equal-weight running mean."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of `model` whose parameters (and with use_buffers=True, buffers) hold a
    running average of `model`'s, updated by update_parameters(model).

    The default average is SWA's equal-weight mean; pass avg_fn (per tensor) or
    multi_avg_fn (per list of tensors), e.g. get_ema_multi_avg_fn(0.999), for others.
    """

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        from ..ops.creation import tensor
        from .. import _dtype
        self.register_buffer("n_averaged", tensor(0, dtype=_dtype.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold model's current parameters into the average (the first call copies them)."""
        if self.use_buffers:
            averaged = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            current = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            averaged = list(self.parameters())
            current = list(model.parameters())
        averaged = [p.detach() for p in averaged]
        current = [p.detach() for p in current]
        n = int(self.n_averaged)
        if n == 0:
            for p_avg, p_model in zip(averaged, current):
                _write(p_avg, p_model)
        else:
            pairs = [(a, c) for a, c in zip(averaged, current) if _is_float(a)]
            for a, c in zip(averaged, current):
                if not _is_float(a):
                    _write(a, c)
            self._average(pairs)
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                _write(b_swa.detach(), b_model.detach())
        self.n_averaged += 1

    def _average(self, pairs: list) -> None:
        if self.multi_avg_fn is not None:
            by_dtype: dict = {}
            for a, c in pairs:
                by_dtype.setdefault(a.dtype, ([], []))
                by_dtype[a.dtype][0].append(a)
                by_dtype[a.dtype][1].append(c)
            for averaged, current in by_dtype.values():
                self.multi_avg_fn(averaged, current, self.n_averaged)
            return
        if self.avg_fn is not None:
            for a, c in pairs:
                _write(a, self.avg_fn(a, c, self.n_averaged))
            return
        # Equal-weight mean, computed as torch does on the CPU: avg + (p - avg) / (n + 1).
        count = int(self.n_averaged) + 1
        for a, c in pairs:
            diff = c.numpy(force=True) - a.numpy(force=True)
            diff /= count
            a._data_to_write()[...] += diff


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute BatchNorm running statistics with one pass over loader (for an averaged
    model, whose averaged weights do not match the running stats it inherited)."""
    from ..nn.modules.batchnorm import _BatchNorm
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # cumulative moving average over the whole pass
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs (cos or linear), then holds
    it there."""

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The lr the annealing started from, recovered from the current lr and alpha."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
