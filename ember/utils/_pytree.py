"""Pytrees (torch.utils._pytree): nested containers whose leaves are tensors or anything else.

tree_flatten(tree) walks the containers depth first and returns the leaves and a TreeSpec
(each node's type, its context -- dict keys, a namedtuple's class, a deque's maxlen -- and
the children's specs); tree_unflatten(leaves, spec) rebuilds the tree. The container types
are the registered nodes (SUPPORTED_NODES): tuple, list, dict, OrderedDict, defaultdict,
deque, every namedtuple, torch.Size (rebuilt as a tuple), the op result types
(torch.return_types.max ...) and whatever register_pytree_node adds. Everything else, None
included, is a leaf. Dicts keep their insertion order, so {"a": 1, "b": 2} and
{"b": 2, "a": 1} have different specs, as in torch.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, Iterable, NamedTuple

from .._size import Size
from ..ops._return_types import return_types

__all__ = [
    "TreeSpec", "LeafSpec", "PyTreeSpec", "register_pytree_node", "tree_is_leaf",
    "tree_flatten", "tree_flatten_with_path", "tree_unflatten", "tree_iter", "tree_leaves",
    "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path", "tree_map_",
    "tree_map_only", "tree_map_only_", "tree_all", "tree_any", "tree_all_only",
    "tree_any_only", "treespec_dumps", "treespec_loads", "treespec_pprint", "keystr",
    "key_get", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
    "is_structseq", "is_structseq_class", "is_structseq_instance",
]

PyTree = Any
Context = Any
DumpableContext = Any
FlattenFn = Callable[[PyTree], "tuple[list, Context]"]
UnflattenFn = Callable[[Iterable, Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
KeyEntry = Any
KeyPath = tuple
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"
DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1


class NodeDef(NamedTuple):
    """How a node type splits into (children, context) and is rebuilt from them."""
    type: type
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Callable | None


class _SerializeNodeDef(NamedTuple):
    """How treespec_dumps names a node type and writes its context as JSON."""
    typ: type
    serialized_type_name: str
    to_dumpable_context: Callable | None
    from_dumpable_context: Callable | None


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict[type, NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[type, _SerializeNodeDef] = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict[str, type] = {}


def register_pytree_node(cls: type, flatten_fn: Callable, unflatten_fn: Callable, *,
                         serialized_type_name: str | None = None,
                         to_dumpable_context: Callable | None = None,
                         from_dumpable_context: Callable | None = None,
                         flatten_with_keys_fn: Callable | None = None) -> None:
    """Make `cls` a container: flatten_fn(node) -> (children, context) and
    unflatten_fn(children, context) -> node. The serialization arguments name the type
    and convert its context for treespec_dumps/treespec_loads."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn)


def _register_pytree_node(cls: type, flatten_fn: Callable, unflatten_fn: Callable,
                          to_str_fn: Callable | None = None,
                          maybe_from_str_fn: Callable | None = None, **kwargs) -> None:
    """The older private spelling (transformers calls it): registering twice warns and
    overwrites instead of raising."""
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn("`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
                      "`to_dumpable_context` and `from_dumpable_context` instead.",
                      FutureWarning, stacklevel=2)
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn, **kwargs)


def _private_register_pytree_node(cls: type, flatten_fn: Callable, unflatten_fn: Callable, *,
                                  serialized_type_name: str | None = None,
                                  to_dumpable_context: Callable | None = None,
                                  from_dumpable_context: Callable | None = None,
                                  flatten_with_keys_fn: Callable | None = None) -> None:
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. "
                          "Overwriting the previous registration.", stacklevel=3)
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        if (to_dumpable_context is None) != (from_dumpable_context is None):
            raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} "
                             "must be None or registered.")
        name = serialized_type_name or NO_SERIALIZED_TYPE_NAME_FOUND
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context,
                                                            from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _deregister_pytree_node(cls: type) -> None:
    """Undo a registration (tests use it to keep the registry clean)."""
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        name = SUPPORTED_SERIALIZED_TYPES.pop(cls).serialized_type_name
        SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(name, None)


