"""The registry of native tangent rules, keyed by Function class.

A rule is `rule(args, kwargs, out, tangents) -> tangent(s) of out`: `args` and `kwargs` are
the op's arguments as `Function.apply` received them, `out` its result (a Tensor or a tuple),
`tangents` one entry per positional argument (None where the argument has no tangent). It
returns one tangent per output (a single one for a single output; None for an output that
has none). Rules compute with ember ops, so a tangent is itself differentiable and carries
the tangents of enclosing levels. The rules live in ember/autograd/_forward/native/, above the
ops they know; they register here, below them, where the dual levels look them up.
"""
from __future__ import annotations

RULES: dict = {}       # Function class -> (rule, when)


def register(*classes, when=None):
    """Decorator: make the function the native tangent rule of each Function class;
    `when(args, kwargs)`, if given, says which calls it covers (the generic rule takes the
    others). Rules are written for real tensors: complex calls take the generic rule."""
    def add(rule):
        for cls in classes:
            RULES[cls] = (rule, when)
        return rule
    return add


def rule_for(cls, args: tuple, kwargs: dict):
    """The native rule covering this call, or None."""
    entry = RULES.get(cls)
    if entry is None:
        return None
    rule, when = entry
    for a in args:
        if getattr(a, "is_complex", None) is not None and a.is_complex():
            return None
    return rule if when is None or when(args, kwargs) else None
