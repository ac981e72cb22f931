"""Sorting and selection: sort, argsort, topk, unique, kthvalue, msort."""
from __future__ import annotations

__all__ = []
METHODS = []