def _register_namedtuple(cls: type, *, serialized_type_name: str) -> None:
    """Give a namedtuple class a name, so specs holding it can be serialized."""
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, serialized_type_name, None, None)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def register_dataclass(cls: type, *, field_names: list[str] | None = None,
                       drop_field_names: list[str] | None = None,
                       serialized_type_name: str | None = None) -> None:
    """Register a dataclass: its init fields (or `field_names`) are the children."""
    if field_names is None:
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    names = [name for name in field_names if name not in (drop_field_names or [])]

    def flatten(obj):
        return [getattr(obj, name) for name in names], names

    def unflatten(values, context):
        return cls(**dict(zip(context, values)))

    def flatten_with_keys(obj):
        return [(GetAttrKey(name), getattr(obj, name)) for name in names], names

    _private_register_pytree_node(cls, flatten, unflatten,
                                  serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


# ------------------------------------------------------------------------------ key paths

@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """A position in a sequence node, printed [0]."""
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """A key of a mapping node, printed ['name']."""
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """An attribute of a node (a namedtuple's field), printed .name."""
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp: tuple) -> str:
    """A key path printed as Python indexing: ['a'][0].x"""
    return "".join(str(key) for key in kp)


def key_get(obj: Any, kp: tuple) -> Any:
    """The value at key path `kp` inside `obj`."""
    for key in kp:
        obj = key.get(obj)
    return obj


# ------------------------------------------------------------------------ built-in nodes

# torch's op results (torch.return_types.max, ...) are CPython structseqs, each registered as
# its own node type; ember's are namedtuples, registered the same way below.
_RETURN_TYPES = frozenset(cls for cls in vars(return_types).values()
                          if isinstance(cls, type) and issubclass(cls, tuple))


