"""The oracle: run the same code on real torch and on ember, compare everything.

    check(lambda lib, x, y: lib.add(x, y), (3, 4), (4,))

`fn(lib, *tensors)` receives the library module (torch or ember) and tensors built
from identical NumPy inputs. Inputs are shapes (random data) or arrays. Values,
shapes and dtypes of the outputs are compared; then, when `grad` is set, the same
random upstream gradient is pushed through both and the input gradients compared.
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

import ember

TOL = {
    "float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2),
    "float32": (1e-5, 1e-4), "float64": (1e-10, 1e-8),
}


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def make_inputs(specs, dtype="float32", seed: int = 0, positive: bool = False):
    """NumPy arrays for `specs`: a shape tuple becomes random data, arrays pass through."""
    r = rng(seed)
    arrays = []
    for spec in specs:
        if isinstance(spec, tuple):
            a = r.standard_normal(spec)
            if positive:
                a = np.abs(a) + 0.1
            arrays.append(a.astype(np.float32 if dtype == "bfloat16" else dtype))
        else:
            arrays.append(np.asarray(spec))
    return arrays


def to_torch(a, requires_grad=False, dtype=None, non_contiguous=False):
    t = torch.from_numpy(np.array(a, order="C", copy=True))
    if dtype == "bfloat16":
        t = t.to(torch.bfloat16)
    if non_contiguous and t.ndim >= 2:
        t = t.transpose(0, 1).contiguous().transpose(0, 1)
    if requires_grad and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
    return t


def to_ember(a, requires_grad=False, dtype=None, non_contiguous=False):
    t = ember.from_numpy(np.array(a, order="C", copy=True))
    if dtype == "bfloat16":
        t = t.to(ember.bfloat16)
    if non_contiguous and t.ndim >= 2:
        t = t.transpose(0, 1).contiguous().transpose(0, 1)
    if requires_grad and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
    return t


def as_numpy(t) -> np.ndarray:
    """Array of a torch or ember tensor (bfloat16 read as float32)."""
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t._is_zerotensor():        # torch's symbolic zeros (some second derivatives)
            return np.zeros(tuple(t.shape), dtype=str(t.dtype).replace("torch.", ""))
        t = t.resolve_conj().resolve_neg()  # lazy conjugate/negative views (complex grads)
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy()
    t = t.detach()
    return (t.float() if t.dtype == ember.bfloat16 else t).numpy()


def dtype_name(t) -> str:
    return str(t.dtype).replace("torch.", "")


def assert_same(e, t, atol, rtol, what="output"):
    """ember value `e` equals torch value `t`: type, shape, dtype and numbers."""
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)), f"{what}: torch gave a sequence, ember {type(e)}"
        assert len(e) == len(t), f"{what}: {len(e)} items vs torch's {len(t)}"
        for i, (ei, ti) in enumerate(zip(e, t)):
            assert_same(ei, ti, atol, rtol, f"{what}[{i}]")
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"{what}: expected a Tensor, got {type(e)}"
        assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} vs torch's {tuple(t.shape)}"
        assert dtype_name(e) == dtype_name(t), f"{what}: dtype {e.dtype} vs torch's {t.dtype}"
        np.testing.assert_allclose(as_numpy(e), as_numpy(t), atol=atol, rtol=rtol,
                                   equal_nan=True, err_msg=what)
        return
    if isinstance(t, float):
        np.testing.assert_allclose(e, t, atol=atol, rtol=rtol, err_msg=what)
        return
    assert e == t, f"{what}: {e!r} vs torch's {t!r}"


def _tensors_in(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _tensors_in(o)]
    return [out] if hasattr(out, "requires_grad") else []


def check(fn, *specs, dtype="float32", grad=True, atol=None, rtol=None, seed=0,
          positive=False, non_contiguous=False, grad_inputs=None, grad2=True):
    """Run fn on torch and ember with the same inputs; compare outputs and gradients.

    grad_inputs: indices of the inputs that should require grad (default: every
    floating input when `grad` is true).
    grad2: with `grad`, also compare the second derivatives (double backward, as
    create_graph=True gives them), wherever torch has them; pass False, with the reason,
    where ember's are known to differ.
    """
    default_atol, default_rtol = TOL[dtype]
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol
    arrays = make_inputs(specs, dtype, seed, positive)
    if grad_inputs is None:
        grad_inputs = range(len(arrays)) if grad else ()
    grad_inputs = set(grad_inputs)
    tin = [to_torch(a, i in grad_inputs, dtype, non_contiguous) for i, a in enumerate(arrays)]
    ein = [to_ember(a, i in grad_inputs, dtype, non_contiguous) for i, a in enumerate(arrays)]
    tout = fn(torch, *tin)
    eout = fn(ember, *ein)
    assert_same(eout, tout, atol, rtol)
    if not grad:
        return eout
    touts = [o for o in _tensors_in(tout) if o.requires_grad]
    eouts = [o for o in _tensors_in(eout) if o.requires_grad]
    assert len(touts) == len(eouts), "different outputs require grad"
    if not touts:
        return eout
    r = rng(seed + 1)
    seeds = [r.standard_normal(tuple(o.shape)).astype(np.float32 if dtype == "bfloat16" else dtype)
             for o in touts]
    torch.autograd.backward(touts, [to_torch(s, dtype=dtype) for s in seeds])
    ember.autograd.backward(eouts, [to_ember(s, dtype=dtype) for s in seeds])
    for i, (te, ee) in enumerate(zip(tin, ein)):
        if i in grad_inputs and te.requires_grad:
            if te.grad is None:
                assert ee.grad is None, f"input {i}: ember has a grad, torch has none"
                continue
            assert ee.grad is not None, f"input {i}: torch has a grad, ember has none"
            assert_same(ee.grad, te.grad, atol * 10, rtol * 10, f"grad of input {i}")
    if grad2 and dtype in ("float32", "float64"):
        _check_second_order(fn, arrays, grad_inputs, dtype, non_contiguous, seeds,
                            atol * 100, rtol * 100, seed)
    return eout


def _second_order(lib, fn, arrays, grad_inputs, dtype, non_contiguous, seeds, seed):
    """d/dx of sum(v * dL/dx) for a random v, where dL/dx is the gradient of the outputs
    against the upstream `seeds`, taken with create_graph=True (None where the first
    gradient does not depend on the inputs)."""
    convert = to_torch if lib is torch else to_ember
    inputs = [convert(a, i in grad_inputs, dtype, non_contiguous) for i, a in enumerate(arrays)]
    wanted = [x for x in inputs if x.requires_grad]
    outs = [o for o in _tensors_in(fn(lib, *inputs)) if o.requires_grad]
    if not wanted or not outs:
        return None
    firsts = lib.autograd.grad(outs, wanted, [convert(s, dtype=dtype) for s in seeds],
                               create_graph=True, allow_unused=True)
    r = rng(seed + 2)
    total = None
    for g in firsts:
        if g is not None and g.requires_grad:
            v = convert(r.standard_normal(tuple(g.shape)).astype(dtype), dtype=dtype)
            term = (g * v).sum()
            total = term if total is None else total + term
    if total is None:
        return None
    return lib.autograd.grad(total, wanted, allow_unused=True)


def _check_second_order(fn, arrays, grad_inputs, dtype, non_contiguous, seeds, atol, rtol,
                        seed):
    """torch's and ember's second derivatives agree; a missing one counts as zeros (torch
    returns None where a first derivative is constant, ember may return zeros)."""
    args = (fn, arrays, grad_inputs, dtype, non_contiguous, seeds, seed)
    try:
        t2 = _second_order(torch, *args)
    except RuntimeError:      # torch has no double backward here (an op without one, or
        return                # reentrant checkpointing): nothing to compare
    e2 = _second_order(ember, *args)
    if t2 is None:                    # torch's gradient is not differentiable here
        return
    if e2 is None:
        assert all(g is None or not np.any(as_numpy(g)) for g in t2), \
            "second derivatives: torch has some, ember's gradient is not differentiable"
        return
    for i, (tg, eg) in enumerate(zip(t2, e2)):
        if tg is None and eg is None:
            continue
        tv = np.zeros_like(as_numpy(eg)) if tg is None else as_numpy(tg)
        ev = np.zeros_like(tv) if eg is None else as_numpy(eg)
        np.testing.assert_allclose(ev, tv, atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=f"second derivative of input {i}")


def same(fn, atol=0.0, rtol=0.0):
    """fn(lib) gives the same results on torch and ember: tensors within atol/rtol (exactly
    by default), other values equal. Warnings either library gives are ignored here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = fn(ember), fn(torch)
    assert_same(e, t, atol, rtol)
    return e


