"""Checks that watch optimizers and schedulers: missing-zero-grad, params-not-in-optimizer,
scheduler-before-optimizer.

missing-zero-grad follows each parameter's gradient from one step() to the next. After a
step, the gradient tensor it used is remembered. Clearing it by any means (set to None,
replaced, or zeroed in place) makes a backward pass that starts later find it gone or all
zeros. A backward pass that starts while that same gradient still holds non-zero values
adds onto it, and the next step() then uses old and new contributions together.
Accumulating over several backward passes before one step never triggers this: the
gradients are cleared after the step, before the next backward pass.
"""
from __future__ import annotations

import sys
import weakref

from ..optim.optimizer import Optimizer
from ._report import in_ember

MISSING_ZERO_GRAD = (
    "optimizer.step() used gradients that still hold the previous step's contributions — "
    "call optimizer.zero_grad() (or model.zero_grad()) once per step, before backward()")
PARAMS_NOT_IN_OPTIMIZER = (
    "parameters of the model received gradients but belong to no optimizer, while the "
    "optimizer holds parameters the model no longer has (a layer replaced after the "
    "optimizer was built) — create the optimizer after changing the model, or add the new "
    "parameters with optimizer.add_param_group()")
SCHEDULER_BEFORE_OPTIMIZER = (
    "lr_scheduler.step() ran before the first optimizer.step(), so the first learning rate "
    "of the schedule is skipped — call optimizer.step() before lr_scheduler.step()")


def _params(optimizer: Optimizer):
    for group in optimizer.param_groups:
        yield from group["params"]


def _holds_values(grad) -> bool:
    """Whether a gradient tensor has any non-zero element."""
    return bool(grad.numpy(force=True).any())


class _Used:
    """A parameter and (weakly: a gradient nobody else keeps was cleared, and its memory
    goes back to be reused) the gradient tensor the last step() used; `reused` once a
    backward pass started while that gradient was still there, uncleared."""

    __slots__ = ("param", "grad", "reused")

    def __init__(self, param, grad):
        self.param, self.grad, self.reused = param, weakref.ref(grad), False


class OptimizerChecks:
    """The checks at optimizer.step(), backward() and lr_scheduler.step()."""

    def __init__(self, doctor):
        self.doctor = doctor
        self.used: dict[int, _Used] = {}            # id(param) -> its gradient at the last step
        self.stepped = weakref.WeakSet()            # optimizers that stepped under the doctor
        self.last_step = weakref.WeakKeyDictionary()    # optimizer -> doctor.steps after it

    # ------------------------------------------------------------ hook sites
    def before_backward(self) -> None:
        """Forget gradients that were cleared since their step; mark the others reused."""
        for key, used in list(self.used.items()):
            grad = used.param.grad
            if grad is None or grad is not used.grad() or not _holds_values(grad):
                del self.used[key]
            else:
                used.reused = True

    def before_step(self, optimizer: Optimizer) -> None:
        for p in _params(optimizer):
            used = self.used.get(id(p))
            if used is not None and used.reused and p.grad is not None and \
                    p.grad is used.grad() and _holds_values(p.grad):
                self.doctor.report.add("missing-zero-grad", MISSING_ZERO_GRAD)
                break
        if optimizer in self.stepped:   # every optimizer of the loop has stepped once by now
            self._check_membership(optimizer)

    def after_step(self, optimizer: Optimizer) -> None:
        for p in _params(optimizer):
            grad = p.grad
            if grad is not None:
                self.used[id(p)] = _Used(p, grad)
        self.stepped.add(optimizer)
        self.last_step[optimizer] = self.doctor.steps + 1

    def scheduler_step(self, scheduler) -> None:
        """Called by LRScheduler.step() (not its first, initial step). Judges the user's own
        calls only, and stays silent once any backward pass ran: a GradScaler may have
        skipped the first optimizer steps."""
        # Frames: this check, LRScheduler.step, its replayed_call wrapper, the caller.
        if in_ember(sys._getframe(3).f_code.co_filename):
            return
        if not getattr(scheduler.optimizer, "_opt_called", False) and \
                self.doctor.backwards == 0:
            self.doctor.report.add("scheduler-before-optimizer", SCHEDULER_BEFORE_OPTIMIZER)

    # ------------------------------------------------------------ params-not-in-optimizer
    def _check_membership(self, optimizer: Optimizer) -> None:
        """A model forwarded since this optimizer's last step has parameters with gradients
        that no optimizer holds, and this optimizer holds parameters that model lacks."""
        mine = {id(p) for p in _params(optimizer)}
        for root in self.doctor.modules.roots_since(self.last_step[optimizer]):
            params = list(root.parameters())
            if mine.isdisjoint(id(p) for p in params):
                continue
            held = {id(p) for opt in self.stepped for p in _params(opt)}
            orphans = any(p.grad is not None and id(p) not in held for p in params)
            if not orphans:
                continue
            present = {id(p) for p in params}
            dropped = any(id(p) not in present and (p.grad is None or not _holds_values(p.grad))
                          for p in _params(optimizer))
            if dropped:
                self.doctor.report.add("params-not-in-optimizer", PARAMS_NOT_IN_OPTIMIZER)
                return