def is_namedtuple_class(cls: type) -> bool:
    """Whether `cls` is a namedtuple class (a tuple with _fields, _make and _asdict; not one
    of the op result types, which are structseqs in torch)."""
    return (isinstance(cls, type) and cls not in _RETURN_TYPES and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(field) is str for field in cls._fields)
            and callable(getattr(cls, "_make", None))
            and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj: object) -> bool:
    """Whether `obj` is a namedtuple."""
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj: object) -> bool:
    """Whether `obj` is a namedtuple or a namedtuple class."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls: type) -> bool:
    """Whether `cls` is a CPython structseq (os.stat_result, time.struct_time) or a
    torch.return_types class."""
    if cls in _RETURN_TYPES:
        return True
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, name, None), int)
                    for name in ("n_fields", "n_sequence_fields", "n_unnamed_fields")))


def is_structseq_instance(obj: object) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj: object) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _with_keys(flatten: Callable, key: Callable) -> Callable:
    """A flatten_with_keys_fn from a flatten_fn: key(index, context) names each child."""
    def flatten_with_keys(node):
        children, context = flatten(node)
        return [(key(i, context), child) for i, child in enumerate(children)], context
    return flatten_with_keys


def _sequence_key(i, context):
    return SequenceKey(i)


def _mapping_key(i, keys):
    return MappingKey(keys[i])


# The built-in nodes' flatten / unflatten functions, under torch's private names: libraries
# register their own types with them (transformers: register_pytree_node(Cache,
# lambda c: _dict_flatten(...), ..., flatten_with_keys_fn=... _dict_flatten_with_keys(...))).

def _tuple_flatten(t: tuple) -> tuple[list, Context]:
    return list(t), None


def _tuple_unflatten(values: Iterable, context: Context) -> tuple:
    return tuple(values)


def _list_flatten(t: list) -> tuple[list, Context]:
    return t, None


def _list_unflatten(values: Iterable, context: Context) -> list:
    return list(values)


def _dict_flatten(d: dict) -> tuple[list, Context]:
    return list(d.values()), list(d)


def _dict_unflatten(values: Iterable, context: Context) -> dict:
    return dict(zip(context, values))


def _namedtuple_flatten(t) -> tuple[list, Context]:
    return list(t), type(t)


def _namedtuple_unflatten(values: Iterable, context: Context):
    return context(*values)


def _ordereddict_flatten(d: OrderedDict) -> tuple[list, Context]:
    return list(d.values()), list(d)


def _ordereddict_unflatten(values: Iterable, context: Context) -> OrderedDict:
    return OrderedDict(zip(context, values))


def _defaultdict_flatten(d: defaultdict) -> tuple[list, Context]:
    return list(d.values()), [d.default_factory, list(d)]


def _defaultdict_unflatten(values: Iterable, context: Context) -> defaultdict:
    return defaultdict(context[0], _dict_unflatten(values, context[1]))


def _deque_flatten(d: deque) -> tuple[list, Context]:
    return list(d), d.maxlen


def _deque_unflatten(values: Iterable, context: Context) -> deque:
    return deque(values, maxlen=context)


_tuple_flatten_with_keys = _with_keys(_tuple_flatten, _sequence_key)
_list_flatten_with_keys = _with_keys(_list_flatten, _sequence_key)
_dict_flatten_with_keys = _with_keys(_dict_flatten, _mapping_key)
_namedtuple_flatten_with_keys = _with_keys(_namedtuple_flatten,
                                           lambda i, cls: GetAttrKey(cls._fields[i]))
_ordereddict_flatten_with_keys = _with_keys(_ordereddict_flatten, _mapping_key)
_defaultdict_flatten_with_keys = _with_keys(_defaultdict_flatten,
                                            lambda i, context: MappingKey(context[1][i]))
_deque_flatten_with_keys = _with_keys(_deque_flatten, _sequence_key)
_odict_flatten, _odict_unflatten = _ordereddict_flatten, _ordereddict_unflatten


def _defaultdict_serialize(context) -> dict:
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_deserialize(dumped: dict) -> list:
    module = importlib.import_module(dumped["default_factory_module"])
    return [getattr(module, dumped["default_factory_name"]), dumped["dict_context"]]


def _namedtuple_serialize(cls: type) -> str:
    name = SUPPORTED_SERIALIZED_TYPES.get(cls)
    if name is None or name.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {cls} because we didn't register "
            "a serializated_type_name. Please register using `_register_namedtuple`.")
    return name.serialized_type_name


def _namedtuple_deserialize(name: str) -> type:
    if name not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {name} "
                                  "because we couldn't find a serializated name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[name]


_register = _private_register_pytree_node
_register(tuple, _tuple_flatten, _tuple_unflatten, serialized_type_name="builtins.tuple",
          flatten_with_keys_fn=_tuple_flatten_with_keys)
_register(list, _list_flatten, _list_unflatten, serialized_type_name="builtins.list",
          flatten_with_keys_fn=_list_flatten_with_keys)
_register(dict, _dict_flatten, _dict_unflatten, serialized_type_name="builtins.dict",
          flatten_with_keys_fn=_dict_flatten_with_keys)
_register(namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
          serialized_type_name="collections.namedtuple",
          to_dumpable_context=_namedtuple_serialize,
          from_dumpable_context=_namedtuple_deserialize,
          flatten_with_keys_fn=_namedtuple_flatten_with_keys)
_register(OrderedDict, _ordereddict_flatten, _ordereddict_unflatten,
          serialized_type_name="collections.OrderedDict",
          flatten_with_keys_fn=_ordereddict_flatten_with_keys)
_register(defaultdict, _defaultdict_flatten, _defaultdict_unflatten,
          serialized_type_name="collections.defaultdict",
          to_dumpable_context=_defaultdict_serialize,
          from_dumpable_context=_defaultdict_deserialize,
          flatten_with_keys_fn=_defaultdict_flatten_with_keys)
_register(deque, _deque_flatten, _deque_unflatten, serialized_type_name="collections.deque",
          flatten_with_keys_fn=_deque_flatten_with_keys)
# torch.Size rebuilds as a plain tuple, as torch's registration does
_register(Size, _tuple_flatten, _tuple_unflatten, serialized_type_name="torch.Size",
          flatten_with_keys_fn=_tuple_flatten_with_keys)
for _cls in _RETURN_TYPES:
    _register(_cls, _tuple_flatten, lambda values, context, cls=_cls: cls(*values),
              flatten_with_keys_fn=_tuple_flatten_with_keys)

BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})
STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})


def _get_node_type(tree: Any) -> Any:
    """The registry key of a tree's root: its type, or `namedtuple` for any namedtuple."""
    return namedtuple if is_namedtuple_class(type(tree)) else type(tree)


