"""The backward engine: a dependency-counted walk of the graph from the roots.

1. Discover every node reachable from the roots and count, for each, how many
   edges point at it.
2. Start from the roots; run a node once all the nodes that feed it gradient have
   run. Its incoming gradients are summed per output in a buffer.
3. A node's backward runs with grad mode = create_graph, so with create_graph=True
   the gradients themselves are recorded and can be differentiated again.
4. Leaves receive their gradient through their AccumulateGrad node (backward), or
   it is captured and returned (autograd.grad).
"""
from __future__ import annotations

import threading

import numpy as np

from .._dtype import from_numpy_dtype
from . import anomaly_mode
from .anomaly_mode import STATE as ANOMALY
from .._modes import own as own_modes
from .._tensor import Tensor
from .graph import AccumulateGrad

class _Passes(threading.local):
    """This thread's running backward passes (a backward can start another one inside
    it, e.g. a checkpoint's), and the functions to call once the outermost has propagated
    every gradient (torch's queue_callback; DistributedDataParallel waits for its
    all-reduces there). Per thread, as two threads' backward passes are separate."""

    def __init__(self):
        self.depth = 0
        self.final_callbacks = []


_PASSES = _Passes()


def queue_callback(callback) -> None:
    """Call `callback()` once the running backward pass has finished propagating."""
    _PASSES.final_callbacks.append(callback)


def _discover(roots) -> dict:
    """Number of incoming edges of each node reachable from `roots`."""
    deps = dict.fromkeys(roots, 0)
    stack = list(deps)
    while stack:
        for edge in stack.pop()._edges:
            if edge is not None:
                child = edge[0]
                count = deps.get(child)
                if count is None:
                    deps[child] = 1
                    stack.append(child)
                else:
                    deps[child] = count + 1
    return deps


def _needed_for(targets, deps: dict, roots) -> set:
    """The nodes lying on some path from a root to a capture target."""
    parents = {}
    for node in list(deps) + list(roots):
        for edge in node._edges:
            if edge is not None:
                parents.setdefault(edge[0], []).append(node)
    needed = set()
    stack = [node for node in targets if node in deps or node in roots]
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(parents.get(node, ()))
    return needed


def _fit_to_input(grad, meta):
    """Sum a broadcast gradient back to the input's shape and cast it to its dtype."""
    shape, np_dtype = meta
    data = grad._data
    if data.shape != shape:
        grad = grad.sum_to_size(shape)
    if data.dtype != np_dtype:
        if data.dtype.kind == "c" and np_dtype.kind != "c":
            grad = grad.real           # a real input's gradient: the real part, as in torch
        grad = grad.to(from_numpy_dtype(np_dtype))
    return grad


def _conjugated(grads):
    """The complex conjugates of a gradient or a tuple of gradients (None stays None)."""
    if not isinstance(grads, (tuple, list)):
        return None if grads is None else grads.conj()
    return tuple(None if g is None else g.conj() for g in grads)


def _any_complex(grads) -> bool:
    for g in grads:     # a loop, not any(generator): this runs for every node
        if g is not None and g._data.dtype.kind == "c":
            return True
    return False


def _call_node(node, grads):
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(result)
    if node.materialize_grads and len(grads) > 1:
        for i, g in enumerate(grads):
            if g is None:
                shape, np_dtype = node._output_meta[i]
                grads[i] = Tensor._wrap(np.zeros(shape, dtype=np_dtype))
    if node.holomorphic and _any_complex(grads):
        out = _conjugated(type(node).backward(node, *_conjugated(grads)))
    else:
        out = type(node).backward(node, *grads)
    if type(out) is not tuple:
        out = (out,)
    n_edges = len(node._edges)
    if len(out) != n_edges:
        if len(out) > n_edges and all(g is None for g in out[n_edges:]):
            out = out[:n_edges]  # extra trailing Nones are allowed, as in torch
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of "
                               f"gradients (expected {n_edges}, got {len(out)})")
    if node._post_hooks:
        for hook in tuple(node._post_hooks.values()):
            result = hook(out, tuple(grads))
            if result is not None:
                out = tuple(result)
    if ANOMALY.enabled and ANOMALY.check_nan:
        for i, g in enumerate(out):
            if g is not None and np.isnan(g._data).any():
                anomaly_mode.report_nan(node, i)
    return out


def _apply_tensor_hooks(node, nr: int, grad):
    if node._tensor_hooks:
        for hook in tuple(node._tensor_hooks.get(nr, {}).values()):
            result = hook(grad)
            if result is not None:
                grad = result
    if node._retained and nr in node._retained:
        tensor = node._retained[nr]
        if tensor._grad is None:
            tensor._grad = grad.detach().clone()
        else:
            tensor._grad = tensor._grad + grad.detach()
    return grad


