"""Loss functions and loss modules against torch: values, dtypes, input gradients,
warnings and errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401  (ember.nn is a subpackage, as torch.nn)
from oracle import check, check_error

REDUCTIONS = ["none", "mean", "sum"]
DTYPES = ["float32", "float64"]


def F(lib):
    return lib.nn.functional


def labels(*shape, classes=3, seed=0):
    return np.random.default_rng(seed).integers(0, classes, shape)


def signs(*shape, seed=0, dtype="float32"):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(dtype)


def probs(*shape, seed=0, dtype="float32"):
    e = np.exp(np.random.default_rng(seed).standard_normal(shape))
    return (e / e.sum(axis=1, keepdims=True)).astype(dtype)


def log_softmax(shape, axis, seed=0, dtype="float32"):
    x = np.random.default_rng(seed).standard_normal(shape)
    return (x - np.log(np.exp(x).sum(axis=axis, keepdims=True))).astype(dtype)


def unit(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).uniform(0.05, 0.95, shape).astype(dtype)


# ---------------------------------------------------------------- regression losses
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, kwargs", [
    ("l1_loss", {}), ("mse_loss", {}), ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}), ("huber_loss", {"delta": 0.3})])
def test_regression(name, kwargs, reduction, dtype):
    check(lambda lib, x, y: getattr(F(lib), name)(x, y, reduction=reduction, **kwargs),
          (4, 5), (4, 5), dtype=dtype)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_weight(name, reduction):
    check(lambda lib, x, y, w: getattr(F(lib), name)(x, y, reduction=reduction, weight=w),
          (3, 4), (3, 4), np.abs(np.random.default_rng(1).standard_normal((3, 4))),
          dtype="float64", grad_inputs=[0, 1])


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_empty_and_non_contiguous(name):
    check(lambda lib, x, y: getattr(F(lib), name)(x, y), (0, 3), (0, 3))
    check(lambda lib, x, y: getattr(F(lib), name)(x, y, reduction="sum"), (0, 3), (0, 3))
    check(lambda lib, x, y: getattr(F(lib), name)(x, y), (3, 4), (3, 4), non_contiguous=True)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss_is_one_node(reduction):
    """The blitz tutorial prints loss.grad_fn and walks next_functions to the layer's node."""
    for lib in (torch, ember):
        x = lib.ones(2, 3, requires_grad=True)
        loss = F(lib).mse_loss(x * 2, lib.zeros(2, 3), reduction=reduction)
        assert type(loss.grad_fn).__name__ == "MseLossBackward0"
        assert type(loss.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    # a target that broadcasts (its gradient sums back) and a Long target (promoted)
    with pytest.warns(UserWarning, match="Using a target size"):
        check(lambda lib, x, y: F(lib).mse_loss(x, y, reduction=reduction), (4, 3), (3,),
              dtype="float64")
    check(lambda lib, x: F(lib).mse_loss(x, lib.arange(1, 5).view(1, 4), reduction=reduction),
          (1, 4))


def test_target_size_warning_matches_torch():
    message = (r"Using a target size \(torch.Size\(\[4\]\)\) that is different to the input "
               r"size \(torch.Size\(\[4, 1\]\)\). This will likely lead to incorrect results "
               r"due to broadcasting. Please ensure they have the same size.")
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match=message):
            out = F(lib).mse_loss(lib.ones(4, 1), lib.zeros(4))
        assert out.item() == 1.0
        with pytest.warns(UserWarning, match="Using a target size"):
            lib.nn.L1Loss()(lib.ones(4, 1), lib.zeros(4))
    with pytest.warns(UserWarning, match="Using a target size"):
        check(lambda lib, x, y: F(lib).mse_loss(x, y), (4, 1), (4,))


def test_legacy_size_average_and_reduce():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match=r"size_average and reduce args will be deprecated, "
                                             r"please use reduction='sum' instead."):
            F(lib).mse_loss(lib.ones(2), lib.zeros(2), size_average=False)
        with pytest.warns(UserWarning, match="reduction='none'"):
            assert lib.nn.L1Loss(reduce=False).reduction == "none"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for size_average, reduce in [(False, None), (None, False), (True, True), (False, True)]:
            check(lambda lib, x, y: F(lib).smooth_l1_loss(x, y, size_average=size_average,
                                                         reduce=reduce), (3, 4), (3, 4))
            check(lambda lib, x: F(lib).cross_entropy(x, lib.tensor(labels(3)),
                                                      size_average=size_average, reduce=reduce),
                  (3, 3))


