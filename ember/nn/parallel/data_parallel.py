"""DataParallel: torch's single-process wrapper. ember runs on the CPU, where torch's
DataParallel only calls the wrapped module, so that is what it does here; scripts written
for it (and checkpoints with `module.`-prefixed keys) work unchanged."""
from __future__ import annotations

from ..modules.module import Module


class _Wrapper(Module):
    """A module holding the user's model as child `module` (state_dict keys get the
    `module.` prefix); a missing attribute that the model has points at `.module`."""

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError as error:
            inner = self.__dict__.get("_modules", {}).get("module")
            if inner is not None and name != "module" and hasattr(inner, name):
                raise AttributeError(f"{error}. The wrapped model is the `module` attribute: "
                                     f"use .module.{name}") from None
            raise


class DataParallel(_Wrapper):
    """Wraps `module`; forward calls it (no devices to split the batch over on the CPU)."""

    def __init__(self, module: Module, device_ids=None, output_device=None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = None
        self.src_device_obj = None

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """Evaluate module(*inputs) split over the GPUs in device_ids. Like a CPU-only build of
    torch, ember has no accelerator to split over, and says so as torch does."""
    raise RuntimeError("device type could not be determined")
