"""Checks that watch module calls and training modes: eval-mode-missing, train-mode-missing,
rnn-hidden-not-detached.

A "root" is a module the user's code calls directly (the outermost module call, not one
made by ember's own utilities). The checks judge roots, and only roots that an optimizer
trains, so that frozen feature extractors, EMA teachers and models under swa_utils.update_bn
stay out of them.
"""
from __future__ import annotations

import sys
import weakref

from .._modes import current
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.dropout import _DropoutNd
from ..nn.modules.module import Module
from ..nn.modules.rnn import RNNBase, RNNCellBase
from ._report import in_ember

EVAL_MODE_MISSING = (
    "a model in training mode ran under no_grad/inference_mode, so its Dropout drops units "
    "and its BatchNorm normalises by the batch and overwrites its running statistics — call "
    "model.eval() before evaluating (and model.train() before training again)")
TRAIN_MODE_MISSING = (
    "the model trained here was switched to eval mode and never back, so its Dropout and "
    "BatchNorm layers train with their evaluation behaviour — call model.train() before the "
    "training steps")
RNN_HIDDEN_NOT_DETACHED = (
    "backward() runs through an RNN hidden state carried over from an earlier iteration, so "
    "each iteration's graph reaches back into the previous ones (growing graphs, or the "
    "'backward through the graph a second time' error) — detach the hidden state between "
    "iterations (hidden = hidden.detach(), or a tuple of detached tensors for an LSTM)")

_RECURRENT = (RNNBase, RNNCellBase)


def _mode_layers(module: Module) -> list:
    """The submodules whose behaviour differs between training and evaluation."""
    return [m for m in module.modules()
            if isinstance(m, _DropoutNd) and m.p > 0
            or isinstance(m, _BatchNorm) and m.track_running_stats]


def _tensors(value) -> list:
    """The tensors of an RNN's hidden state: one tensor, or a tuple of them (an LSTM's)."""
    if isinstance(value, (tuple, list)):
        return [v for v in value if hasattr(v, "grad_fn")]
    return [value] if hasattr(value, "grad_fn") else []


class _Root:
    """What the doctor saw of one root module."""

    __slots__ = ("last_grad_forward", "trained_in_train_mode", "last_nograd_forward")

    def __init__(self):
        self.last_grad_forward = -1         # doctor.steps at its last forward with grad
        self.trained_in_train_mode = False  # a forward with grad while in training mode
        self.last_nograd_forward = None     # doctor.steps at its last no_grad forward


class ModuleChecks:
    """The checks at Module.__call__, Module.train() and optimizer.step()."""

    def __init__(self, doctor):
        self.doctor = doctor
        self.depth = 0                                  # nested module calls now running
        self.roots = weakref.WeakKeyDictionary()        # root module -> _Root
        self.trained: set[int] = set()      # ids of params stepped since the last train()/eval()
        self.hidden: dict[int, tuple] = {}  # id(grad_fn) -> (grad_fn, doctor.backwards) of RNN
        self.carried = False                # an RNN got a hidden state from before a backward

    # ------------------------------------------------------------ hook sites
    def call(self, module: Module, args: tuple, kwargs: dict):
        """Run module's call (hooks and forward) with the checks around it."""
        # Frames: this check, Module._watched_call, Module.__call__, the caller.
        if self.depth == 0 and not in_ember(sys._getframe(3).f_code.co_filename):
            self._see_root(module)
        recurrent = isinstance(module, _RECURRENT)
        if recurrent:
            self._see_hidden_input(args[1] if len(args) > 1 else kwargs.get("hx"))
        self.depth += 1
        try:
            result = Module._call_impl(module, *args, **kwargs)
        finally:
            self.depth -= 1
        if recurrent:
            self._remember_hidden(result[1] if isinstance(module, RNNBase) else result)
        return result

    def mode_set(self) -> None:
        """Module.train()/eval() ran: what was stepped before no longer says the model is
        being trained in this mode (MC dropout and BatchNorm recalibration start so)."""
        self.trained.clear()

    def after_step(self, optimizer) -> None:
        self.trained.update(id(p) for group in optimizer.param_groups for p in group["params"]
                            if p.grad is not None)

    def before_step(self, optimizer, since: int) -> None:
        """train-mode-missing: a root forwarded with grad since this optimizer's last step,
        trained by it, switched as a whole to eval after it trained in training mode."""
        mine = {id(p) for group in optimizer.param_groups for p in group["params"]}
        for root in self.roots_since(since):
            info = self.roots[root]
            if root.training or not info.trained_in_train_mode:
                continue
            layers = _mode_layers(root)
            if layers and not any(m.training for m in layers) and \
                    not mine.isdisjoint(id(p) for p in root.parameters()):
                self.doctor.report.add("train-mode-missing", TRAIN_MODE_MISSING)
                return

    def before_backward(self) -> None:
        if self.carried:
            self.carried = False
            self.doctor.report.add("rnn-hidden-not-detached", RNN_HIDDEN_NOT_DETACHED)
        # hidden states made before the previous backward pass can no longer be carried
        # over it for the first time
        oldest = self.doctor.backwards - 1
        for key in [k for k, (_, made) in self.hidden.items() if made < oldest]:
            del self.hidden[key]

    def roots_since(self, steps: int) -> list:
        """The roots forwarded with grad enabled since doctor.steps was `steps`."""
        return [root for root, info in self.roots.items() if info.last_grad_forward >= steps]

    # ------------------------------------------------------------ the checks
    def _see_root(self, module: Module) -> None:
        info = self.roots.get(module)
        if info is None:
            info = self.roots[module] = _Root()
        steps = self.doctor.steps
        if current().grad_enabled:
            info.last_grad_forward = steps
            info.trained_in_train_mode |= module.training
            return
        # eval-mode-missing: the second no_grad forward without an optimizer step between
        # (an evaluation loop, not a no_grad forward inside training such as a GAN's)
        repeated = info.last_nograd_forward == steps
        info.last_nograd_forward = steps
        if not (repeated and module.training and self.trained):
            return
        layers = _mode_layers(module)
        if layers and all(m.training for m in layers) and \
                any(id(p) in self.trained for p in module.parameters()):
            self.doctor.report.add("eval-mode-missing", EVAL_MODE_MISSING)

    def _see_hidden_input(self, hx) -> None:
        for h in _tensors(hx):
            node = h.grad_fn
            made = node is not None and self.hidden.get(id(node))
            if made and made[0] is node and made[1] < self.doctor.backwards:
                self.carried = True

    def _remember_hidden(self, hidden) -> None:
        for h in _tensors(hidden):
            node = h.grad_fn
            if node is not None:
                self.hidden[id(node)] = (node, self.doctor.backwards)
