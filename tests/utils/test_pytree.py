"""ember.utils._pytree against torch.utils._pytree: the same trees give the same leaves,
specs (repr, counts, equality), rebuilt trees, errors and serialized strings."""
import copy
import pickle
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
import torch
import torch.utils._pytree as tp

import ember
import ember.utils._pytree as ep

Point = namedtuple("Point", "x y")


def trees(lib):
    """Trees covering every built-in node type, built for one library."""
    return [
        1, None, [], {}, (), [None, 1],
        {"b": [1, (2, 3)], "a": None, "c": OrderedDict(z=4, y=5)},
        defaultdict(list, {"k": 6, "j": [7]}),
        deque([7, 8], maxlen=3), Point(9, [10, 11]),
        lib.Size([2, 3]), (lib.Size([4]), {"s": lib.Size([])}),
        lib.max(lib.tensor([[1.0, 2.0]]), 1),
        ([1, {"x": 2}], {"y": (3, Point(4, 5))}),
    ]


def spec_text(spec) -> str:
    return repr(spec).replace("torch.", "")


@pytest.mark.parametrize("index", range(len(trees(torch))))
def test_flatten_unflatten_and_spec_match_torch(index):
    t_tree, e_tree = trees(torch)[index], trees(ember)[index]
    t_leaves, t_spec = tp.tree_flatten(t_tree)
    e_leaves, e_spec = ep.tree_flatten(e_tree)
    assert repr(e_leaves) == repr(t_leaves)
    assert spec_text(e_spec) == spec_text(t_spec)
    assert str(e_spec) == repr(e_spec)
    for name in ("num_leaves", "num_nodes", "num_children"):
        assert getattr(e_spec, name) == getattr(t_spec, name), name
    assert e_spec.is_leaf() == t_spec.is_leaf()
    assert repr(ep.tree_unflatten(e_leaves, e_spec)) == repr(tp.tree_unflatten(t_leaves, t_spec))
    assert ep.treespec_pprint(e_spec) == tp.treespec_pprint(t_spec)
    assert ep.tree_leaves(e_tree) == list(ep.tree_iter(e_tree)) == e_leaves
    assert ep.tree_structure(e_tree) == e_spec
    assert hash(ep.tree_structure(e_tree)) == hash(e_spec)


def test_spec_equality_follows_torch():
    for lib, p in ((torch, tp), (ember, ep)):
        s = p.tree_structure
        assert s([1, {"a": 2}]) == s([3, {"a": 4}])
        assert s({"a": 1, "b": 2}) != s({"b": 1, "a": 2})   # insertion order matters
        assert s([1]) != s((1,)) and s([1]) != 5
        assert s(1) == p.LeafSpec() and s(None) == s(1)
        assert isinstance(s(1), p.LeafSpec) and repr(p.LeafSpec()) == "*"
        spec = s([1, {"a": (2, None)}])
        assert copy.deepcopy(spec) == spec and pickle.loads(pickle.dumps(spec)) == spec
        assert p.TreeSpec(list, None, [p.LeafSpec(), p.LeafSpec()]) == s([0, 0])
        assert repr(p.treespec_tuple([p.treespec_leaf()])) == "TreeSpec(tuple, None, [*])"
        assert p.treespec_dict(a=p.treespec_leaf()) == s({"a": 0})
        assert spec.children() == [s(1), s({"a": (2, None)})] and spec.child(0) == s(1)
        assert spec.type is list and spec.context is None
        with pytest.raises(dataclasses_frozen_error()):
            spec.type = tuple


def dataclasses_frozen_error():
    import dataclasses
    return dataclasses.FrozenInstanceError