def run_backward(roots, root_grads, retain_graph: bool, create_graph: bool,
                 capture=None, accumulate: bool = True, boundary=frozenset()) -> dict:
    """Propagate `root_grads` from the `roots` edges ((node, output_nr) pairs).

    capture: optional list of (node, output_nr) whose incoming gradient is returned
    (autograd.grad); then only the part of the graph leading to them runs.
    accumulate: whether leaves' AccumulateGrad nodes add into `.grad`.
    boundary: with capture, nodes whose backward never runs, as if the tensors they made
    were leaves: the graph is cut there (compile traces one call's backward so, from its
    results to its inputs, whatever history the inputs have).
    """
    root_nodes = [node for node, _ in roots]
    deps = _discover(root_nodes)
    needed = runs = None
    captured = {}
    if capture is not None:
        capture_set = set(capture)
        needed = _needed_for({node for node, _ in capture}, deps, set(root_nodes))
        # A capture target's own backward runs only when another target lies below it
        # (torch leaves it, and what it saved, untouched otherwise).
        runs = {node for node in needed
                if any(edge is not None and edge[0] in needed for edge in node._edges)}
        runs -= boundary
    buffers = {}
    for (node, nr), grad in zip(roots, root_grads):
        buf = buffers.setdefault(node, [None] * max(1, len(node._output_meta)))
        buf[nr] = grad if buf[nr] is None else buf[nr] + grad
    ready = [node for node in dict.fromkeys(root_nodes) if deps[node] == 0]
    # The whole pass (backward functions, hooks, gradient sums) runs with grad mode =
    # create_graph, as torch's engine does.
    modes = own_modes()
    prev = modes.grad_enabled
    modes.grad_enabled = create_graph
    passes = _PASSES
    passes.depth += 1
    try:
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if grads is None or (needed is not None and node not in needed):
                outs = None
            elif node._tensor_hooks or node._retained or capture is not None or \
                    type(node) is AccumulateGrad:
                outs = _run_node(node, grads, capture, capture_set if capture is not None
                                 else None, captured, accumulate, create_graph, retain_graph,
                                 runs)
            else:   # the common case, inline: an op node with no hooks on its outputs
                outs = _call_node(node, grads)
                if not retain_graph and (node._saved or "_outputs_saved" in node.__dict__):
                    node._free()
            _send_gradients(node, outs, buffers, deps, ready)
            outs = None   # hold no gradient past its delivery (see AccumulateGrad)
        if passes.depth == 1:   # a nested pass (e.g. a checkpoint's) leaves them queued
            while passes.final_callbacks:
                passes.final_callbacks.pop(0)()
    finally:
        if passes.depth == 1:
            passes.final_callbacks.clear()
        passes.depth -= 1
        modes.grad_enabled = prev
    return captured


def _run_node(node, grads, capture, capture_set, captured, accumulate, create_graph,
              retain_graph, runs=None):
    """Run a node that has tensor hooks, captured outputs, or is a leaf's AccumulateGrad.
    runs: with captures, the nodes whose backward must run to reach a target."""
    if node._tensor_hooks or node._retained or capture is not None:
        for nr, g in enumerate(grads):
            if g is not None:
                grads[nr] = g = _apply_tensor_hooks(node, nr, g)
                if capture is not None and (node, nr) in capture_set:
                    captured[node, nr] = g
    if type(node) is AccumulateGrad:
        if accumulate and grads[0] is not None:
            node.accumulate(grads[0], create_graph)
            if node._post_hooks:
                for hook in tuple(node._post_hooks.values()):
                    hook((), tuple(grads))
        return None
    if runs is not None and node not in runs:
        return None
    outs = _call_node(node, grads)
    if not retain_graph and (node._saved or "_outputs_saved" in node.__dict__):
        node._free()
    return outs


def _send_gradients(node, outs, buffers: dict, deps: dict, ready: list) -> None:
    """Add node's input gradients into its children's buffers; queue children now ready."""
    metas = node._input_meta
    for i, edge in enumerate(node._edges):
        if edge is None:
            continue
        child, nr = edge
        g = outs[i] if outs is not None else None
        if g is not None:
            shape, np_dtype = metas[i]
            data = g._data
            if data.shape != shape or data.dtype != np_dtype:
                g = _fit_to_input(g, metas[i])
            buf = buffers.get(child)
            if buf is None:
                buf = buffers[child] = [None] * (len(child._output_meta) or 1)
            old = buf[nr]
            # a dense gradient adds into a sparse one as dense + sparse (sparse + dense is
            # refused, as in torch)
            buf[nr] = g if old is None else old + g if not old.is_sparse else g + old
        remaining = deps[child] - 1
        deps[child] = remaining
        if remaining == 0:
            ready.append(child)
