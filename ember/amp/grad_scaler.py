"""torch.amp.GradScaler: dynamic loss scaling for low-precision training.

The loss is multiplied by `scale` before backward so small gradients survive in 16-bit;
`step` divides the gradients back (`unscale_`) and skips the optimizer step when any
of them overflowed to inf/NaN. `update` then adjusts the scale: it shrinks by
`backoff_factor` after an overflow and grows by `growth_factor` after
`growth_interval` clean steps in a row. The scale is a float32 value, as in torch, so
the sequence of scales matches torch's bit for bit. `unscale_`, `step` and `update` change
the scaler's Python state: a compiled training step replays them whole.
"""
from __future__ import annotations

import warnings
from collections import abc, defaultdict
from enum import Enum

import numpy as np

from .._recorded_call import replayed_call
from .._tensor import Tensor

__all__ = ["GradScaler", "OptState"]

_F32 = np.float32


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf": None}


class GradScaler:
    """GradScaler(device='cuda', init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True).

    ember has no CUDA: with device 'cuda' an enabled scaler warns and disables itself (every
    method then passes straight through), as torch does without CUDA. Use device 'cpu'.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Tensor | None = None           # created by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None  # clean steps since the last change
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # ------------------------------------------------------------ scaling
    def _lazy_init_scale_growth_tracker(self) -> None:
        self._scale = Tensor._wrap(np.array(self._init_scale, dtype=_F32))
        self._growth_tracker = Tensor._wrap(np.array(self._init_growth_tracker, dtype=np.int32))

    def _check_scale_growth_tracker(self, funcname: str) -> None:
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)

    def scale(self, outputs):
        """Multiply a tensor, or each tensor of a (nested) iterable, by the scale factor."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init_scale_growth_tracker()

        def apply_scale(value):
            if isinstance(value, Tensor):
                return value * self._scale
            if isinstance(value, abc.Iterable):
                scaled = map(apply_scale, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale: np.floating, allow_fp16: bool) -> bool:
        """Multiply every gradient by inv_scale in place; True if any is inf or NaN."""
        found_inf = False
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(f"expected param to be torch.Tensor, got "
                                         f"{type(param).__name__}")
                grad = param.grad
                if grad is None:
                    continue
                g = grad.numpy(force=True)
                if not allow_fp16 and g.dtype == np.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                # 16-bit gradients are unscaled in float32 and rounded back, as torch does.
                compute = _F32 if g.dtype.itemsize < 4 else g.dtype.type
                unscaled = g.astype(compute, copy=False) * compute(inv_scale)
                found_inf = found_inf or not np.isfinite(unscaled).all()
                g[...] = unscaled   # not counted as a version change, as in torch
        return found_inf

    @replayed_call
    def unscale_(self, optimizer) -> None:
        """Divide the optimizer's gradients by the scale (at most once between updates)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # The reciprocal is taken in float64 and rounded to float32, as torch does.
        inv_scale = _F32(1.0 / np.float64(self._scale.numpy(force=True)))
        state["found_inf"] = self._unscale_grads_(optimizer, inv_scale, allow_fp16=False)
        state["stage"] = OptState.UNSCALED

    @replayed_call
    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet), then run optimizer.step(...) unless a gradient
        overflowed. Returns the step's result, or None when it was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    @replayed_call
    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Set the next scale: `new_scale` if given, else by the dynamic rule."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values()
                     if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(any(found))
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _set_scale(self, new_scale) -> None:
        if isinstance(new_scale, float):
            self._scale._data_to_write()[...] = new_scale
            return
        reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                  "torch.FloatTensor with requires_grad=False.")
        if not isinstance(new_scale, Tensor) or new_scale.numel() != 1 \
                or new_scale.requires_grad:
            raise AssertionError(reason)
        self._scale._data_to_write()[...] = new_scale.numpy(force=True).reshape(())

    def _update_scale(self, found_inf: bool) -> None:
        # The factors are Python floats: products are taken in float64, rounded to float32.
        # As in torch, the update counts as a version change of the scale, not of the tracker.
        scale, tracker = self._scale._data_to_write(), self._growth_tracker.numpy()
        if found_inf:
            scale[...] = _F32(np.float64(scale) * self._backoff_factor)
            tracker[...] = 0
            return
        clean_steps = tracker + 1
        if clean_steps == self._growth_interval:
            with np.errstate(over="ignore"):
                grown = _F32(np.float64(scale) * self._growth_factor)
            if np.isfinite(grown):
                scale[...] = grown
            tracker[...] = 0
        else:
            tracker[...] = clean_steps

    # ------------------------------------------------------------ settings and state
    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        return self._init_growth_tracker if self._growth_tracker is None \
            else self._growth_tracker.item()

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._scale is not None:
            self._scale._data_to_write()[...] = self._init_scale
        if self._growth_tracker is not None:
            self._growth_tracker._data_to_write()[...] = self._init_growth_tracker