def test_regression_errors():
    check_error(lambda lib: F(lib).mse_loss(lib.ones(2, 3), lib.ones(2, 3), reduction="avg"),
                ValueError, "^avg is not a valid value for reduction")
    check_error(lambda lib: F(lib).smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1.0),
                RuntimeError, "^smooth_l1_loss does not support negative values for beta.")
    check_error(lambda lib: F(lib).huber_loss(lib.ones(2), lib.ones(2), delta=0.0),
                RuntimeError, "^huber_loss does not support non-positive values for delta.")
    check_error(lambda lib: F(lib).l1_loss(lib.ones(2, 3), lib.ones(2, 3), weight=lib.ones(3)),
                ValueError, "^Weights and input must have the same size.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(lambda lib: F(lib).l1_loss(lib.ones(2, 3), lib.ones(4)), RuntimeError,
                    r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                    r"non-singleton dimension 1")


# ---------------------------------------------------------------- cross entropy and nll
@pytest.mark.parametrize("options", [{}, {"weight": True, "ignore_index": 3,
                                          "label_smoothing": 0.1}])
@pytest.mark.parametrize("shape", [(300, 400), (4, 100, 20, 12)])
def test_cross_entropy_in_row_blocks(shape, options):
    """Inputs of 64k+ values run their row passes in blocks on several threads."""
    target = labels(*((shape[0],) + shape[2:]), classes=shape[1])
    weight = np.linspace(0.5, 2.0, shape[1]).astype("float32") if options.get("weight") \
        else None
    kwargs = {k: v for k, v in options.items() if k != "weight"}

    def fn(lib, x, t):
        w = None if weight is None else lib.tensor(weight)
        return F(lib).cross_entropy(x, t, weight=w, **kwargs)
    check(fn, shape, target)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"ignore_index": 1},
                                     {"label_smoothing": 0.2},
                                     {"weight": True, "ignore_index": 0, "label_smoothing": 0.1}])
@pytest.mark.parametrize("shape", [(5, 4), (2, 4, 3), (2, 4, 3, 2), (4,)])
def test_cross_entropy_class_indices(shape, options, reduction, dtype):
    target = labels(*((shape[0],) + shape[2:] if len(shape) > 1 else ()), classes=4)
    weight = np.linspace(0.5, 2.0, 4).astype(dtype) if options.get("weight") else None
    kwargs = {k: v for k, v in options.items() if k != "weight"}

    def fn(lib, x, t):
        w = None if weight is None else lib.tensor(weight)
        return F(lib).cross_entropy(x, t, weight=w, reduction=reduction, **kwargs)
    check(fn, shape, target, dtype=dtype)
    if "ignore_index" not in kwargs:
        check(lambda lib, x, t: F(lib).nll_loss(x, t, reduction=reduction,
                                                weight=None if weight is None
                                                else lib.tensor(weight)),
              log_softmax(shape, 1 if len(shape) > 1 else 0, dtype=dtype), target, dtype=dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5, 4), (2, 4, 3)])
def test_nll_loss_ignore_index_and_weight(shape, reduction):
    target = labels(*((shape[0],) + shape[2:]), classes=4, seed=3)
    target.flat[::2] = -100
    target.flat[1] = 7 if reduction == "none" else target.flat[1]
    weight = np.array([0.3, 1.0, 2.0, 0.7], dtype=np.float32)
    target[target == 7] = 2
    check(lambda lib, x, t: F(lib).nll_loss(x, t, weight=lib.tensor(weight),
                                            reduction=reduction), shape, target)
    check(lambda lib, x, t: F(lib).nll_loss(x, t, ignore_index=2, reduction=reduction),
          shape, np.where(target < 0, 0, target))


