"""`Function`: one differentiable op = forward + backward side by side.

The same class serves ember's own primitives and user-defined functions:

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):                  # a primitive's forward gets the NumPy
            ctx.save_for_backward(x)          # arrays of its Tensor arguments
            return np.exp(x)
        @staticmethod
        def backward(ctx, grad):              # always written with ember Tensor ops,
            x, = ctx._unpacked_saved            # so it is itself differentiable
            return grad * x.exp()

A primitive reads what it saved as `ctx._unpacked_saved`; `grad_fn.saved_tensors` exists, as
in torch, only on the nodes of Python-defined Functions (user ones, checkpoint, compiled).
`Function.apply(*args)` unwraps the Tensor arguments of a primitive, runs forward and,
when grad mode is on and some Tensor argument requires grad, records the ctx object as
the outputs' `grad_fn`. The ctx *is* the graph node: backward receives it as `ctx`.
Saving an array forward received saves its Tensor. User-defined Functions (defined
outside ember) keep torch's contract: forward receives and returns Tensors.
"""
from __future__ import annotations

import numpy as np

from .._meta import MetaArray, MetaUnsupported, as_storage
from .._tensor import Tensor
from .._modes import DEFAULT as DEFAULT_MODES, current as current_modes, own as own_modes
from .anomaly_mode import STATE as ANOMALY_STATE
from ._saved_tensor_hooks import pack_saved
from .graph import _FREED_MESSAGE, Node, SavedTensor


_new = object.__new__
_wrap = Tensor._wrap


