"""torch.autograd.functional: Jacobians, Hessians and their products with vectors.

Everything but forward-mode Jacobians is built on autograd.grad (reverse mode):
- vjp: v^T J is one backward pass seeded with v;
- jacobian: one backward pass per output element, the rows stacked;
- jvp: J u by the double-backward trick. The vjp g(w) = w^T J is linear in the seed w, so
  differentiating it with respect to w, seeded with u, gives J u;
- jacobian with strategy="forward-mode": one forward-AD pass (ember/autograd/forward_ad.py)
  per input element, the columns stacked;
- hessian: the Jacobian of the gradient; vhp / hvp: a backward through the gradient, hvp by
  the same trick as jvp.

Inputs and `v` are a Tensor or a tuple of Tensors, and results follow that shape: a tuple
exactly where the function's inputs (or outputs) were given as a tuple. Results are detached
unless create_graph=True. strict=True raises instead of returning zeros for an input the
output does not depend on.
"""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import zeros_like
from ..ops.joining import stack
from . import grad as autograd_grad
from ._forward import dual
from .forward_ad import make_dual, unpack_dual
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_OUTPUTS = "outputs of the user-provided function"


def _as_tuple(value, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple); anything but tensors is a TypeError."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, item in enumerate(values):
        if not isinstance(item, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where} has type {type(item)}.")
    return is_tuple, values


def _unpack(results, is_tuple):
    """Undo _as_tuple on results; is_tuple may be a pair (outer, inner) for nested results."""
    outer, inner = is_tuple if isinstance(is_tuple, tuple) else (is_tuple, True)
    if not inner:
        results = tuple(r[0] for r in results)
    return results if outer else results[0]


def _differentiable_inputs(inputs, create_graph: bool, need_graph: bool = True) -> tuple:
    """Fresh leaves to differentiate with respect to; with create_graph, inputs that already
    require grad stay connected to the caller's graph (through a view)."""
    return tuple(x.view_as(x) if create_graph and x.requires_grad
                 else x.detach().requires_grad_(need_graph) for x in inputs)


def _detached(results, create_graph: bool):
    if create_graph:
        return results
    return tuple(r.detach() if isinstance(r, Tensor) else _detached(r, False) for r in results)


def _check_v(v, reference, is_reference_tuple: bool) -> None:
    if len(v) != len(reference):
        if is_reference_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(reference)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (vi, ref) in enumerate(zip(v, reference)):
        if vi.shape != ref.shape:
            entry = f"Entry {i} in " if is_reference_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {ref.size()} but got "
                               f"{vi.size()}.")


def _prepare_v(v, reference, is_reference_tuple, fn_name, create_graph, reference_is):
    """v as a tuple checked against `reference`; None is allowed only when reference is one
    single-element tensor (reference_is names it in the error)."""
    if v is None:
        if len(reference) != 1 or reference[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {reference_is} a single Tensor "
                               "with a single element.")
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _differentiable_inputs(v, create_graph, need_graph=False)
    _check_v(v, reference, is_reference_tuple)
    return v


_STRICT_NOT_DIFFERENTIABLE = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when running "
               "in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should ensure "
               "that your function is thrice differentiable and that the hessian depends on the "
               "inputs.",
}