def test_nll_all_ignored_and_empty_batch():
    check(lambda lib, x: F(lib).nll_loss(x, lib.tensor([-100, -100])), (2, 3))
    check(lambda lib, x: F(lib).nll_loss(x, lib.tensor([-100, -100]),
                                         weight=lib.tensor([1.0, 2.0, 3.0])), (2, 3))
    for reduction in REDUCTIONS:
        check(lambda lib, x: F(lib).cross_entropy(x, lib.zeros(0, dtype=lib.long),
                                                  reduction=reduction), (0, 3))
        check(lambda lib, x, y: F(lib).cross_entropy(x, y, reduction=reduction), (0, 3), (0, 3),
              grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing, weighted", [(0.0, False), (0.3, False), (0.0, True),
                                                 (0.25, True)])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2, 2), (3,)])
def test_cross_entropy_probabilities(shape, smoothing, weighted, reduction, dtype):
    axis = 1 if len(shape) > 1 else 0
    target = np.exp(log_softmax(shape, axis, seed=5, dtype=dtype))

    def fn(lib, x, t):
        w = lib.tensor([0.5, 1.0, 2.0], dtype=x.dtype) if weighted else None
        return F(lib).cross_entropy(x, t, weight=w, label_smoothing=smoothing,
                                    reduction=reduction)
    check(fn, shape, target, dtype=dtype)          # gradients for input and target


def test_cross_entropy_mixed_dtype_probabilities():
    check(lambda lib, x, t: F(lib).cross_entropy(x.double(), t), (3, 4), probs(3, 4))


def test_cross_entropy_grad_fn_and_double_backward():
    x = ember.randn(4, 3, requires_grad=True)
    assert type(F(ember).cross_entropy(x, ember.tensor([0, 1, 2, 0]))).__name__ == "Tensor"
    assert F(ember).cross_entropy(x, ember.tensor([0, 1, 2, 0])).grad_fn.name() == \
        "NllLossBackward0"

    def second_order(lib, x, t):
        loss = F(lib).cross_entropy(x * x, t, label_smoothing=0.1)
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        return (g * g).sum()
    check(second_order, (4, 3), labels(4), dtype="float64")

    def second_order_probs(lib, x, t):
        loss = F(lib).cross_entropy(x, t)
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        return (g * g * x).sum()
    check(second_order_probs, (4, 3), probs(4, 3, dtype="float64"), dtype="float64")


def test_class_target_errors():
    err = check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.tensor([0, 1, 5])),
                      IndexError, r"^Target 5 is out of bounds.")
    assert "Hint: target value 5 but the input has 3 classes (valid labels 0..2)" in str(err)
    check_error(lambda lib: F(lib).nll_loss(lib.randn(3, 3), lib.tensor([0, -1, 1])),
                IndexError, r"^Target -1 is out of bounds.")
    err = check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.tensor([0., 1, 2])),
                      RuntimeError, "^expected target dtype to be Long or Byte, but got Float")
    assert "Hint:" in str(err)
    check_error(lambda lib: F(lib).nll_loss(lib.randn(3, 3), lib.tensor([0, 1, 2],
                                                                        dtype=lib.int32)),
                RuntimeError, "^expected target dtype to be Long or Byte, but got Int")
    check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.tensor([0, 1, 2, 1])),
                ValueError, r"^Expected input batch_size \(3\) to match target batch_size \(4\).")
    for loss in ("nll_loss", "cross_entropy"):     # char_rnn_generation: (1, C) and a scalar
        check_error(lambda lib: getattr(F(lib), loss)(lib.randn(1, 3), lib.tensor(1)),
                    ValueError, r"^Expected input batch_size \(1\) to match target batch_size "
                    r"\(0\).")
    check_error(lambda lib: F(lib).cross_entropy(lib.randn(2, 3, 4),
                                                 lib.zeros(2, 5, dtype=lib.long)),
                RuntimeError, r"^Expected target size \[2, 4\], got \[2, 5\]")
    check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.zeros(3, 3).long()),
                RuntimeError, "^Expected floating point type for target with class probabilities")
    check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.tensor([0, 1, 2]),
                                                 weight=lib.ones(4)), RuntimeError,
                r"^weight tensor should be defined either for all 3 classes or no classes")
    check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.tensor([0, 1, 2]),
                                                 weight=lib.ones(3, dtype=lib.float64)),
                RuntimeError, "^expected scalar type Float but found Double")
    check_error(lambda lib: F(lib).cross_entropy(lib.randn(3, 3), lib.tensor([0, 1, 2]),
                                                 label_smoothing=1.5), RuntimeError,
                "^label_smoothing must be between 0.0 and 1.0. Got: 1.5")
    check_error(lambda lib: F(lib).nll_loss(lib.randn(3), lib.tensor([0, 1])), ValueError,
                "^For 1D input, 1D target must have size 1, but got target size: 2")
    check_error(lambda lib: F(lib).nll_loss(lib.randn(2, 3), lib.zeros(2, 5).long()),
                RuntimeError, "^0D or 1D target tensor expected, multi-target not supported")


