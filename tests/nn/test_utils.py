"""nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters."""
import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import check, check_error


def _params_with_grads(lib, dtype="float32", scale=1.0):
    rng = np.random.default_rng(0)
    params = []
    for shape in [(3, 4), (4,), (2, 2, 2)]:
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape).astype(dtype)))
        p.grad = lib.tensor((scale * rng.standard_normal(shape)).astype(dtype))
        params.append(p)
    params.append(lib.nn.Parameter(lib.ones(2, dtype=getattr(lib, dtype))))  # no grad
    return params


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0),
                                                (0.5, float("inf")), (0.1, 3), (2, "inf")])
def test_clip_grad_norm(dtype, max_norm, norm_type):
    tp, ep = _params_with_grads(torch, dtype), _params_with_grads(ember, dtype)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    en = ember.nn.utils.clip_grad_norm_(ep, max_norm, norm_type)
    assert en.dtype == ember.float32 if dtype == "float32" else ember.float64
    np.testing.assert_allclose(en.item(), tn.item(), rtol=1e-5)
    for t, e in zip(tp, ep):
        if t.grad is not None:
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_edge_cases():
    assert ember.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    p = ember.nn.Parameter(ember.ones(2))
    p.grad = ember.tensor([3.0, 4.0])
    assert ember.nn.utils.clip_grad_norm_(p, 1.0, foreach=True).item() == 5.0
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)
    for lib in (torch, ember):
        q = lib.nn.Parameter(lib.ones(2))
        q.grad = lib.tensor([float("inf"), 1.0])
        with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from "
                                               "`parameters` is non-finite"):
            lib.nn.utils.clip_grad_norm_([q], 1.0, error_if_nonfinite=True)
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        ember.nn.utils.clip_grad_norm(p, 1.0)


def test_clip_grad_value():
    tp, ep = _params_with_grads(torch, scale=3.0), _params_with_grads(ember, scale=3.0)
    torch.nn.utils.clip_grad_value_(tp, 0.5)
    ember.nn.utils.clip_grad_value_(ep, 0.5)
    for t, e in zip(tp, ep):
        if t.grad is not None:
            np.testing.assert_array_equal(e.grad.numpy(), t.grad.numpy())


def test_parameters_to_vector_and_back():
    check(lambda lib, a, b: lib.nn.utils.parameters_to_vector([a, b]) * 2, (3, 4), (5,))
    model = ember.nn.Linear(3, 2)
    vec = ember.nn.utils.parameters_to_vector(model.parameters())
    assert vec.shape == (8,) and vec.grad_fn.name() == "CatBackward0"
    new = ember.arange(8, dtype=ember.float32)
    ember.nn.utils.vector_to_parameters(new, model.parameters())
    assert model.weight.detach().numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert model.bias.detach().numpy().tolist() == [6, 7]
    assert isinstance(model.weight, ember.nn.Parameter) and model.weight.requires_grad
    check_error(lambda lib: lib.nn.utils.vector_to_parameters([1.0], []), TypeError,
                "^expected torch.Tensor, but got: list")
