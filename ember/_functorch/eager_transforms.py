"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian and linearize.

grad, vjp and jacrev run on reverse-mode autograd; jvp, jacfwd and linearize on forward-mode
AD (ember/autograd/forward_ad.py): each call opens a dual level of its own, so they nest, and
hessian (jacfwd of jacrev) is forward over reverse, as in torch.

Each reverse-mode transform call is one "level" (_GradLevel): it swaps the differentiated arguments for
fresh leaves, runs the function with grad mode on, and differentiates with autograd.grad.
Levels nest (grad(grad(f))) because the inner level builds the graph of its gradients
(create_graph) whenever an outer level is running or the caller's grad mode is on. On the
way out, a result is detached unless its graph reaches a tensor from outside the level
(the caller's inputs that require grad, an outer level's leaves, a captured parameter),
so at the outermost level results require grad exactly when torch's do.

The reverse-mode levels carry the tangents of enclosing forward levels through their
fresh leaves and unwrapped results, so forward over reverse sees through them.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .._tensor import Tensor
from ..autograd._forward.dual import carry_tangents
from ..autograd.functional import _grad, _jacobian_rows, forward_pass, jacobian_columns
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.graph import AccumulateGrad
from ..ops.creation import zeros_like
from ..utils._pytree import tree_flatten as flatten, tree_map, tree_structure, treespec_pprint
from ..utils._pytree import tree_unflatten as unflatten
from .vmap import check_randomness

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

_JVP = "jvp(f, primals, tangents)"


class _GradLevel:
    """One running grad-like transform: its fresh leaves and whether to keep graphs."""

    active = 0   # how many levels are running (nested transforms)

    def __enter__(self) -> "_GradLevel":
        self.keep_graph = _GradLevel.active > 0 or is_grad_enabled()
        self.leaves: list = []
        self._grad_mode = enable_grad()
        self._grad_mode.__enter__()
        _GradLevel.active += 1
        return self

    def __exit__(self, *exc) -> None:
        _GradLevel.active -= 1
        self._grad_mode.__exit__(*exc)

    def differentiable(self, x):
        """A leaf of this level standing for `x`; it stays connected to x's graph when x
        requires grad and the graph is kept."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad and self.keep_graph:
            leaf = x.view_as(x)
        else:
            leaf = carry_tangents(x, x.detach().requires_grad_())
        self.leaves.append(leaf)
        return leaf

    def grad(self, outputs, inputs, seeds=None, retain_graph=None, create_graph=None) -> list:
        """Gradients of `outputs` with respect to `inputs`; zeros where unreachable."""
        if create_graph is None:
            create_graph = self.keep_graph
        grads = _grad(tuple(outputs), tuple(inputs), seeds, create_graph=create_graph,
                      retain_graph=retain_graph)
        return [zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]

    def unwrap(self, tree):
        """Detach the tensors of `tree` whose graph stays inside this level."""
        own = {id(leaf) for leaf in self.leaves}

        def unwrap_one(t):
            if isinstance(t, Tensor) and t.requires_grad and not (
                    self.keep_graph and _reaches_outside(t, own)):
                # the tangents an enclosing jvp sees were computed in this level too
                return carry_tangents(t, t.detach(), unwrap_one)
            return t

        return tree_map(unwrap_one, tree)


def _reaches_outside(t: Tensor, own_leaves: set) -> bool:
    """Whether t's graph leads to a leaf that is not one of `own_leaves` (ids)."""
    if t.grad_fn is None:
        return id(t) not in own_leaves
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if type(node) is AccumulateGrad:
            if id(node.variable) not in own_leaves:
                return True
            continue
        for edge in node._edges:
            if edge is not None and edge[0] not in seen:
                seen.add(edge[0])
                todo.append(edge[0])
    return False


# ------------------------------------------------------------------------------ argnums

def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _checked_argnums(argnums, num_args: int):
    """argnums (an int or a tuple of ints) made non-negative, after torch's checks."""
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if not argnums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def _differentiable_args(level: _GradLevel, args: tuple, argnums) -> tuple[tuple, Any]:
    """(args with the arguments at argnums replaced by level leaves, those leaves: one
    argument's pytree for an int argnums, a tuple of them for a tuple)."""
    argnums = _checked_argnums(argnums, len(args))
    picked = (argnums,) if isinstance(argnums, int) else argnums
    args = list(args)
    for i in picked:
        args[i] = tree_map(level.differentiable, args[i])
    diff = args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)
    return tuple(args), diff


def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return output


# ------------------------------------------------------------------------- grad