def test_uint8_targets():
    check(lambda lib, x: F(lib).cross_entropy(x, lib.tensor([0, 2, 1], dtype=lib.uint8)), (3, 3))


# ---------------------------------------------------------------- binary cross entropy
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(weighted, reduction, dtype):
    def fn(lib, x, t):
        w = lib.tensor([0.5, 1.0, 2.0], dtype=x.dtype) if weighted else None
        return F(lib).binary_cross_entropy(x, t, weight=w, reduction=reduction)
    check(fn, unit(4, 3, dtype=dtype), unit(4, 3, seed=1, dtype=dtype), dtype=dtype)


def test_binary_cross_entropy_saturated_inputs():
    x = np.array([0.0, 1.0, 1.0, 0.0, 0.5], dtype=np.float32)
    t = np.array([1.0, 0.0, 1.0, 0.0, 1.0], dtype=np.float32)
    # grad2=False: at x = 0 or 1 the second derivative is infinite up to an epsilon clamp,
    # and ember's clamp (on x (1 - x) inside the differentiated gradient) is not torch's.
    check(lambda lib, x, t: F(lib).binary_cross_entropy(x, t, reduction="none"), x, t,
          grad_inputs=[0], grad2=False)


def test_binary_cross_entropy_errors():
    check_error(lambda lib: F(lib).binary_cross_entropy(lib.rand(4, 1), lib.rand(4)), ValueError,
                r"^Using a target size \(torch.Size\(\[4\]\)\) that is different to the input "
                r"size \(torch.Size\(\[4, 1\]\)\) is deprecated.")
    check_error(lambda lib: F(lib).binary_cross_entropy(lib.ones(3) * 2, lib.ones(3)),
                RuntimeError, "^all elements of input should be between 0 and 1")
    check_error(lambda lib: F(lib).binary_cross_entropy(lib.rand(3), lib.rand(3).double()),
                RuntimeError, "^Found dtype Double but expected Float")
    check_error(lambda lib: F(lib).binary_cross_entropy_with_logits(lib.rand(4, 1), lib.rand(4)),
                ValueError, r"^Target size \(torch.Size\(\[4\]\)\) must be the same as input "
                r"size \(torch.Size\(\[4, 1\]\)\)")


# A NaN, or a value outside [0, 1], in the input or the target is refused by torch; the
# module form checks the same (issue 15: ember returned nan, or a number for target 2).
@pytest.mark.parametrize("which", ["input", "target"])
@pytest.mark.parametrize("bad", [float("nan"), 2.0, -0.1])
@pytest.mark.parametrize("form", ["functional", "module"])
def test_binary_cross_entropy_refuses_values_outside_0_1(which, bad, form):
    def fn(lib):
        values = {"input": lib.tensor([0.5, 0.2]), "target": lib.tensor([1.0, 0.0])}
        values[which][1] = bad
        loss = (lib.nn.BCELoss() if form == "module" else F(lib).binary_cross_entropy)
        return loss(values["input"], values["target"])
    check_error(fn, RuntimeError, f"^all elements of {which} should be between 0 and 1")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted, pos_weighted", [(False, False), (True, False), (False, True),
                                                    (True, True)])
def test_binary_cross_entropy_with_logits(weighted, pos_weighted, reduction, dtype):
    def fn(lib, x, t):
        w = lib.tensor([0.5, 1.0, 2.0], dtype=x.dtype) if weighted else None
        pw = lib.tensor([3.0, 1.0, 0.2], dtype=x.dtype) if pos_weighted else None
        return F(lib).binary_cross_entropy_with_logits(x * 4, t, weight=w, pos_weight=pw,
                                                       reduction=reduction)
    check(fn, (5, 3), unit(5, 3, dtype=dtype), dtype=dtype)


