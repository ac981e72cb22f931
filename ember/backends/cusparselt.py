"""torch.backends.cusparselt: NVIDIA's cuSPARSELt library (structured-sparse CUDA matmuls).
Not available without CUDA."""
from __future__ import annotations

__all__ = ["version", "is_available", "get_max_alg_id"]


def version() -> int | None:
    """cuSPARSELt's version number, or None without it: None."""
    return None


def is_available() -> bool:
    """Whether cuSPARSELt can be used: False."""
    return False


def get_max_alg_id() -> int | None:
    """The highest cuSPARSELt algorithm id, or None without it: None."""
    return None
