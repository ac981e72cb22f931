"""torch.overrides' __torch_function__ protocol for library functions, torch function modes
(refused), and the DTensor names of torch.distributed.tensor (placements real, DTensor and
meshes refused), against torch."""
import pytest
import torch

import ember
from oracle import check_error


class Logged:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("Logged", func.__name__, [t.__name__ for t in types], len(args))


class LoggedChild(Logged):
    pass


class Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def _library_function(lib):
    def scale(x, y):
        if lib.overrides.has_torch_function((x, y)):
            return lib.overrides.handle_torch_function(scale, (x, y), x, y)
        return "plain"
    return scale


@pytest.mark.parametrize("args", [(Logged(), 1), (1, LoggedChild()),
                                  (Logged(), LoggedChild()), (2, 3)],
                         ids=["first", "subclass", "subclass first", "none"])
def test_library_functions_dispatch_as_torch(args):
    assert _library_function(ember)(*args) == _library_function(torch)(*args)


def test_protocol_queries_as_torch():
    def fn(lib):
        o = lib.overrides
        t = lib.ones(1)
        return (o.is_tensor_like(t), o.is_tensor_like(3), o.is_tensor_like(Logged()),
                o.has_torch_function((t,)), o.has_torch_function((Logged(), t)),
                o.has_torch_function_unary(t), o.has_torch_function_variadic(2, Logged()))
    assert fn(ember) == fn(torch)


def test_no_implementation_raises_type_error():
    check_error(lambda lib: _library_function(lib)(Declines(), 1), TypeError,
                "^no implementation found for '.*scale' on types that implement "
                "__torch_function__: ")


def test_torch_function_modes_are_refused():
    class Mode(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    with pytest.raises(NotImplementedError, match="torch function modes are not supported"):
        with Mode():
            pass
    from ember._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
    with pytest.raises(NotImplementedError, match="^TransformGetItemToIndex"):
        with TransformGetItemToIndex():
            pass


def test_placements_as_torch():
    def fn(lib):
        from importlib import import_module
        tensor = import_module(lib.__name__ + ".distributed.tensor")
        strided = import_module(lib.__name__ + ".distributed.tensor.placement_types")
        placements = [tensor.Shard(0), tensor.Shard(2), tensor.Replicate(), tensor.Partial(),
                      tensor.Partial("max"), strided._StridedShard(1, split_factor=4)]
        return ([repr(p) for p in placements], [str(p) for p in placements],
                [p.is_shard() for p in placements], [p.is_replicate() for p in placements],
                [p.is_partial() for p in placements], tensor.Shard(0) == tensor.Shard(0),
                tensor.Shard(0) == tensor.Replicate(), tensor.Partial() == tensor.Partial("sum"),
                hash(tensor.Shard(1)) == hash(tensor.Shard(1)), tensor.Shard(1).is_shard(1),
                isinstance(lib.ones(2), tensor.DTensor))
    assert fn(ember) == fn(torch)


def test_dtensor_and_meshes_are_refused():
    import ember.distributed.tensor as dt
    from ember.distributed.tensor._utils import compute_local_shape_and_global_offset
    for make in (lambda: dt.DTensor(), lambda: dt.DTensor.from_local(ember.ones(2)),
                 lambda: dt.distribute_tensor(ember.ones(2)), lambda: dt.ones(2),
                 lambda: dt.init_device_mesh("cpu", (2,)), lambda: dt.DeviceMesh("cpu", [0, 1]),
                 lambda: compute_local_shape_and_global_offset((4,), None, ())):
        with pytest.raises(NotImplementedError, match="ember.distributed has no DTensor"):
            make()