def test_binary_cross_entropy_with_logits_is_stable():
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0], dtype=np.float32)
    t = np.array([1.0, 0.0, 1.0, 1.0, 0.0], dtype=np.float32)
    # grad2=False: x = 0 is the kink where ember's overflow-safe softplus changes branch;
    # its second derivative there is one-sided, torch's is the smooth 1/4.
    check(lambda lib, x, t: F(lib).binary_cross_entropy_with_logits(x, t, reduction="none"),
          x, t, grad2=False)


# ---------------------------------------------------------------- likelihood losses
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input, full", [(True, False), (False, False), (True, True),
                                             (False, True)])
def test_poisson_nll_loss(log_input, full, reduction, dtype):
    counts = np.random.default_rng(2).poisson(2.0, (4, 3)).astype(dtype)
    x = unit(4, 3, dtype=dtype) * 3

    def fn(lib, x, t):
        return F(lib).poisson_nll_loss(x, t, log_input=log_input, full=full, reduction=reduction)
    # torch's target gradient of the Stirling term is nan where it is masked out
    check(fn, x, counts, dtype=dtype, grad_inputs=[0, 1] if not full else [0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1), (1, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(var_shape, full, reduction, dtype):
    var = np.abs(np.random.default_rng(4).standard_normal(var_shape)).astype(dtype)
    var.flat[0] = 1e-9          # clamped to eps; the gradient still flows
    check(lambda lib, x, t, v: F(lib).gaussian_nll_loss(x, t, v, full=full, reduction=reduction),
          (4, 3), (4, 3), var, dtype=dtype)


def test_gaussian_nll_loss_float_var_and_errors():
    check(lambda lib, x, t: F(lib).gaussian_nll_loss(x, t, 0.5), (4, 2), (4, 2))
    check_error(lambda lib: F(lib).gaussian_nll_loss(lib.ones(4, 2), lib.ones(4, 2), lib.ones(3)),
                ValueError, "^var is of incorrect size")
    check_error(lambda lib: F(lib).gaussian_nll_loss(lib.ones(4, 2), lib.ones(4, 2),
                                                     -lib.ones(4, 2)),
                ValueError, "^var has negative entry/entries")
    check_error(lambda lib: F(lib).gaussian_nll_loss(lib.ones(2), lib.ones(2), lib.ones(2),
                                                     reduction="avg"),
                ValueError, "^avg is not valid")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(log_target, reduction, dtype):
    target = log_softmax((4, 3), 1, seed=3, dtype=dtype)
    if not log_target:
        target = np.exp(target)

    def fn(lib, x, t):
        return F(lib).kl_div(x, t, reduction=reduction, log_target=log_target)
    check(fn, log_softmax((4, 3), 1, dtype=dtype), target, dtype=dtype)
    if not log_target:
        target[0, 0] = 0.0      # 0 * log 0 counts as 0 (torch's target grad there is nan)
        check(fn, log_softmax((4, 3), 1, dtype=dtype), target, dtype=dtype, grad_inputs=[0])


def test_kl_div_mean_warns_like_torch():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match=r"^reduction: 'mean' divides the total loss by both "
                                             r"the batch size and the support size."):
            F(lib).kl_div(lib.zeros(2, 3), lib.ones(2, 3) / 3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.nn.KLDivLoss(reduction="batchmean")(lib.zeros(2, 3), lib.ones(2, 3) / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x, t: F(lib).kl_div(x, t), (4, 3), probs(4, 3))


# ---------------------------------------------------------------- margin and embedding losses
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_and_embedding_losses(reduction, dtype):
    kw = {"reduction": reduction}
    check(lambda lib, a, b, y: F(lib).margin_ranking_loss(a, b, y, margin=0.3, **kw),
          (6,), (6,), signs(6, dtype=dtype), dtype=dtype, grad_inputs=[0, 1])
    check(lambda lib, x, y: F(lib).hinge_embedding_loss(x, y, margin=0.7, **kw),
          (4, 3), signs(4, 3, dtype=dtype), dtype=dtype, grad_inputs=[0])
    check(lambda lib, x, y: F(lib).soft_margin_loss(x, y, **kw), (4, 3), signs(4, 3, dtype=dtype),
          dtype=dtype, grad_inputs=[0])
    check(lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y, margin=0.1, **kw),
          (5, 3), (5, 3), signs(5, dtype=dtype), dtype=dtype, grad_inputs=[0, 1])
    check(lambda lib, a, b, y: F(lib).cosine_embedding_loss(a, b, y, **kw),
          (3,), (3,), np.array(-1.0, dtype=dtype), dtype=dtype, grad_inputs=[0, 1])


def test_hinge_embedding_other_target_values():
    check(lambda lib, x, y: F(lib).hinge_embedding_loss(x, y, reduction="none"), (2, 3),
          np.array([[1.0, -1.0, 0.0], [2.0, -1.0, 1.0]], dtype=np.float32), grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, margin, weighted", [(1, 1.0, False), (2, 0.5, False),
                                                 (1, 2.0, True), (2, 1.0, True)])
