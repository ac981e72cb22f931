"""torch.backends.kleidiai: Arm's KleidiAI micro-kernels (Arm CPUs). Not in ember: False."""
from __future__ import annotations


def is_available() -> bool:
    """Whether KleidiAI kernels can be used: False."""
    return False
