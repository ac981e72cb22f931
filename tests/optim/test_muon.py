"""ember.optim.Muon against torch.optim.Muon: same parameters and momentum buffers.

torch runs the Newton-Schulz iteration in bfloat16; ember rounds every intermediate to
bfloat16 the same way, so small matrices match bit for bit. On larger ones the float32
accumulation order of the matmuls (oneDNN's in torch, BLAS's in ember) sometimes rounds
an entry to the neighbouring bfloat16 value, so those compare to about one bfloat16 ulp.
"""
import io

import numpy as np
import pytest
import torch
from test_adafactor import (assert_same_run, check_complex_refused, check_loads_torch_state_dict,
                            check_lr_scheduler, check_repr, check_tensor_lr,
                            check_zero_and_non_contiguous_gradients)
from oracle import check_error
from test_optimizers import assert_close, assert_same_state, make_params, run, set_grads

import ember
import ember.optim

# Wide, tall, square, a single row and a single column.
SHAPES = [(3, 4), (5, 3), (4, 4), (1, 6), (6, 1)]
TOL = dict(rtol=1e-6, atol=1e-7)

CASES = [
    dict(),
    dict(lr=0.02, weight_decay=0.0, nesterov=False),
    dict(lr=0.02, momentum=0.3),                       # lerp weights on the other side of 0.5
    dict(lr=0.05, adjust_lr_fn="match_rms_adamw"),
    dict(lr=0.05, adjust_lr_fn="original", ns_steps=3, eps=1e-3,
         ns_coefficients=(2.0, -1.5, 0.5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", CASES, ids=[str(k) for k in CASES])
def test_matches_torch(kwargs, dtype):
    assert_same_run(*(run(lib, "Muon", kwargs, dtype=dtype, shapes=SHAPES)
                      for lib in (ember, torch)), TOL)


@pytest.mark.parametrize("shape", [(64, 32), (96, 128)])
def test_large_matrix_one_step(shape):
    """One step on larger matrices agrees to about one bfloat16 ulp of the update."""
    lr = 0.05
    (eparams, eopt), (tparams, topt) = (run(lib, "Muon", dict(lr=lr), steps=1, shapes=[shape])
                                        for lib in (ember, torch))
    adjusted = lr * max(1, shape[0] / shape[1]) ** 0.5
    assert_close(eparams[0], tparams[0], rtol=0, atol=adjusted * 2 ** -7)
    assert_same_state(eopt, topt)


def test_update_is_nearly_orthogonal():
    """With lr 1, no momentum and no weight decay the step is the Newton-Schulz output,
    whose singular values land roughly in [0.5, 1.5] (Keller Jordan's coefficients)."""
    values = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    p = ember.tensor(values, requires_grad=True)
    opt = ember.optim.Muon([p], lr=1.0, weight_decay=0.0, momentum=0.0)
    p.grad = ember.tensor(values @ np.diag(np.arange(1, 9, dtype=np.float32)))
    opt.step()
    step = (values - p.detach().numpy()) / 2 ** 0.5     # the "original" lr adjustment
    singular = np.linalg.svd(step, compute_uv=False)
    assert singular.min() > 0.5 and singular.max() < 1.5


def test_param_groups_and_empty_matrix():
    def run_groups(lib):
        params = make_params(lib, shapes=SHAPES[:4] + [(0, 3)])
        opt = lib.optim.Muon([{"params": params[:2], "lr": 0.1, "weight_decay": 0.2},
                              {"params": params[2:3], "nesterov": False, "momentum": 0.5},
                              {"params": params[3:], "adjust_lr_fn": "match_rms_adamw"}],
                             lr=0.03)
        for step in range(10):
            set_grads(params, step)
            opt.step()
        return params, opt
    assert_same_run(run_groups(ember), run_groups(torch), TOL)


def test_state_layout_and_skipped_parameters():
    params = make_params(ember, shapes=[(3, 4), (2, 2)])
    opt = ember.optim.Muon(params)
    params[0].grad = ember.ones(3, 4)
    opt.step()
    assert list(opt.state[params[0]]) == ["momentum_buffer"]
    assert opt.state[params[0]]["momentum_buffer"].dtype == ember.float32
    assert params[1] not in opt.state


def test_zero_and_non_contiguous_gradients():
    """A zero gradient is clamped by eps before the Newton-Schulz scaling: no nan."""
    check_zero_and_non_contiguous_gradients("Muon", dict(lr=0.1), [(3, 4), (2, 5)], TOL)


def test_tensor_lr():
    check_tensor_lr("Muon", SHAPES, TOL)


def test_repr_and_group_keys():
    check_repr("Muon", SHAPES, adjust_lr_fn="match_rms_adamw")


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs,match", [
    (dict(lr=-1.0), r"^Learning rate should be >= 0 but is: -1.0"),
    (dict(momentum=-0.5), r"^momentum should be >= 0 but is: -0.5"),
    (dict(weight_decay=-0.1), r"^weight decay should be >= 0 but is: -0.1"),
    (dict(adjust_lr_fn="sqrt"), r"^Adjust learning rate function sqrt is not supported"),
])
def test_constructor_errors(kwargs, match):
    check_error(lambda lib: lib.optim.Muon(make_params(lib, shapes=SHAPES), **kwargs), ValueError,
                match)


def test_tensor_lr_must_have_one_element():
    check_error(lambda lib: lib.optim.Muon(make_params(lib, shapes=SHAPES),
                                           lr=lib.tensor([0.1, 0.2])),
                ValueError, "^Tensor lr must be 1-element")


@pytest.mark.parametrize("shape", [(5,), (), (2, 3, 4)])
def test_only_matrices(shape):
    check_error(lambda lib: lib.optim.Muon(make_params(lib, shapes=[(3, 4), shape])), ValueError,
                r"^Muon only supports 2D parameters whereas we found a parameter with size: "
                + re_size(shape))


def re_size(shape):
    return r"torch\.Size\(\[" + ", ".join(map(str, shape)) + r"\]\)"


def test_vector_added_later_fails_at_step():
    """Only the constructor checks shapes; a vector added with add_param_group fails in step()."""
    def step(lib):
        params = make_params(lib, shapes=[(3, 4), (5,)])
        opt = lib.optim.Muon(params[:1])
        opt.add_param_group({"params": params[1:]})
        set_grads(params, 1)
        opt.step()
    check_error(step, ValueError, "^Param gradient must be a 2D matrix")


@pytest.mark.parametrize("kwargs,match", [
    (dict(ns_steps=100), "^Number of steps must be less than 100 for computational efficiency"),
    (dict(ns_coefficients=(3.0, -4.0)), "^Coefficients must be a tuple of exactly 3 values"),
])
def test_newton_schulz_errors_at_step(kwargs, match):
    def step(lib):
        params = make_params(lib, shapes=[(3, 4)])
        opt = lib.optim.Muon(params, **kwargs)
        set_grads(params, 1)
        opt.step()
    check_error(step, ValueError, match)


def test_complex_parameters_are_refused():
    check_complex_refused("Muon")


# ---------------------------------------------------------------- state_dict and schedulers
def test_state_dict_through_save_and_load():
    """A state_dict saved with ember.save and read back with ember.load resumes the run:
    the resumed optimizer and the original take identical steps."""
    params, opt = run(ember, "Muon", dict(lr=0.05), steps=5, shapes=SHAPES)
    buffer = io.BytesIO()
    ember.save(opt.state_dict(), buffer)
    buffer.seek(0)
    copies = [ember.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    resumed = ember.optim.Muon(copies, lr=0.05)
    resumed.load_state_dict(ember.load(buffer))
    for step in range(5, 8):
        for ps, o in ((params, opt), (copies, resumed)):
            set_grads(ps, step)
            o.step()
    for a, b in zip(params, copies):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_loads_torch_state_dict():
    # With these options one entry of the (4, 4) matrix meets a bfloat16 rounding tie at
    # step 6 (see the module docstring): allow two bfloat16 ulps of a step.
    kwargs = dict(lr=0.05, nesterov=False)
    check_loads_torch_state_dict("Muon", kwargs, SHAPES, dict(rtol=0, atol=0.05 * 2 ** -7))


def test_with_lr_scheduler():
    check_lr_scheduler("Muon", dict(lr=0.1), SHAPES, TOL,
                       lambda schedulers, opt: schedulers.CosineAnnealingLR(opt, T_max=8))