def test_multi_margin_loss(p, margin, weighted, reduction, dtype):
    def fn(lib, x, t):
        w = lib.tensor([0.5, 1.0, 2.0, 1.5], dtype=x.dtype) if weighted else None
        return F(lib).multi_margin_loss(x, t, p=p, margin=margin, weight=w,
                                        reduction=reduction)
    check(fn, (5, 4), labels(5, classes=4), dtype=dtype)
    check(fn, (4,), np.array(2), dtype=dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_losses(reduction):
    target = np.array([[0, 2, -1, 1], [1, -1, 0, 0], [3, 1, 0, 2], [-1, 1, 1, 1]])
    check(lambda lib, x, t: F(lib).multilabel_margin_loss(x, t, reduction=reduction),
          (4, 4), target, dtype="float64")
    check(lambda lib, x, t: F(lib).multilabel_margin_loss(x, t, reduction=reduction),
          (4,), target[0], dtype="float64")
    # a 0-dim input is one sample with one class
    for t in (np.array(0), np.array(-1)):
        check(lambda lib, x, t: F(lib).multilabel_margin_loss(x, t, reduction=reduction),
              (), t, dtype="float64")
    check(lambda lib, x, t: F(lib).multi_margin_loss(x, t, reduction=reduction), (),
          np.array(0), dtype="float64")
    multi_hot = (np.random.default_rng(0).random((4, 3)) < 0.5).astype(np.float32)
    check(lambda lib, x, t: F(lib).multilabel_soft_margin_loss(x * 5, t, reduction=reduction),
          (4, 3), multi_hot)
    check(lambda lib, x, t, w: F(lib).multilabel_soft_margin_loss(x, t, weight=w,
                                                                  reduction=reduction),
          (4, 3), multi_hot, np.array([0.2, 1.0, 3.0], dtype=np.float32), grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, swap", [(2, False), (2, True), (1, False), (3, True),
                                     (float("inf"), False), (0.5, True)])
def test_triplet_margin_loss(p, swap, reduction, dtype):
    check(lambda lib, a, pos, neg: F(lib).triplet_margin_loss(a, pos, neg, margin=2.0, p=p,
                                                              swap=swap, reduction=reduction),
          (5, 4), (5, 4), (5, 4), dtype=dtype)


