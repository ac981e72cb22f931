"""The names libraries import from torch.distributed's sharding modules (DTensor, FSDP, DCP,
Join, functional collectives) exist in ember as in torch, and using them raises
NotImplementedError: transformers and accelerate import them whenever
torch.distributed.is_available(), which it is with ember[distributed]."""
import importlib

import pytest
import torch  # noqa: F401  (torch's modules are imported by path below)

import ember

NAMES = {
    "distributed.tensor": ["DTensor", "DeviceMesh", "Shard", "Replicate", "Partial",
                           "Placement", "distribute_tensor", "distribute_module",
                           "init_device_mesh", "ones", "zeros"],
    "distributed.tensor.placement_types": ["Shard", "Replicate", "Partial", "_StridedShard"],
    "distributed.tensor._utils": ["compute_local_shape_and_global_offset"],
    "distributed.device_mesh": ["DeviceMesh", "init_device_mesh"],
    "distributed.fsdp": ["FullyShardedDataParallel", "FSDPModule", "CPUOffloadPolicy",
                         "MixedPrecisionPolicy", "fully_shard"],
    "distributed.fsdp.fully_sharded_data_parallel": ["FullyShardedDataParallel"],
    "distributed._composable.fsdp": ["fully_shard"],
    "distributed._functional_collectives": ["wait_tensor", "all_to_all_single_autograd"],
    "distributed.algorithms.join": ["Join", "Joinable", "JoinHook"],
    "distributed.algorithms": ["Join", "Joinable", "JoinHook"],
    "distributed.checkpoint.hf_storage": ["HuggingFaceStorageReader",
                                          "HuggingFaceStorageWriter"],
}


@pytest.mark.parametrize("path", sorted(NAMES))
def test_names_exist_as_in_torch(path):
    ours = importlib.import_module("ember." + path)
    theirs = importlib.import_module("torch." + path)
    for name in NAMES[path]:
        assert hasattr(theirs, name), f"torch.{path}.{name}"
        assert hasattr(ours, name), f"ember.{path}.{name}"


@pytest.mark.parametrize("use", [
    lambda: importlib.import_module("ember.distributed.fsdp").FullyShardedDataParallel(None),
    lambda: importlib.import_module("ember.distributed.fsdp").fully_shard(None),
    lambda: importlib.import_module("ember.distributed.fsdp").MixedPrecisionPolicy(),
    lambda: importlib.import_module(
        "ember.distributed._functional_collectives").all_to_all_single_autograd(
            ember.ones(2), None, None, None),
    lambda: importlib.import_module("ember.distributed.algorithms").Join([]).__enter__(),
    lambda: importlib.import_module(
        "ember.distributed.checkpoint.hf_storage").HuggingFaceStorageReader("x"),
])
def test_using_them_raises(use):
    with pytest.raises(NotImplementedError, match="ember.distributed has no DTensor"):
        use()


def test_what_ember_can_answer():
    collectives = importlib.import_module("ember.distributed._functional_collectives")
    t = ember.ones(2)
    assert collectives.wait_tensor(t) is t
    join = importlib.import_module("ember.distributed.algorithms").Join([], enable=False)
    with join:
        pass
    fsdp = importlib.import_module("ember.distributed.fsdp")
    assert not isinstance(ember.nn.Linear(1, 1), fsdp.FSDPModule)
