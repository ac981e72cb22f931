"""The doctor of one thread: the object ember._modes keeps in `ModeState.doctor` while the
checks are on, and the one entry per hook site that ember's code calls.

Hook sites (each tests `current().doctor` and calls in only when it is set):
    Module.__call__            module_call(module, args, kwargs) -> the call's result
    Module.train()/eval()      mode_set()
    Optimizer.step() wrapper   before_step(optimizer), after_step(optimizer)
    LRScheduler.step()         scheduler_step(scheduler)
    autograd.backward()        backward(tensors)
    the loss functions         cross_entropy(input), nll_loss(input),
                               bce_with_logits(input), regression(name, input, target)
    Tensor `+` and `+=`        add(a, b)
"""
from __future__ import annotations

from ._graph import GraphChecks
from ._losses import LossChecks
from ._modules import ModuleChecks
from ._optimizer import OptimizerChecks
from ._report import Report


class Doctor:
    """The checks' state and the findings of one session (see the module docstring)."""

    def __init__(self):
        self.report = Report()
        self.steps = 0          # optimizer steps taken
        self.backwards = 0      # backward passes started
        self.optimizers = OptimizerChecks(self)
        self.modules = ModuleChecks(self)
        self.graph = GraphChecks(self)
        losses = LossChecks(self)
        # hook sites whose work is one group's alone call it directly
        self.module_call = self.modules.call
        self.mode_set = self.modules.mode_set
        self.scheduler_step = self.optimizers.scheduler_step
        self.add = self.graph.add
        self.cross_entropy = losses.cross_entropy
        self.nll_loss = losses.nll_loss
        self.bce_with_logits = losses.bce_with_logits
        self.regression = losses.regression

    def before_step(self, optimizer) -> None:
        self.optimizers.before_step(optimizer)
        self.modules.before_step(optimizer, self.optimizers.last_step.get(optimizer, 0))

    def after_step(self, optimizer) -> None:
        self.optimizers.after_step(optimizer)
        self.modules.after_step(optimizer)
        self.steps += 1

    def backward(self, tensors) -> None:
        self.optimizers.before_backward()
        self.modules.before_backward()
        self.graph.before_backward(tensors)
        self.backwards += 1