def test_triplet_margin_loss_of_complex_inputs_is_real():
    # The distance is the norm of the complex difference (torch.pairwise_distance).
    rng = np.random.default_rng(4)
    a, pos, neg = (rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))
                   for _ in range(3))
    results = [F(lib).triplet_margin_loss(*(lib.tensor(v) for v in (a, pos, neg)), margin=3.0,
                                          reduction="none") for lib in (torch, ember)]
    assert results[1].dtype == ember.float64
    np.testing.assert_allclose(results[1].numpy(), results[0].numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(swap, reduction):
    check(lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(
        a, p, n, swap=swap, margin=1.5, reduction=reduction), (5, 4), (5, 4), (5, 4))

    def l1(x, y):
        return (x - y).abs().sum(1)
    check(lambda lib, a, p, n: F(lib).triplet_margin_with_distance_loss(
        a, p, n, distance_function=l1, swap=swap, margin=3.0, reduction=reduction),
        (5, 4), (5, 4), (5, 4))


def test_margin_errors():
    check_error(lambda lib: F(lib).margin_ranking_loss(lib.ones(3), lib.ones(3), lib.ones(3, 1)),
                RuntimeError, "^margin_ranking_loss : All input tensors should have same "
                "dimension but got sizes: input1: torch.Size")
    check_error(lambda lib: F(lib).multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]), p=3),
                ValueError, "^only p == 1 and p == 2 supported")
    check_error(lambda lib: F(lib).multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 5])),
                RuntimeError, "^target out of range")
    check_error(lambda lib: F(lib).multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1, 1])),
                RuntimeError, "^multi_margin_loss: target tensor should be 1-D with size equal "
                r"to the number of input samples \(batch size\). Expected target size \[2\]")
    check_error(lambda lib: F(lib).multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]),
                                                     weight=lib.ones(2)),
                RuntimeError, r"^inconsistent weight size, expected 3 but got \[2\]")
    check_error(lambda lib: F(lib).multilabel_margin_loss(lib.ones(2, 3), lib.tensor([0, 1])),
                RuntimeError, r"^inconsistent target size: \[2\] for input of size: \[2, 3\]")
    check_error(lambda lib: F(lib).cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3),
                                                         lib.ones(2, 1)),
                RuntimeError, "^0D or 1D target tensor expected, multi-target not supported")
    check_error(lambda lib: F(lib).triplet_margin_loss(lib.ones(3, 4), lib.ones(3, 4),
                                                       lib.ones(4)),
                RuntimeError, "^The anchor, positive, and negative tensors are expected to have "
                "the same number of dimensions, but got: anchor 2D, positive 2D, and negative "
                "1D inputs")
    check_error(lambda lib: F(lib).triplet_margin_loss(lib.ones(3, 4), lib.ones(3, 4),
                                                       lib.ones(3, 4), margin=0),
                ValueError, "^margin must be greater than 0, got 0")


# ---------------------------------------------------------------- CTC
def ctc_case(seed=0, batch=3, time=7, classes=5, dtype="float32"):
    r = np.random.default_rng(seed)
    target_lengths = np.array([3, 0, 2, 1][:batch])
    input_lengths = np.array([7, 5, 6, 4][:batch])
    targets = r.integers(1, classes, (batch, 4))
    targets[0, :2] = 2           # a repeated label needs a blank between
    return log_softmax((time, batch, classes), 2, seed, dtype), targets, input_lengths, \
        target_lengths


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss(concatenated, reduction, dtype):
    lp, targets, in_len, tgt_len = ctc_case(dtype=dtype)
    if concatenated:
        targets = np.concatenate([row[:n] for row, n in zip(targets, tgt_len)])
    check(lambda lib, x, t: F(lib).ctc_loss(x, t, lib.tensor(in_len), lib.tensor(tgt_len),
                                            reduction=reduction), lp, targets, dtype=dtype)


def test_ctc_loss_blank_lists_and_unbatched():
    lp, targets, in_len, tgt_len = ctc_case(seed=1)
    check(lambda lib, x, t: F(lib).ctc_loss(x, (t + 1) % 5, list(in_len), tuple(tgt_len),
                                            blank=1), lp, targets)
    check(lambda lib, x, t: F(lib).ctc_loss(x, t, lib.tensor(6), lib.tensor(3)),
          lp[:, 0], targets[0, :3])


def test_ctc_loss_impossible_alignment_and_zero_infinity():
    lp, targets, _, tgt_len = ctc_case(seed=2)
    in_len = np.array([2, 5, 6])            # 3 labels cannot fit in 2 steps -> inf
    check(lambda lib, x, t: F(lib).ctc_loss(x, t, lib.tensor(in_len), lib.tensor(tgt_len),
                                            reduction="none"), lp, targets, grad=False)
    check(lambda lib, x, t: F(lib).ctc_loss(x, t, lib.tensor(in_len), lib.tensor(tgt_len),
                                            zero_infinity=True), lp, targets)


def test_ctc_loss_errors():
    lp, targets, in_len, tgt_len = ctc_case()
    check_error(lambda lib: F(lib).ctc_loss(lib.tensor(lp), lib.tensor(targets[:, :2]),
                                            lib.tensor(in_len), lib.tensor(tgt_len)),
                RuntimeError, "^Expected tensor to have size at least 3 at dimension 1, but got "
                "size 2 for argument #2 'targets'")
    check_error(lambda lib: F(lib).ctc_loss(lib.tensor(lp), lib.tensor(targets),
                                            lib.tensor([8, 5, 6]), lib.tensor(tgt_len)),
                RuntimeError, "^Expected input_lengths to have value at most 7, but got value 8")