def tree_is_leaf(tree: PyTree, is_leaf: Callable | None = None) -> bool:
    """Whether `tree` is a leaf: not a registered node, or picked by `is_leaf`."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ------------------------------------------------------------------------------ TreeSpec

class TreeSpec:
    """The structure of a pytree: the root's node type, its context and the children's
    specs. Counts: num_nodes, num_leaves, num_children. Frozen, hashable, comparable."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        set_ = object.__setattr__
        set_(self, "type", type)
        set_(self, "_context", context)
        set_(self, "_children", children_specs)
        leaf = type is None
        set_(self, "num_nodes", 1 + sum(child.num_nodes for child in children_specs))
        set_(self, "num_leaves", 1 if leaf else sum(c.num_leaves for c in children_specs))
        set_(self, "num_children", len(children_specs))

    def __setattr__(self, name, value):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field '{name}'")

    def __reduce__(self):
        return TreeSpec, (self.type, self._context, self._children)

    @property
    def context(self) -> Context:
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` "
                      "to access a single child, or `treespec.children()` to get all "
                      "children.", FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list[TreeSpec]:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        indent += 2
        children = (",\n" + " " * indent).join(child.__repr__(indent)
                                               for child in self._children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self) -> int:
        context = self._context
        if self.type is defaultdict:
            context = (context[0], tuple(context[1]))
        elif self.type in (dict, OrderedDict):
            context = tuple(context)
        elif self.type is not None and self.type not in BUILTIN_TYPES:
            context = None   # a custom node's context need not be hashable
        return hash((self.type, context, tuple(self._children)))

    def unflatten(self, leaves: Iterable) -> PyTree:
        """The tree of this structure holding `leaves`."""
        leaves = leaves if isinstance(leaves, (list, tuple)) else list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             "but the spec refers to a pytree that holds "
                             f"{self.num_leaves} items ({self}).")
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for child in self._children:
            children.append(child.unflatten(leaves[start:start + child.num_leaves]))
            start += child.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def flatten_up_to(self, tree: PyTree) -> list:
        """The subtrees of `tree` at this spec's leaves; `tree` must have this structure
        down to them (dict types may stand for one another, keys in any order)."""
        if self.is_leaf():
            return [tree]
        children = self._children_matching(tree)
        return [sub for child, spec in zip(children, self._children)
                for sub in spec.flatten_up_to(child)]

    def _children_matching(self, node) -> list:
        node_type = _get_node_type(node)
        both_dicts = self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES
        if not both_dicts and node_type != self.type:
            kind = "Node type" if self.type in BUILTIN_TYPES else "Type"
            raise ValueError(f"{kind} mismatch; expected {self.type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, "
                             f"but got {len(children)}.")
        if both_dicts:
            keys = self._context[1] if self.type is defaultdict else self._context
            missing, extra = set(keys) - set(node), set(node) - set(keys)
            if missing or extra:
                raise ValueError("Node keys mismatch"
                                 + (f"; missing key(s): {missing}" if missing else "")
                                 + (f"; extra key(s): {extra}" if extra else "") + ".")
            return [node[key] for key in keys]
        if self.type not in BUILTIN_TYPES and context != self._context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        if self.type is not deque and context != self._context:   # a deque's maxlen may differ
            raise ValueError(f"Node context mismatch for node type {self.type!r}; "
                             f"expected {self._context!r}, but got {context!r}.")
        return children


class LeafSpec(TreeSpec):
    """The spec of a leaf, printed *."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, None, [])

    def __reduce__(self):
        return LeafSpec, ()

    def __repr__(self, indent: int = 0) -> str:
        return "*"


PyTreeSpec = TreeSpec
_LEAF_SPEC = LeafSpec()


def treespec_leaf() -> LeafSpec:
    return _LEAF_SPEC


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    children = list(iterable)
    if not all(isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs) -> TreeSpec:
    children = dict(mapping, **kwargs)
    if not all(isinstance(child, TreeSpec) for child in children.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {children!r}.")
    return TreeSpec(dict, list(children), list(children.values()))


# ------------------------------------------------------------------------ flatten and map

def tree_flatten(tree: PyTree, is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """The leaves of `tree`, depth first, and its TreeSpec."""
    leaves = []

    def walk(node) -> TreeSpec:
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF_SPEC
        node_type = _get_node_type(node)
        children, context = SUPPORTED_NODES[node_type].flatten_fn(node)
        return TreeSpec(node_type, context, [walk(child) for child in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: Iterable, treespec: TreeSpec) -> PyTree:
    """The tree of structure `treespec` holding `leaves` (inverse of tree_flatten)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got "
                            f"item of type {type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Callable | None = None) -> Iterable:
    """The leaves of `tree`, lazily."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Callable | None = None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def arg_tree_leaves(*args, **kwargs) -> list:
    """The leaves of (args, kwargs.values()) in one list."""
    return [leaf for arg in (*args, *kwargs.values()) for leaf in tree_iter(arg)]


def tree_map(func: Callable, tree: PyTree, *rests: PyTree,
             is_leaf: Callable | None = None) -> PyTree:
    """func applied to every leaf of `tree` (and the matching subtrees of `rests`, which
    must have `tree`'s structure down to its leaves), in a tree of the same structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat_rests = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(map(func, leaves, *flat_rests))


def tree_map_(func: Callable, tree: PyTree, *rests: PyTree,
              is_leaf: Callable | None = None) -> PyTree:
    """tree_map for func's side effects: returns `tree` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    for args in zip(leaves, *[spec.flatten_up_to(rest) for rest in rests]):
        func(*args)
    return tree


def map_only(type_or_types_or_pred) -> Callable:
    """A decorator: the function applies to values of the given type(s) (or passing the
    predicate), and returns any other value unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func: Callable) -> Callable:
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func: Callable, tree: PyTree,
                  is_leaf: Callable | None = None) -> PyTree:
    """tree_map touching only the leaves of the given type(s)."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func: Callable, tree: PyTree,
                   is_leaf: Callable | None = None) -> PyTree:
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred: Callable, tree: PyTree,
                  is_leaf: Callable | None = None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred: Callable, tree: PyTree,
                  is_leaf: Callable | None = None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _broadcast_to_and_flatten(tree: PyTree, treespec: TreeSpec,
                              is_leaf: Callable | None = None) -> list | None:
    """`tree`, a prefix of treespec's structure, flattened with each of its leaves repeated
    once per leaf of the subtree it covers (vmap's in_dims); None if it is no prefix."""
    full_tree = treespec.unflatten([0] * treespec.num_leaves)
    result = []
    try:
        tree_map_(lambda x, sub: result.extend([x] * tree_structure(sub, is_leaf).num_leaves),
                  tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        return None
    return result


# ------------------------------------------------------------------------------ key paths

def _key_paths(path: tuple, tree: PyTree, is_leaf: Callable | None):
    if tree_is_leaf(tree, is_leaf):
        yield path, tree
        return
    node_type = _get_node_type(tree)
    flatten_with_keys = SUPPORTED_NODES[node_type].flatten_with_keys_fn
    if flatten_with_keys is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in flatten_with_keys(tree)[0]:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_flatten_with_path(tree: PyTree,
                           is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """tree_flatten, each leaf paired with its key path."""
    return list(_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable | None = None) -> list:
    return list(_key_paths((), tree, is_leaf))


def tree_map_with_path(func: Callable, tree: PyTree, *rests: PyTree,
                       is_leaf: Callable | None = None) -> PyTree:
    """tree_map whose func also receives each leaf's key path first."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    flat_rests = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(func(path, leaf, *others)
                          for (path, leaf), *others in zip(pairs, *flat_rests))


# -------------------------------------------------------------------------- serialization

def _spec_to_json(spec: TreeSpec) -> dict:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    if spec.type not in SUPPORTED_SERIALIZED_TYPES:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    node = SUPPORTED_SERIALIZED_TYPES[spec.type]
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    if node.to_dumpable_context is not None:
        context = node.to_dumpable_context(spec._context)
    else:
        try:
            context = json.dumps(spec._context)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    return {"type": node.serialized_type_name, "context": context,
            "children_spec": [_spec_to_json(child) for child in spec._children]}


def _json_to_spec(schema: dict) -> TreeSpec:
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[typ]
    context = (json.loads(schema["context"]) if node.from_dumpable_context is None
               else node.from_dumpable_context(schema["context"]))
    return TreeSpec(typ, context, [_json_to_spec(child) for child in schema["children_spec"]])


def _check_protocol(protocol: int) -> None:
    if protocol != DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: "
                         f"[{DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL}]")


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """A JSON string for `treespec` (torch's format: [protocol, {type, context, children_spec}])."""
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    _check_protocol(protocol)
    return json.dumps((protocol, _spec_to_json(treespec)))


def treespec_loads(serialized: str) -> TreeSpec:
    """The TreeSpec that treespec_dumps wrote."""
    protocol, schema = json.loads(serialized)
    _check_protocol(protocol)
    return _json_to_spec(schema)


class _Asterisk(str):
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The tree of this structure printed with * for each leaf."""
    return repr(treespec.unflatten([_Asterisk("*")] * treespec.num_leaves))
