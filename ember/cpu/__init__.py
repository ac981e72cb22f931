"""ember.cpu: torch.cpu's namespace (the device ember computes on)."""
from . import amp  # noqa: F401


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device=None) -> None:
    """Nothing runs asynchronously on the CPU."""