# ---------------------------------------------------------------- modules
MODULES = [
    ("L1Loss", {}, "reg"), ("MSELoss", {"reduction": "sum"}, "reg"),
    ("SmoothL1Loss", {"beta": 0.5}, "reg"), ("HuberLoss", {"delta": 0.4}, "reg"),
    ("SoftMarginLoss", {}, "sign"), ("HingeEmbeddingLoss", {"margin": 0.5}, "sign"),
    ("CrossEntropyLoss", {"ignore_index": 1, "label_smoothing": 0.1}, "class"),
    ("NLLLoss", {"reduction": "none"}, "class"), ("MultiMarginLoss", {"p": 2}, "class"),
    ("BCELoss", {}, "unit"), ("BCEWithLogitsLoss", {}, "unit"),
    ("MultiLabelSoftMarginLoss", {}, "unit"), ("KLDivLoss", {"reduction": "batchmean"}, "unit"),
    ("PoissonNLLLoss", {"full": True}, "unit"),
]


@pytest.mark.parametrize("name, kwargs, kind", MODULES)
def test_modules_match_torch(name, kwargs, kind):
    second = {"reg": (4, 3), "sign": signs(4, 3), "class": labels(4),
              "unit": unit(4, 3, seed=1)}[kind]
    first = unit(4, 3) if name == "BCELoss" else (4, 3)
    check(lambda lib, x, y: getattr(lib.nn, name)(**kwargs)(x, y), first, second,
          grad_inputs=[0])


def test_module_weights_repr_and_attributes():
    for lib in (torch, ember):
        w = lib.tensor([1.0, 2.0, 3.0])
        loss = lib.nn.CrossEntropyLoss(weight=w, ignore_index=2, label_smoothing=0.1)
        assert repr(loss) == "CrossEntropyLoss()"
        assert list(loss.state_dict()) == ["weight"]
        assert (loss.ignore_index, loss.label_smoothing, loss.reduction) == (2, 0.1, "mean")
        bce = lib.nn.BCEWithLogitsLoss(pos_weight=w)
        assert list(bce.state_dict()) == ["pos_weight"] and bce.weight is None
        ctc = lib.nn.CTCLoss(blank=2, zero_infinity=True)
        assert repr(ctc) == "CTCLoss()" and (ctc.blank, ctc.zero_infinity) == (2, True)
        assert repr(lib.nn.TripletMarginLoss(margin=0.5)) == "TripletMarginLoss()"
        assert lib.nn.GaussianNLLLoss(full=True).full
    for name, args in [("TripletMarginLoss", {"margin": 0}), ("MultiMarginLoss", {"p": 3})]:
        check_error(lambda lib: getattr(lib.nn, name)(**args), ValueError)
    check_error(lambda lib: lib.nn.HuberLoss(delta="1"), TypeError, "^delta must be a float")


def test_three_input_modules():
    check(lambda lib, a, b, y: lib.nn.MarginRankingLoss(margin=0.2)(a, b, y), (5,), (5,),
          signs(5), grad_inputs=[0, 1])
    check(lambda lib, a, b, y: lib.nn.CosineEmbeddingLoss(margin=0.2)(a, b, y), (5, 3), (5, 3),
          signs(5), grad_inputs=[0, 1])
    check(lambda lib, a, p, n: lib.nn.TripletMarginLoss(p=1, swap=True)(a, p, n), (5, 3), (5, 3),
          (5, 3))
    check(lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(margin=2.0)(a, p, n),
          (5, 3), (5, 3), (5, 3))
    check(lambda lib, x, t, v: lib.nn.GaussianNLLLoss()(x, t, v), (4, 3), (4, 3),
          unit(4, 3), grad_inputs=[0, 1])
    lp, targets, in_len, tgt_len = ctc_case()
    check(lambda lib, x, t: lib.nn.CTCLoss()(x, t, lib.tensor(in_len), lib.tensor(tgt_len)),
          lp, targets)
    check(lambda lib, x, t: lib.nn.MultiLabelMarginLoss()(x, t), (2, 3),
          np.array([[2, -1, 0], [0, 1, -1]]))
