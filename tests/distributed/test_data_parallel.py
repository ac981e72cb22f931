"""DataParallel in one process against torch's (which, without GPUs, only calls the
wrapped module), and the engine's end-of-backward callbacks that DDP relies on."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd import engine


def _pair():
    """The same small model in torch and ember, wrapped in DataParallel."""
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    e_model = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.ReLU(), ember.nn.Linear(3, 2))
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    return torch.nn.DataParallel(t_model), ember.nn.DataParallel(e_model)


def test_forward_and_gradients_match_torch():
    t_dp, e_dp = _pair()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    t_out, e_out = t_dp(torch.tensor(x)), e_dp(ember.tensor(x))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6)
    t_out.sum().backward()
    e_out.sum().backward()
    for (name, tp), ep in zip(t_dp.named_parameters(), e_dp.parameters()):
        # float32 sums in a different order than torch's: a few units in the last place
        np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=name)


def test_state_dict_keys_and_repr_match_torch():
    t_dp, e_dp = _pair()
    assert list(e_dp.state_dict()) == list(t_dp.state_dict())
    assert list(e_dp.state_dict())[0] == "module.0.weight"
    assert repr(e_dp) == repr(t_dp)
    assert e_dp.device_ids == t_dp.device_ids == []
    assert ember.nn.parallel.DataParallel is ember.nn.DataParallel


def test_load_prefixed_checkpoint():
    _, e_dp = _pair()
    _, other = _pair()
    other.load_state_dict(e_dp.state_dict())
    np.testing.assert_array_equal(other.module[0].weight.detach().numpy(),
                                  e_dp.module[0].weight.detach().numpy())
    assert other.module is other._modules["module"]


def test_missing_attribute_hint():
    t_dp, e_dp = _pair()
    with pytest.raises(AttributeError) as t_error:
        t_dp.weight_of_layer  # noqa: B018
    with pytest.raises(AttributeError, match=f"^{t_error.value}$"):
        e_dp.weight_of_layer  # noqa: B018 (an attribute nobody has: torch's message only)
    plain = ember.nn.DataParallel(ember.nn.Linear(2, 2))
    with pytest.raises(AttributeError, match=r"^'DataParallel' object has no attribute "
                       r"'weight'\. The wrapped model is .*use \.module\.weight"):
        plain.weight  # noqa: B018
    assert plain.module.weight.shape == (2, 2)


def test_final_callbacks_run_once_after_all_gradients():
    w = ember.ones(3, requires_grad=True)
    v = ember.ones(3, requires_grad=True)
    seen = []

    def queue(grad):
        engine.queue_callback(lambda: seen.append((w.grad is not None,
                                                            v.grad is not None)))
    w.register_hook(queue)
    ((w * 2).sum() + (v * 3).sum()).backward()
    assert seen == [(True, True)]
    assert engine._PASSES.final_callbacks == []
    (v * 3).sum().backward()  # no callback queued: nothing runs again
    assert seen == [(True, True)]


def test_final_callbacks_cleared_when_backward_fails():
    w = ember.ones(3, requires_grad=True)

    def fail(grad):
        engine.queue_callback(lambda: None)
        raise ValueError("hook failed")
    w.register_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        (w * 2).sum().backward()
    assert engine._PASSES.final_callbacks == []
