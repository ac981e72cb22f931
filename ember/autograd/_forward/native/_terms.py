"""What the native rules share."""
from __future__ import annotations


def plus(*terms):
    """The sum of the terms that are not None (None when all are)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total