def test_map_and_predicates_match_torch():
    for p in (tp, ep):
        assert p.tree_map(lambda x: x * 2, (1, [2])) == (2, [4])
        assert p.tree_map(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
        # later trees need only have the first as a prefix; dict types mix, keys in any order
        assert p.tree_map(lambda a, b: (a, b), [1, 2], [[5], {"x": 1}]) == [(1, [5]), (2, {"x": 1})]
        assert p.tree_map(lambda a, b: a + b, {"a": 1, "b": 2}, OrderedDict(b=20, a=10)) \
            == {"a": 11, "b": 22}
        assert p.tree_map_only(int, lambda x: -x, (1, "a", 2.0)) == (-1, "a", 2.0)
        assert p.tree_map_only((int, float), lambda x: -x, (1, "a", 2.0)) == (-1, "a", -2.0)
        assert p.tree_map_only(lambda x: x == "a", str.upper, ["a", "b"]) == ["A", "b"]
        seen = []
        tree = [1, [2]]
        assert p.tree_map_(seen.append, tree) is tree and seen == [1, 2]
        assert p.tree_map_only_(int, seen.append, ["c", 3]) == ["c", 3] and seen[-1] == 3
        assert p.tree_all(lambda x: x > 0, [1, 2]) and p.tree_any(lambda x: x > 1, [1, 2])
        assert p.tree_all_only(int, lambda x: x > 0, [1, "a"])
        assert not p.tree_any_only(str, lambda x: x == "b", [1, "a"])
        assert p.tree_leaves([[1], [2, 3]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1) \
            == [[1], 2, 3]
        assert p.tree_is_leaf(None) and not p.tree_is_leaf([])
        assert p.is_namedtuple(Point(1, 2)) and p.is_namedtuple(Point) and not p.is_namedtuple((1,))
        assert p.map_only(int)(lambda x: -x)(3) == -3


def test_tensor_leaves_and_size_rebuild_as_torch():
    for lib, p in ((torch, tp), (ember, ep)):
        out = p.tree_map(lambda t: t + 1, {"w": lib.zeros(2), "s": lib.Size([2, 3])})
        assert out["w"].tolist() == [1.0, 1.0]
        assert out["s"] == (3, 4) and type(out["s"]) is tuple   # torch.Size rebuilds as tuple
        values, indices = p.tree_map(lambda t: t * 2, lib.max(lib.tensor([[1.0, 2.0]]), 1))
        assert values.tolist() == [4.0] and indices.tolist() == [2]


def error(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return type(info.value), str(info.value).replace("torch.", "")


@pytest.mark.parametrize("call", [
    lambda p: p.tree_unflatten([1], p.tree_structure([1, (2, 3)])),
    lambda p: p.tree_map(lambda a, b: a, (1, 2), [1, 2]),
    lambda p: p.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
    lambda p: p.tree_map(lambda a, b: a, [1, 2], [1]),
    lambda p: p.tree_map(lambda a, b: a, Point(1, 2), namedtuple("Other", "x y")(1, 2)),
    lambda p: p.tree_unflatten(p.tree_structure([1]), [1]) and p.tree_unflatten([1], [1]),
    lambda p: p.treespec_dumps(p.tree_structure(Point(1, 2))),
    lambda p: p.treespec_dumps(p.tree_structure([1]), protocol=7),
])
def test_errors_match_torch(call):
    assert error(call, ep) == error(call, tp)


def test_key_paths_match_torch():
    tree = {"a": [1, (2,)], "b": Point(3, 4), "c": OrderedDict(d=5)}
    t_pairs, t_spec = tp.tree_flatten_with_path(tree)
    e_pairs, e_spec = ep.tree_flatten_with_path(tree)
    assert repr(e_pairs) == repr(t_pairs) and e_spec == ep.tree_structure(tree)
    assert [ep.keystr(k) for k, _ in e_pairs] == [tp.keystr(k) for k, _ in t_pairs]
    assert [ep.key_get(tree, k) for k, _ in e_pairs] == [v for _, v in t_pairs]
    assert ep.tree_leaves_with_path(tree) == e_pairs
    mapped = ep.tree_map_with_path(lambda k, v: ep.keystr(k) + str(v), tree)
    assert mapped == tp.tree_map_with_path(lambda k, v: tp.keystr(k) + str(v), tree)


@pytest.mark.parametrize("tree", [
    [1, {"a": 2}], (OrderedDict(a=1), defaultdict(int, {"b": 2}), deque([1]), {1: 2}), 3,
])
def test_treespec_dumps_and_loads_match_torch(tree):
    text = ep.treespec_dumps(ep.tree_structure(tree))
    assert text == tp.treespec_dumps(tp.tree_structure(tree))
    assert ep.treespec_loads(text) == ep.tree_structure(tree)


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __repr__(self):
        return f"Pair({self.a!r}, {self.b!r})"


@pytest.mark.parametrize("p", [tp, ep], ids=["torch", "ember"])
def test_register_pytree_node(p):
    p.register_pytree_node(Pair, lambda c: ([c.a, c.b], None), lambda v, ctx: Pair(*v),
                           serialized_type_name="test_pytree.Pair")
    try:
        assert Pair in p.SUPPORTED_NODES
        leaves, spec = p.tree_flatten([Pair(1, [2])])
        assert leaves == [1, 2] and repr(spec) == (
            "TreeSpec(list, None, [TreeSpec(Pair, None, [*,\n    TreeSpec(list, None, [*])])])")
        assert repr(p.tree_map(lambda x: x + 1, Pair(1, [2]))) == "Pair(2, [3])"
        assert p.treespec_loads(p.treespec_dumps(spec)) == spec
        with pytest.raises(ValueError, match="is already registered as pytree node"):
            p.register_pytree_node(Pair, lambda c: ([], None), lambda v, ctx: Pair(0, 0))
        with pytest.raises(ValueError, match="Did not find a flatten_with_keys_fn for type"):
            p.tree_flatten_with_path(Pair(1, 2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p._register_pytree_node(Pair, lambda c: ([c.a], c.b), lambda v, b: Pair(v[0], b))
        assert p.tree_leaves(Pair(1, 2)) == [1]
    finally:
        p._deregister_pytree_node(Pair)
    assert p.tree_is_leaf(Pair(1, 2))


def test_torch_utils_pytree_is_bound_after_import():
    assert ember.utils._pytree is ep


class Cache:
    """A stand-in for transformers' DynamicCache: registered through the dict helpers."""

    def __init__(self, keys=(), values=()):
        self.keys, self.values = list(keys), list(values)

    def as_dict(self):
        return {"key_cache": self.keys, "value_cache": self.values}


@pytest.mark.parametrize("p", [tp, ep], ids=["torch", "ember"])
def test_libraries_register_types_with_the_builtin_helpers(p):
    def unflatten(values, context):
        d = p._dict_unflatten(values, context)
        return Cache(d["key_cache"], d["value_cache"])

    p.register_pytree_node(
        Cache, lambda c: p._dict_flatten(c.as_dict()), unflatten,
        serialized_type_name="test_pytree.Cache",
        flatten_with_keys_fn=lambda c: p._dict_flatten_with_keys(c.as_dict()))
    try:
        cache = Cache([1, 2], [3, 4])
        doubled = p.tree_map(lambda x: 2 * x, cache)
        assert (doubled.keys, doubled.values) == ([2, 4], [6, 8])
        assert [p.keystr(k) for k, _ in p.tree_flatten_with_path(cache)[0]] == [
            "['key_cache'][0]", "['key_cache'][1]", "['value_cache'][0]", "['value_cache'][1]"]
    finally:
        p._deregister_pytree_node(Cache)


@pytest.mark.parametrize("name", ["tuple", "list", "dict", "namedtuple", "ordereddict",
                                  "defaultdict", "deque"])
def test_builtin_helpers_match_torch(name):
    tree = {"tuple": (1, 2), "list": [1, 2], "dict": {"b": 1, "a": 2},
            "namedtuple": Point(1, 2), "ordereddict": OrderedDict(a=1),
            "defaultdict": defaultdict(int, {"k": 1}), "deque": deque([1, 2], maxlen=4)}[name]
    for suffix in ("flatten", "flatten_with_keys"):
        got = getattr(ep, f"_{name}_{suffix}")(tree)
        assert repr(got) == repr(getattr(tp, f"_{name}_{suffix}")(tree)), suffix
    values, context = getattr(ep, f"_{name}_flatten")(tree)
    assert repr(getattr(ep, f"_{name}_unflatten")(values, context)) == repr(tree)