class Function(Node):
    """Base class of differentiable operations (see the module docstring)."""

    saves_outputs = False       # primitives that need their result in backward set this
    # ember's primitives compute on the arrays of their Tensor arguments; the few whose
    # forward runs ember code on the Tensors themselves (checkpointing, say) set this.
    forward_on_tensors = False
    is_view = False             # outputs share memory with the first argument (view ops)
    # holomorphic: backward is written as for real numbers (grad times the derivative f').
    # For complex values torch's convention is grad times conj(f'); the engine gets it by
    # running such a backward on conj(grad) and conjugating what comes out.
    holomorphic = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "backward_name" not in cls.__dict__:
            cls.backward_name = cls.__name__ + "Backward"
        # type(t.grad_fn).__name__ reads as in torch ('MulBackward0'); __qualname__ keeps
        # the class findable (and picklable) under its own name.
        cls.__name__ = cls.backward_name
        # ember's own primitives compute on arrays; user Functions get torch's ctx extras.
        cls._is_primitive = cls.__module__.startswith("ember.")
        cls._arrays_in = cls._is_primitive and not cls.forward_on_tensors
        if "exposes_saved_tensors" not in cls.__dict__:   # torch's built-in nodes do not
            cls.exposes_saved_tensors = not cls._is_primitive

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    # ctx-side API used inside forward ------------------------------------------------
    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def save_for_backward(self, *values) -> None:
        if not self._arrays_in:
            if not any(self.needs_input_grad):
                return None     # not recorded (no grad, inference mode): torch keeps nothing
            return super().save_for_backward(*values)
        # A primitive's forward sees arrays; once forward returns, apply turns each input's
        # array back into the input Tensor (see _saved_inputs).
        self._raw_saved = values

    def save_for_forward(self, *tensors) -> None:
        """Keep tensors for the Function's `jvp` (forward-mode AD), read there as
        ctx.saved_tensors."""
        self._saved_for_forward = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    def output(self, index: int = 0):
        """The op's `index`-th output as a Tensor (for primitives that save their result)."""
        if self._freed:
            raise RuntimeError(_FREED_MESSAGE)
        return self._outputs_saved[index].unpack(self)

    needs_input_grad = ()       # set per node when recording: which inputs want a gradient

    @classmethod
    def apply(cls, *args, **kwargs):
        modes = current_modes()
        if modes.recorder is not None and modes.recorder.wants():
            return modes.recorder.record_op(cls, args, kwargs)
        ctx = _new(cls)
        if modes.grad_enabled:
            for a in args:
                if isinstance(a, Tensor) and a._requires_grad:
                    return cls._apply_recording(ctx, args, kwargs, modes)
        if cls._arrays_in:
            # A plain loop: cheaper than a comprehension, which is a call of its own.
            inputs = []
            for a in args:
                if isinstance(a, Tensor):
                    a = a._data
                    if type(a) is MetaArray:
                        return _apply_on_meta(cls, ctx, args, kwargs)
                inputs.append(a)
        else:
            inputs = args
        # Fast path: nothing to record. Forward still runs with grad mode off, so a user
        # Function's forward never records history of its own.
        if not cls._is_primitive:
            ctx.needs_input_grad = (False,) * len(args)
        if modes.grad_enabled:
            if modes is DEFAULT_MODES:
                modes = own_modes()
            modes.grad_enabled = False
            try:
                out = cls.forward(ctx, *inputs, **kwargs)
            finally:
                modes.grad_enabled = True
        else:
            out = cls.forward(ctx, *inputs, **kwargs)
        result = _wrap(out) if type(out) is np.ndarray else _wrap_outputs(out, None)
        return _mark_views(result, args[0]) if cls.is_view else result

    @classmethod
    def _apply_recording(cls, ctx, args, kwargs, modes):
        """Run forward and record ctx as the graph node of the outputs."""
        edges, metas, needs, arrays = [], [], [], []
        meta = False
        for a in args:
            if isinstance(a, Tensor):
                data = a._data
                meta = meta or type(data) is MetaArray
                if arrays:
                    for earlier, array in zip(args, arrays):
                        if array is data and earlier is not a:
                            # Another Tensor on the same array (x and x.detach()): forward
                            # gets a view, so that what it saves can be told apart.
                            data = data.view()
                            break
                arrays.append(data)
                if a._requires_grad:
                    node = a._grad_fn
                    edges.append((node, a._output_nr) if node is not None else a._edge())
                    metas.append((data.shape, data.dtype))
                    needs.append(True)
                    continue
                metas.append(None)
            else:   # other arguments reach forward as given
                arrays.append(a)
                metas.append(False)
            edges.append(None)
            needs.append(False)
        ctx._edges = edges          # set before forward: it may read needs_input_grad
        ctx._input_meta = metas
        ctx.needs_input_grad = tuple(needs)
        # Set on the instance, not left to class defaults: CPython reads an instance's own
        # attributes fastest, and testing ctx.__dict__ instead would build a dict per node.
        ctx._raw_saved = None
        ctx._non_differentiable = ()
        if modes is DEFAULT_MODES:
            modes = own_modes()
        modes.grad_enabled = False
        try:
            if meta:
                out = _forward_on_meta(cls, ctx, args, arrays, kwargs)
            else:
                out = cls.forward(ctx, *(arrays if cls._arrays_in else args), **kwargs)
        finally:
            modes.grad_enabled = True
        raw_saved = ctx._raw_saved      # the node keeps the Tensors, not forward's arrays
        if raw_saved is not None:
            ctx._saved = _saved_inputs(raw_saved, args, arrays)
            ctx._raw_saved = None
        if ANOMALY_STATE.enabled:
            ctx._record_trace()
        if type(out) is np.ndarray and not ctx._non_differentiable:
            differentiable = out.dtype.kind in "fcV"
            result = _wrap(out, differentiable, ctx if differentiable else None)
            if cls.saves_outputs:
                ctx._outputs_saved = (SavedTensor(result, output_of_node=True),)
        else:
            result = _wrap_outputs(out, ctx)
        if modes.saved_hooks:
            pack_saved(ctx, modes.saved_hooks[-1])
        return _mark_views(result, args[0]) if cls.is_view else result


def _apply_on_meta(cls, ctx, args, kwargs):
    """apply() without recording, for arguments that include meta tensors."""
    modes = own_modes()
    enabled, modes.grad_enabled = modes.grad_enabled, False
    try:
        out = _forward_on_meta(cls, ctx, args, [a._data if isinstance(a, Tensor) else a
                                                for a in args], kwargs)
    finally:
        modes.grad_enabled = enabled
    result = _wrap_outputs(out, None)
    return _mark_views(result, args[0]) if cls.is_view else result


