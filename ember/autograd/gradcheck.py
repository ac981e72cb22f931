"""gradcheck / gradgradcheck: compare autograd's Jacobian with finite differences."""
from __future__ import annotations

import numpy as np

from .. import _sampling
from .._random import default_generator
from .._tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when analytical and numerical gradients differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _differentiable_outputs(fn, inputs):
    return [o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor) and o.requires_grad]


def _output_values(fn, inputs, out_index: int) -> np.ndarray:
    return _differentiable_outputs(fn, inputs)[out_index]._data.astype(np.float64).ravel()


def _numerical_jacobian(fn, inputs, wrt, out_index, eps):
    """d out[out_index] / d inputs[wrt], by central differences, as (out.numel, in.numel).

    The input is perturbed through its array, so autograd sees no in-place op.
    """
    flat = inputs[wrt]._data.reshape(-1)
    columns = []
    for k in range(flat.size):
        orig = flat[k].item()
        flat[k] = orig + eps
        plus = _output_values(fn, inputs, out_index)
        flat[k] = orig - eps
        minus = _output_values(fn, inputs, out_index)
        flat[k] = orig
        columns.append((plus - minus) / (2 * eps))
    if columns:
        return np.stack(columns, axis=1)
    return np.zeros((_output_values(fn, inputs, out_index).size, 0))


def _analytical_jacobian(fn, inputs, wrt, out_index):
    from . import grad
    out = _differentiable_outputs(fn, inputs)[out_index]
    rows = []
    for k in range(out.numel()):
        seed = Tensor._wrap(np.zeros_like(out._data))
        seed._data.reshape(-1)[k] = 1
        (g,) = grad(out, inputs[wrt], seed, retain_graph=True, allow_unused=True)
        rows.append(np.zeros(inputs[wrt].numel()) if g is None
                    else g._data.astype(np.float64).ravel())
    return np.stack(rows) if rows else np.zeros((0, inputs[wrt].numel()))


def _forward_jacobian(fn, inputs, wrt, out_index):
    """d out[out_index] / d inputs[wrt] in forward mode: one run of fn per input element,
    with that element's one-hot tangent."""
    from . import forward_ad

    index = [i for i, o in enumerate(_as_tuple(fn(*inputs)))
             if isinstance(o, Tensor) and o.requires_grad][out_index]
    x = inputs[wrt]
    columns = []
    for k in range(x.numel()):
        one_hot = np.zeros(x.shape, dtype=x._data.dtype)
        one_hot.reshape(-1)[k] = 1
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(x, Tensor._wrap(one_hot))
            out = _as_tuple(fn(*inputs[:wrt], dual, *inputs[wrt + 1:]))[index]
            t = forward_ad.unpack_dual(out).tangent
            columns.append(np.zeros(out.numel()) if t is None
                           else t.detach()._data.astype(np.float64).ravel())
    if columns:
        return np.stack(columns, axis=1)
    return np.zeros((_output_values(fn, inputs, out_index).size, 0))


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None) -> bool:
    """True when the analytical gradients of `func` at `inputs` match finite differences."""
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in wrt:
        if inputs[i].dtype.name != "float64":
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of "
                          "double precision floating point.", UserWarning)
    modes = [("", _analytical_jacobian)] if check_backward_ad else []
    if check_forward_ad:
        modes.append(("computed with forward mode ", _forward_jacobian))
    n_outputs = len(_differentiable_outputs(func, inputs))
    for o in range(n_outputs):
        for i in wrt:
            numerical = _numerical_jacobian(func, inputs, i, o, eps)
            for mode, jacobian in modes:
                analytical = jacobian(func, inputs, i, o)
                if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        f"Jacobian {mode}mismatch for output {o} with respect to input {i},\n"
                        f"numerical:{numerical}\nanalytical:{analytical}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, **kwargs) -> bool:
    """gradcheck applied to the gradient of `func` (checks second derivatives)."""
    from . import grad
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(func, inputs)
    if grad_outputs is None:        # as torch's: uniform in [-1, 1), from the default generator
        grad_outputs = tuple(_uniform_like(o).requires_grad_(True) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    diff_positions = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]

    def first_grads(*args):
        ins, gos = args[:n_inputs], args[n_inputs:]
        outs = _differentiable_outputs(func, ins)
        grads = grad(outs, [ins[i] for i in diff_positions], gos, create_graph=True,
                     allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


def _uniform_like(t: Tensor) -> Tensor:
    """Draws from U(-1, 1) of t's shape and floating or complex dtype (float64 for other
    dtypes)."""
    dtype = t._data.dtype if t._data.dtype.kind in "fc" else np.dtype(np.float64)
    return Tensor._wrap(_sampling.real_parts(_sampling.uniform, default_generator, t.shape,
                                             dtype, -1, 1))