def grad_and_value(func: Callable, argnums=0, has_aux: bool = False) -> Callable:
    """A function returning (gradient of func's scalar output with respect to the arguments
    at argnums, func's output). With has_aux, func returns (output, aux) and the result is
    (gradient, (output, aux))."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _GradLevel() as level:
            args, diff = _differentiable_args(level, args, argnums)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {output.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            flat_diff, spec = flatten(diff)
            grads = unflatten(level.grad([output], flat_diff), spec)
            result = level.unwrap(grads), level.unwrap(output)
            if has_aux:
                return result[0], (result[1], level.unwrap(aux))
            return result

    return wrapper


def grad(func: Callable, argnums=0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of func's scalar output with respect to the
    arguments at argnums ((gradient, aux) with has_aux)."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


# -------------------------------------------------------------------------- vjp

def _check_tensor_outputs(flat_outputs: list, api: str) -> None:
    if not flat_outputs or (len(flat_outputs) == 1 and flat_outputs[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat_outputs})")
    for out in flat_outputs:
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(out)}")


def _check_floating_outputs(flat_outputs: list) -> None:
    for out in flat_outputs:
        if not (out.is_floating_point() or out.is_complex()):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {out.dtype}")


def vjp(func: Callable, *primals, has_aux: bool = False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the vector-Jacobian product with
    respect to every primal, as a tuple shaped like primals. With has_aux, func returns
    (output, aux) and vjp returns (output, vjp_fn, aux)."""
    with _GradLevel() as level:
        primals = tree_map(level.differentiable, primals)
        output, aux = _split_aux(func(*primals), has_aux, "vjp(f, *primals)")
        flat_outputs, output_spec = flatten(output)
        _check_tensor_outputs(flat_outputs, "vjp(f, *primals)")
        _check_floating_outputs(flat_outputs)
    flat_primals, primals_spec = flatten(primals)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        flat_cotangents, cotangent_spec = flatten(cotangents)
        if cotangent_spec != output_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{_pprint(cotangents)}, primal output: {_pprint(output)}")
        if create_graph is None:
            create_graph = is_grad_enabled()
        level.keep_graph = create_graph   # this call decides whether the graph is kept
        grads = level.grad(flat_outputs, flat_primals, flat_cotangents,
                           retain_graph=retain_graph)
        return level.unwrap(unflatten(grads, primals_spec))

    output = level.unwrap(output)
    return (output, vjp_fn, level.unwrap(aux)) if has_aux else (output, vjp_fn)


def _pprint(tree) -> str:
    """A pytree's structure with its leaves shown as *."""
    return treespec_pprint(tree_structure(tree))


# -------------------------------------------------------------------------- jvp

def _check_tensor_list(values: list, argname: str) -> None:
    if not values:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for value in values:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got "
                               f"{type(value)}")