def check_error(fn, error_type, match=None):
    """fn(lib) raises `error_type` on both torch and ember; the messages open alike."""
    import pytest
    with pytest.raises(error_type) as torch_err:
        fn(torch)
    with pytest.raises(error_type) as ember_err:
        fn(ember)
    if match is not None:
        import re
        assert re.search(match, str(torch_err.value)), f"torch said: {torch_err.value}"
        assert re.search(match, str(ember_err.value)), f"ember said: {ember_err.value}"
    return ember_err.value


def check_jvp(fn, *specs, dtype="float32", atol=None, rtol=None, seed=0, positive=False,
              non_contiguous=False, tangent_inputs=None):
    """Forward mode: fn's outputs and their tangents agree with torch's forward AD, each
    floating input (or those at `tangent_inputs`) made dual with the same random tangent."""
    default_atol, default_rtol = TOL[dtype]
    atol = default_atol * 10 if atol is None else atol
    rtol = default_rtol * 10 if rtol is None else rtol
    arrays = make_inputs(specs, dtype, seed, positive)
    if tangent_inputs is None:
        tangent_inputs = [i for i, a in enumerate(arrays) if a.dtype.kind in "fc"]
    r = rng(seed + 3)
    tangents = {i: r.standard_normal(arrays[i].shape).astype(arrays[i].dtype)
                for i in tangent_inputs}

    def run(lib):
        convert = to_torch if lib is torch else to_ember
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            inputs = [convert(a, dtype=dtype, non_contiguous=non_contiguous) for a in arrays]
            for i, tangent in tangents.items():
                inputs[i] = fwad.make_dual(inputs[i], convert(tangent, dtype=dtype))
            outs = _tensors_in(fn(lib, *inputs))
            return [fwad.unpack_dual(o) for o in outs]

    expected, got = run(torch), run(ember)
    assert len(got) == len(expected), "a different number of output tensors"
    for i, ((ep, et), (tp, tt)) in enumerate(zip(got, expected)):
        assert_same(ep, tp, atol, rtol, f"output {i}")
        if tt is None:
            assert et is None or not np.any(as_numpy(et)), f"output {i}: ember has a tangent"
            continue
        assert et is not None, f"output {i}: torch has a tangent, ember has none"
        assert_same(et, tt, atol, rtol, f"tangent of output {i}")


def keeps_warnings_shown_once(call) -> bool:
    """Whether a 'default' warning given before each of three calls of `call` is still shown
    once: an op that runs warnings.catch_warnings resets Python's record of the warnings
    already shown, and the warning then repeats after every call."""
    import warnings

    def warn_here():
        warnings.warn("shown once", UserWarning)

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("default")
        for _ in range(3):
            warn_here()
            call()
    return [str(w.message) for w in shown] == ["shown once"]