def _forward_on_meta(cls, ctx, args, arrays, kwargs):
    """Run forward on meta arrays (ember/_meta), which compute only shapes, dtypes and strides.

    torch refuses to mix meta tensors with CPU tensors (a zero-dim CPU tensor may join in, as a
    number would). A NumPy call that needs data raises MetaUnsupported (and a compiled kernel
    handed a meta array fails its own way): both are reported as NotImplementedError naming
    the op. np.asarray(meta array) gives a zero-dim object array
    holding it (MetaArray.__array__); such outputs are unpacked here."""
    for a in args:
        if isinstance(a, Tensor) and type(a._data) is not MetaArray and a._data.ndim:
            raise RuntimeError("Tensor on device cpu is not on the expected device meta!")
    if not cls._is_primitive:
        ctx.needs_input_grad = (False,) * len(args)
    unsupported = f"{cls.__qualname__} is not supported on the meta device in ember"
    try:
        out = cls.forward(ctx, *(arrays if cls._arrays_in else args), **kwargs)
    except MetaUnsupported as e:            # (a NotImplementedError, so a RuntimeError)
        raise NotImplementedError(f"{unsupported} ({e})") from None
    except (RuntimeError, IndexError):      # ember's own checks, with torch's messages
        raise
    except Exception as e:      # MetaUnsupported, or a kernel that was handed a meta array
        raise NotImplementedError(f"{unsupported} ({type(e).__name__}: {e})") from None
    outs = tuple(MetaArray.unbox(o) for o in (out if isinstance(out, tuple) else (out,)))
    if any(isinstance(o, np.ndarray) for o in outs):
        # forward made real arrays: never present values computed without data
        raise NotImplementedError(f"{unsupported} (its forward computes on data)")
    return outs if isinstance(out, tuple) else outs[0]


def _saved_inputs(values, args, arrays) -> tuple:
    """What a primitive's forward saved, as SavedTensors: an input's own array stands for
    the input Tensor, so that backward computes on it with ember ops (differentiably) and
    the in-place check watches it; any other array is saved as a constant."""
    saved = []
    for v in values:
        if v is not None:
            for a, array in zip(args, arrays):
                if array is v and a is not v:
                    v = a
                    break
            else:
                if not isinstance(v, Tensor):
                    v = _wrap(as_storage(v))
            v = SavedTensor(v)
        saved.append(v)
    return tuple(saved)


def _mark_views(result, source):
    """Outputs of view ops share `source`'s memory, version counter and base."""
    base = source if source._base is None else source._base
    for t in (result if isinstance(result, tuple) else (result,)):
        t._vc = source._vc
        t._base = base
    return result


def _wrap_outputs(out, ctx):
    """Turn forward's result (arrays or Tensors, one or a tuple) into output Tensors."""
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    if ctx is None:
        result = tuple(o if isinstance(o, Tensor) or o is None else Tensor._wrap(as_storage(o))
                       for o in outs)
        return result[0] if single else result
    dirty = getattr(ctx, "_dirty", ())
    non_diff = ctx._non_differentiable
    result = []
    metas = []
    for nr, o in enumerate(outs):
        if o is None:
            result.append(None)
            metas.append(((), None))
            continue
        if isinstance(o, Tensor):
            if any(o is d for d in dirty):
                t = o._rebase_history(ctx, nr)
            else:
                t = Tensor._wrap(o._data, False, None, 0, o._vc if o._base is None else None)
                t._base = o._base
            data = o._data
        else:
            data = as_storage(o)
            t = Tensor._wrap(data)
        differentiable = data.dtype.kind in "fcV" and id(o) not in non_diff
        if differentiable:
            t.requires_grad = True
            t._grad_fn = ctx
            t._output_nr = nr
        metas.append((data.shape, data.dtype))
        result.append(t)
    ctx._output_meta = metas
    saved = ctx._saved
    if saved and any(isinstance(s, SavedTensor) and s.tensor is not None and
                     any(s.tensor is o for o in outs) for s in saved):
        # A user forward saved one of its own outputs: keep it without a reference cycle.
        ctx._saved = tuple(_as_output_save(s, outs, result) for s in saved)
    if type(ctx).saves_outputs:
        ctx._outputs_saved = tuple(SavedTensor(t, output_of_node=True) for t in result)
    return result[0] if single else tuple(result)


def _as_output_save(saved, raw_outputs, wrapped):
    if saved is None or saved.tensor is None:
        return saved
    for raw, t in zip(raw_outputs, wrapped):
        if saved.tensor is raw:
            return SavedTensor(t, output_of_node=True)
    return saved


class _DelayedError(Function):
    """Stands for a gradient computed by a @once_differentiable backward: passes its input
    through, and differentiating it raises."""

    @staticmethod
    def forward(ctx, x):
        return x.copy()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def once_differentiable(fn):
    """Decorator for an autograd.Function's backward that is not itself differentiable: it
    runs without recording a graph, and when a graph was asked for (create_graph) the
    gradients it returns raise if differentiated."""
    import functools

    from .grad_mode import no_grad

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not current_modes().grad_enabled or not any(
                isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs

        def delayed(value):
            if not isinstance(value, Tensor):
                return value
            return _DelayedError.apply(value.detach().requires_grad_())

        if isinstance(outputs, tuple):
            return tuple(delayed(v) for v in outputs)
        return delayed(outputs)

    return wrapper