def _check_requires_grad(tensors, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_NOT_DIFFERENTIABLE[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None) -> tuple:
    """autograd.grad over the outputs that require grad; None for unreachable inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, seeds = zip(*pairs)
    return autograd_grad(outs, inputs, seeds, retain_graph=retain_graph,
                         create_graph=create_graph, allow_unused=True)


_STRICT_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _zeros_for_missing(grads, references, strict: bool, create_graph: bool, stage: str):
    """Replace None gradients by zeros shaped like the reference (strict: raise instead)."""
    result = []
    for i, (g, ref) in enumerate(zip(grads, references)):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_INDEPENDENT[stage].format(i=i))
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        result.append(g)
    return tuple(result)


def _seeded_pass(outputs, wrt, v, references, create_graph: bool, strict: bool, stage: str):
    """The last backward pass of jvp / vhp / hvp: d outputs / d wrt seeded with v, zeros (or
    strict's error) for what does not depend on it; recorded only when asked for."""
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(outputs, wrt, v, create_graph=create_graph)
        return _zeros_for_missing(grads, references, strict, create_graph, stage)


def _pair(outputs, is_outputs_tuple, result, is_result_tuple, create_graph: bool) -> tuple:
    """(function output, product) as the caller gave them: tuples or single tensors."""
    return (_unpack(_detached(outputs, create_graph), is_outputs_tuple),
            _unpack(_detached(result, create_graph), is_result_tuple))


def _call(func, inputs, fn_name: str, strict: bool) -> tuple[bool, tuple]:
    is_tuple, outputs = _as_tuple(func(*inputs), _OUTPUTS, fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def _call_scalar(func, inputs, fn_name: str, strict: bool) -> tuple:
    """The function's output, which must be one single-element tensor (hessian, vhp, hvp)."""
    is_tuple, outputs = _call(func, inputs, fn_name, strict)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outputs


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _differentiable_inputs(inputs, create_graph)
        is_outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, "vjp", create_graph,
                       "the user-provided function returns")
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "back")
    return _pair(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _differentiable_inputs(inputs, create_graph)
        v = _prepare_v(v, inputs, is_inputs_tuple, "jvp", create_graph,
                       "the input to the user-provided function is")
        is_outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        # The backward is linear in its seed: any finite seed works, zeros are simplest.
        seeds = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, seeds, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    result = _seeded_pass(grad_inputs, seeds, v, outputs, create_graph, strict, "back_trick")
    return _pair(outputs, is_outputs_tuple, result, is_outputs_tuple, create_graph)


def _jacobian_rows(out, inputs, create_graph: bool, strict: bool, i: int) -> tuple:
    """d out / d input for every input: one backward pass per element of `out`."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(out.numel()):
        grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent "
                                       f"of input {j}. This is not allowed in strict mode.")
                g = zeros_like(x)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[j].append(g)
    return tuple(stack(r).view(tuple(out.shape) + tuple(x.shape)) if r
                 else x.new_zeros(tuple(out.shape) + tuple(x.shape))
                 for r, x in zip(rows, inputs))


def forward_pass(call, inputs: tuple, tangents: dict) -> tuple[list, list]:
    """Forward mode: call(*inputs) in a dual level of its own, where inputs[j] carries the
    tangent tangents[j]; returns the flat outputs call gives and their tangents (None for
    an output the tangents do not reach). Such levels nest (jvp of jvp)."""
    level = dual.open_level()
    try:
        duals = [make_dual(x, tangents[j], level=level.number) if j in tangents else x
                 for j, x in enumerate(inputs)]
        unpacked = [unpack_dual(out, level=level.number) for out in call(*duals)]
    finally:
        dual.close_level(level)
    return [primal for primal, _ in unpacked], [tangent for _, tangent in unpacked]


def jacobian_columns(call, inputs: tuple) -> tuple[list, list]:
    """(outputs, jacobians) in forward mode: one pass per input element, with that element's
    one-hot tangent; jacobians[i][j] has shape outputs[i].shape + inputs[j].shape."""
    columns = [[] for _ in inputs]      # columns[j][k]: the output tangents for e_k of input j
    outputs = None
    for j, x in enumerate(inputs):
        for k in range(x.numel()):
            one_hot = x.detach().new_zeros(x.numel())
            one_hot[k] = 1
            outputs, tangents = forward_pass(call, inputs, {j: one_hot.view(x.shape)})
            columns[j].append([zeros_like(out) if t is None else t
                               for out, t in zip(outputs, tangents)])
    if outputs is None:                 # no input has an element
        outputs = [out for out in call(*inputs)]
    jacobians = [[stack([column[i] for column in columns[j]], -1).view(
                      tuple(out.shape) + tuple(x.shape)) if columns[j]
                  else out.new_zeros(tuple(out.shape) + tuple(x.shape))
                  for j, x in enumerate(inputs)] for i, out in enumerate(outputs)]
    return outputs, jacobians


def _check_strategy(strategy: str, vectorize: bool, hint: bool) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        message = 'Expected strategy to be either "forward-mode" or "reverse-mode".'
        if hint:
            message += (' Hint: If your function has more outputs than inputs, "forward-mode" '
                        'tends to be more performant. Otherwise, prefer to use "reverse-mode".')
        raise AssertionError(message)
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """The Jacobian of `func` at `inputs`: for output i and input j a tensor of shape
    outputs[i].shape + inputs[j].shape. "reverse-mode" runs one backward pass per output
    element, "forward-mode" (which torch allows only with vectorize=True) one forward-AD
    pass per input element. vectorize only changes how torch batches those passes; ember
    runs them one by one with the same result."""
    _check_strategy(strategy, vectorize, hint=True)
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either "
                           "set `strict=False` or `vectorize=False`.")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      "and `strategy=\"forward-mode\"` are not supported "
                                      "together (yet). Please either set `create_graph=False` "
                                      "or `strategy=\"reverse-mode\"`.")
        is_outputs_tuple = []

        def call(*x):
            is_tuple, outputs = _call(func, x, "jacobian", strict)
            is_outputs_tuple[:] = [is_tuple]
            return outputs
        with enable_grad():
            _, columns = jacobian_columns(call, _differentiable_inputs(inputs, False))
        result = tuple(tuple(row) for row in columns)
        return _unpack(_detached(result, False), (is_outputs_tuple[0], is_inputs_tuple))
    with enable_grad():
        inputs = _differentiable_inputs(inputs, create_graph)
        is_outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        result = tuple(_jacobian_rows(out, inputs, create_graph, strict, i)
                       for i, out in enumerate(outputs))
    return _unpack(_detached(result, create_graph), (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar `func`: the Jacobian of its gradient. For inputs i and j a
    tensor of shape inputs[i].shape + inputs[j].shape."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    _check_strategy(outer_jacobian_strategy, vectorize, hint=False)

    def scalar_func(*x):
        return _call_scalar(func, x, "hessian", strict)[0].squeeze()

    def gradient(*x):
        grads = jacobian(scalar_func, x, create_graph=True)
        _check_requires_grad(grads, "jacobian", strict)
        return grads

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(result, (is_inputs_tuple, is_inputs_tuple))


def _gradient_at(func, inputs, v, fn_name: str, create_graph: bool, strict: bool):
    """Shared start of vhp / hvp: (output, inputs, v, the gradient with its graph)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _differentiable_inputs(inputs, create_graph)
    v = _prepare_v(v, inputs, is_inputs_tuple, fn_name, create_graph,
                   "the input to the user-provided function is")
    outputs = _call_scalar(func, inputs, fn_name, strict)
    gradient = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(gradient, "jacobian", strict)
    return is_inputs_tuple, outputs, inputs, v, gradient


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H): a backward pass through the gradient, seeded with v."""
    with enable_grad():
        is_inputs_tuple, outputs, inputs, v, gradient = _gradient_at(
            func, inputs, v, "vhp", create_graph, strict)
    result = _seeded_pass(gradient, inputs, v, inputs, create_graph, strict, "double_back")
    return _pair(outputs, False, result, is_inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v), by the double-backward trick on the gradient (equal to vhp for
    twice continuously differentiable functions, whose Hessian is symmetric)."""
    with enable_grad():
        is_inputs_tuple, outputs, inputs, v, gradient = _gradient_at(
            func, inputs, v, "hvp", create_graph, strict)
        seeds = tuple(zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _grad(gradient, inputs, seeds, create_graph=True)
        _check_requires_grad(gradient, "hessian", strict)
    result = _seeded_pass(double_back, seeds, v, inputs, create_graph, strict,
                          "double_back_trick")
    return _pair(outputs, False, result, is_inputs_tuple, create_graph)
