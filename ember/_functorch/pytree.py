"""Pytrees: nested tuples, lists and dicts whose leaves are tensors (or anything else).

flatten(tree) gives the leaves in order and a TreeSpec describing the containers;
unflatten(leaves, spec) rebuilds the tree. Anything else (None included) is a leaf, as in
torch.utils._pytree. TreeSpec prints like torch's, because torch's error messages quote it.
"""
from __future__ import annotations

from typing import Any, Callable


class TreeSpec:
    """The shape of a pytree: a container type, its context (dict keys) and child specs."""

    def __init__(self, kind: type | None, context: Any = None, children: list | None = None):
        self.kind = kind            # None marks a leaf
        self.context = context
        self.children = children or []

    def is_leaf(self) -> bool:
        return self.kind is None

    def num_leaves(self) -> int:
        return 1 if self.is_leaf() else sum(child.num_leaves() for child in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeSpec) and self.kind is other.kind
                and self.context == other.context and self.children == other.children)

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        indent += 2
        children = (",\n" + " " * indent).join(child.__repr__(indent) for child in self.children)
        return f"TreeSpec({self.kind.__name__}, {self.context}, [{children}])"


LEAF = TreeSpec(None)


def _children(tree) -> tuple[Any, list] | None:
    """(context, children) of a container node, None for a leaf."""
    if isinstance(tree, (tuple, list)):
        return None, list(tree)
    if isinstance(tree, dict):
        return list(tree), list(tree.values())
    return None


def flatten(tree) -> tuple[list, TreeSpec]:
    """The leaves of `tree`, depth first, and its TreeSpec."""
    node = _children(tree)
    if node is None:
        return [tree], LEAF
    context, children = node
    leaves, specs = [], []
    for child in children:
        child_leaves, child_spec = flatten(child)
        leaves += child_leaves
        specs.append(child_spec)
    return leaves, TreeSpec(type(tree), context, specs)


def unflatten(leaves, spec: TreeSpec):
    """Rebuild the tree described by `spec` from its leaves (inverse of flatten)."""
    leaves = iter(leaves)

    def build(spec: TreeSpec):
        if spec.is_leaf():
            return next(leaves)
        children = [build(child) for child in spec.children]
        if spec.kind is dict or issubclass(spec.kind, dict):
            return spec.kind(zip(spec.context, children))
        if hasattr(spec.kind, "_fields"):   # a namedtuple
            return spec.kind(*children)
        return spec.kind(children)

    return build(spec)


def tree_map(fn: Callable, tree):
    leaves, spec = flatten(tree)
    return unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix, spec: TreeSpec) -> list | None:
    """Leaves of `prefix` repeated so there is one per leaf of `spec`: a leaf of `prefix`
    (an int or None) covers a whole subtree. None when the structures do not match."""
    if spec.is_leaf() or _children(prefix) is None:
        return [prefix] * spec.num_leaves()
    context, children = _children(prefix)
    if type(prefix) is not spec.kind or context != spec.context \
            or len(children) != len(spec.children):
        return None
    result = []
    for child, child_spec in zip(children, spec.children):
        part = broadcast_prefix(child, child_spec)
        if part is None:
            return None
        result += part
    return result