def _check_tangent(primal: Tensor, tangent: Tensor) -> None:
    if not (primal.is_floating_point() or primal.is_complex()):
        raise ValueError("Expected primal to be floating point or complex, but got: "
                         f"{primal.dtype}")
    if tangent.shape != primal.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(primal.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")


def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False,
        has_aux: bool = False):
    """(func(*primals), J tangents): the Jacobian-vector product, in forward mode (one run
    of func with dual inputs). primals and tangents are tuples of the same structure. With
    has_aux, func returns (output, aux) and jvp returns (output, jvp_out, aux)."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_primals, primals_spec = flatten(primals)
    flat_tangents, tangents_spec = flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{primals_spec} and tangents with structure {tangents_spec}")
    _check_tensor_list(flat_primals, "primals")
    _check_tensor_list(flat_tangents, "tangents")
    for primal, tangent in zip(flat_primals, flat_tangents):
        _check_tangent(primal, tangent)
    run = _Run(lambda values: func(*values), primals_spec, has_aux, _JVP)
    outputs, products = forward_pass(run, tuple(flat_primals), dict(enumerate(flat_tangents)))
    if strict and any(p is None for p in products):
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                           "independent of the inputs. This is not allowed with strict=True.")
    products = [zeros_like(out) if p is None else p for p, out in zip(products, outputs)]
    result = unflatten(outputs, run.output_spec), unflatten(products, run.output_spec)
    return result + (run.aux,) if has_aux else result


class _Run:
    """func (taking the inputs' pytree) called on flat inputs, giving flat tensor outputs;
    keeps the output's structure and the aux value (has_aux) of the last call."""

    def __init__(self, func: Callable, inputs_spec, has_aux: bool, api: str):
        self.func, self.inputs_spec, self.has_aux, self.api = func, inputs_spec, has_aux, api
        self.output_spec = self.aux = None

    def __call__(self, *flat_inputs) -> list:
        output, self.aux = _split_aux(self.func(unflatten(list(flat_inputs), self.inputs_spec)),
                                      self.has_aux, self.api)
        flat_outputs, self.output_spec = flatten(output)
        _check_tensor_outputs(flat_outputs, self.api)
        return flat_outputs


def linearize(func: Callable, *primals) -> tuple[Any, Callable]:
    """(func(*primals), jvp_fn): jvp_fn(*tangents) gives the Jacobian-vector product at
    primals. torch replays a graph it traced once; ember runs func again in forward mode
    on each call (same values; func should be free of side effects and randomness)."""
    flat_primals, primals_spec = flatten(primals)
    run = _Run(lambda values: func(*values), primals_spec, False, "linearize")
    output = unflatten(list(run(*flat_primals)), run.output_spec)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError("Expected the tangents "
                               f"{tangents_spec} to have the same argspec as the primals "
                               f"{primals_spec}")
        for i, (primal, tangent) in enumerate(zip(flat_primals, flat_tangents)):
            for what in ("shape", "dtype"):
                if getattr(tangent, what) != getattr(primal, what):
                    raise RuntimeError(f"tangent:{i} with {what} {getattr(tangent, what)} in "
                                       f"flattened pytree doesn't match the {what} "
                                       f"{getattr(primal, what)} of the corresponding primal.")
        outputs, products = forward_pass(run, tuple(flat_primals),
                                         dict(enumerate(flat_tangents)))
        return unflatten([zeros_like(out) if p is None else p
                          for p, out in zip(products, outputs)], run.output_spec)

    return output, jvp_fn


# ------------------------------------------------------------------------ jacobians

def _check_real(api: str, values, is_input: bool) -> None:
    for i, value in enumerate(flatten(values)[0]):
        if isinstance(value, Tensor) and value.is_complex():
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{api}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


def jacrev(func: Callable, argnums=0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable:
    """The Jacobian of func with respect to the arguments at argnums, row by row (one
    backward pass per output element), shaped like torch's result: the output's structure,
    then the differentiated arguments' structure, each entry of shape output.shape +
    input.shape. chunk_size only changes how torch batches those passes, so it is checked
    and otherwise ignored."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    api = "vjp(f, *primals)"

    @functools.wraps(func)
    def wrapper(*args):
        _check_real("jacrev", args, is_input=True)
        with _GradLevel() as level:
            args, diff = _differentiable_args(level, args, argnums)
            output, aux = _split_aux(func(*args), has_aux, api)
            flat_outputs, output_spec = flatten(output)
            _check_tensor_outputs(flat_outputs, api)
            _check_floating_outputs(flat_outputs)
            _check_real("jacrev", flat_outputs, is_input=False)
            flat_diff, diff_spec = flatten(diff)
            jacobians = [unflatten(_jacobian_rows(out, flat_diff, level.keep_graph, False, 0),
                                   diff_spec) for out in flat_outputs]
            jacobian = level.unwrap(unflatten(jacobians, output_spec))
            return (jacobian, level.unwrap(aux)) if has_aux else jacobian

    return wrapper


def jacfwd(func: Callable, argnums=0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """The Jacobian of func with respect to the arguments at argnums, column by column in
    forward mode (one run of func per element of those arguments, with that element's
    one-hot tangent); shaped as jacrev's."""
    check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        _check_real("jacfwd", args, is_input=True)
        picked = _checked_argnums(argnums, len(args))
        diff = args[picked] if isinstance(picked, int) else tuple(args[i] for i in picked)
        flat_diff, diff_spec = flatten(diff)
        for x in flat_diff:
            if not isinstance(x, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")

        def with_diff(value):
            new_args = list(args)
            if isinstance(picked, int):
                new_args[picked] = value
            else:
                for i, v in zip(picked, value):
                    new_args[i] = v
            output = func(*new_args)
            _check_real("jacfwd", _split_aux(output, has_aux, _JVP)[0], is_input=False)
            return output

        run = _Run(with_diff, diff_spec, has_aux, _JVP)
        _, columns = jacobian_columns(run, tuple(flat_diff))
        jacobian = unflatten([unflatten(row, diff_spec) for row in columns], run.output_spec)
        return (jacobian, run.aux) if has_aux else jacobian

    return wrapper


def hessian(func: Callable, argnums=0) -> Callable:
    """The Hessian of a scalar func: the Jacobian of its gradient, with respect to the
    arguments at argnums."""
    return jacfwd(jacrev(func, argnums), argnums)
