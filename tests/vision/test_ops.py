"""ember.vision.ops against references written in torch (torchvision's compiled
operators cannot be installed beside CPU torch here): the box functions, NMS, RoIAlign
(values and gradients), the focal and IoU losses, DropBlock, and the layers of ops.misc."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.vision.ops as O
from tests.oracle import check

RNG = np.random.default_rng(0)


def random_boxes(n, seed=0, scale=20.0):
    """xyxy boxes with positive sizes."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, scale, (n, 2))
    wh = rng.uniform(1, scale / 2, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


# ------------------------------------------------------------------ torch references
def torch_inter_union(b1, b2):
    area1 = (b1[:, 2] - b1[:, 0]) * (b1[:, 3] - b1[:, 1])
    area2 = (b2[:, 2] - b2[:, 0]) * (b2[:, 3] - b2[:, 1])
    lt = torch.max(b1[:, None, :2], b2[None, :, :2])
    rb = torch.min(b1[:, None, 2:], b2[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, area1[:, None] + area2[None, :] - inter


def torch_enclosing(b1, b2):
    wh = (torch.max(b1[:, None, 2:], b2[None, :, 2:]) -
          torch.min(b1[:, None, :2], b2[None, :, :2])).clamp(min=0)
    return wh


def torch_box_iou(b1, b2):
    inter, union = torch_inter_union(b1, b2)
    return inter / union


def torch_giou(b1, b2):
    inter, union = torch_inter_union(b1, b2)
    wh = torch_enclosing(b1, b2)
    area = wh[..., 0] * wh[..., 1]
    return inter / union - (area - union) / area


def torch_diou(b1, b2, eps=1e-7):
    wh = torch_enclosing(b1, b2)
    c1, c2 = (b1[:, :2] + b1[:, 2:]) / 2, (b2[:, :2] + b2[:, 2:]) / 2
    dist = ((c1[:, None] - c2[None]) ** 2).sum(-1)
    return torch_box_iou(b1, b2) - dist / ((wh ** 2).sum(-1) + eps)


def torch_ciou(b1, b2, eps=1e-7):
    iou = torch_box_iou(b1, b2)
    r1 = torch.atan((b1[:, 2] - b1[:, 0]) / (b1[:, 3] - b1[:, 1]))
    r2 = torch.atan((b2[:, 2] - b2[:, 0]) / (b2[:, 3] - b2[:, 1]))
    v = 4 / math.pi ** 2 * (r1[:, None] - r2[None]) ** 2
    with torch.no_grad():
        alpha = v / (1 - iou + v + eps)
    return torch_diou(b1, b2, eps) - alpha * v


def torch_nms(boxes, scores, threshold):
    """The textbook greedy loop."""
    order = torch.argsort(scores, descending=True, stable=True).tolist()
    iou = torch_box_iou(boxes, boxes)
    keep = []
    for i in order:
        if all(iou[i, k] <= threshold for k in keep):
            keep.append(i)
    return torch.tensor(keep, dtype=torch.int64)


def torch_bilinear(feature, y, x):
    """torchvision's RoIAlign sample (its C++ kernel's rules) of a (C, H, W) map."""
    _, height, width = feature.shape
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return feature.new_zeros(feature.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = float(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = float(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - y_low, x - x_low
    return ((1 - ly) * (1 - lx) * feature[:, y_low, x_low]
            + (1 - ly) * lx * feature[:, y_low, x_high]
            + ly * (1 - lx) * feature[:, y_high, x_low] + ly * lx * feature[:, y_high, x_high])


def torch_roi_align(input, rois, output_size, spatial_scale, sampling_ratio, aligned):
    pooled_h, pooled_w = output_size
    offset = 0.5 if aligned else 0.0
    out = []
    for b, x1, y1, x2, y2 in rois.tolist():
        sw, sh = x1 * spatial_scale - offset, y1 * spatial_scale - offset
        rw, rh = x2 * spatial_scale - offset - sw, y2 * spatial_scale - offset - sh
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / pooled_h)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / pooled_w)
        bins = []
        for ph in range(pooled_h):
            row = []
            for pw in range(pooled_w):
                total = input.new_zeros(input.shape[1])
                for iy in range(gh):
                    for ix in range(gw):
                        y = sh + ph * rh / pooled_h + (iy + 0.5) * rh / pooled_h / gh
                        x = sw + pw * rw / pooled_w + (ix + 0.5) * rw / pooled_w / gw
                        total = total + torch_bilinear(input[int(b)], y, x)
                row.append(total / max(gh * gw, 1))
            bins.append(torch.stack(row, -1))
        out.append(torch.stack(bins, -2))
    return torch.stack(out)


def dispatch(ember_fn, torch_fn):
    return lambda lib, *args: (ember_fn if lib is ember else torch_fn)(*args)


# ------------------------------------------------------------------ boxes
@pytest.mark.parametrize("ours,reference", [(O.box_iou, torch_box_iou),
                                            (O.generalized_box_iou, torch_giou),
                                            (O.distance_box_iou, torch_diou),
                                            (O.complete_box_iou, torch_ciou)])
def test_pairwise_ious_match_torch_with_gradients(ours, reference):
    check(dispatch(ours, reference), random_boxes(5, 1), random_boxes(4, 2), atol=1e-5)


def test_box_iou_formats_and_batches():
    b1, b2 = random_boxes(3, 3), random_boxes(2, 4)
    expected = O.box_iou(ember.tensor(b1), ember.tensor(b2)).numpy()
    for fmt in ("xywh", "cxcywh"):
        got = O.box_iou(O.box_convert(ember.tensor(b1), "xyxy", fmt),
                        O.box_convert(ember.tensor(b2), "xyxy", fmt), fmt=fmt)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5)
    batched = O.box_iou(ember.tensor(np.stack([b1, b1])), ember.tensor(np.stack([b2, b2])))
    assert tuple(batched.shape) == (2, 3, 2)
    with pytest.raises(NotImplementedError, match="rotated boxes"):
        O.box_iou(ember.zeros(1, 5), ember.zeros(1, 5), fmt="cxcywhr")
    with pytest.raises(ValueError, match="Unsupported format 'abc'"):
        O.box_iou(ember.zeros(1, 4), ember.zeros(1, 4), fmt="abc")


def test_box_convert_round_trips():
    boxes = ember.tensor(random_boxes(4, 5))
    cxcywh = O.box_convert(boxes, "xyxy", "cxcywh").numpy()
    b = boxes.numpy()
    np.testing.assert_allclose(cxcywh[:, :2], (b[:, :2] + b[:, 2:]) / 2, rtol=1e-6)
    np.testing.assert_allclose(cxcywh[:, 2:], b[:, 2:] - b[:, :2], rtol=1e-6)
    for a, c in (("xywh", "cxcywh"), ("cxcywh", "xywh"), ("xyxy", "xywh")):
        there = O.box_convert(O.box_convert(boxes, "xyxy", a), a, c)
        back = O.box_convert(there, c, "xyxy")
        np.testing.assert_allclose(back.numpy(), b, rtol=1e-5, atol=1e-5)
    assert O.box_convert(boxes, "xyxy", "xyxy") is not boxes
    with pytest.raises(ValueError, match="Unsupported Bounding Box Conversions for given in_fmt "
                                         "xyxy and out_fmt abc"):
        O.box_convert(boxes, "xyxy", "abc")


def test_box_area_clip_and_small_boxes():
    boxes = ember.tensor([[0., 0, 4, 3], [2, 2, 2.5, 10], [-3, -1, 30, 5]])
    np.testing.assert_allclose(O.box_area(boxes).numpy(), [12, 4, 198])
    np.testing.assert_allclose(O.box_area(ember.tensor([[1., 1, 2, 5]]), fmt="xywh").numpy(), [10])
    assert O.remove_small_boxes(boxes, 1.0).tolist() == [0, 2]
    clipped = O.clip_boxes_to_image(boxes, (8, 20)).numpy()
    np.testing.assert_array_equal(clipped, [[0, 0, 4, 3], [2, 2, 2.5, 8], [0, 0, 20, 5]])
    area = O.box_area(ember.tensor([[0, 0, 3, 2]], dtype=ember.uint8))
    assert area.dtype == ember.int32 and area.tolist() == [6]


def test_nms_matches_the_greedy_reference():
    boxes = random_boxes(60, 6)
    scores = np.random.default_rng(7).random(60).astype(np.float32)
    for threshold in (0.1, 0.3, 0.7):
        keep = O.nms(ember.tensor(boxes), ember.tensor(scores), threshold)
        expected = torch_nms(torch.tensor(boxes), torch.tensor(scores), threshold)
        assert keep.dtype == ember.int64 and keep.tolist() == expected.tolist()
    assert O.nms(ember.zeros(0, 4), ember.zeros(0), 0.5).tolist() == []


def test_batched_nms_keeps_categories_apart():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10.5], [50, 50, 60, 60]],
                     np.float32)
    scores = ember.tensor([0.9, 0.8, 0.7, 0.6])
    same = O.batched_nms(ember.tensor(boxes), scores, ember.tensor([0, 0, 0, 0]), 0.5)
    assert same.tolist() == [0, 3]
    apart = O.batched_nms(ember.tensor(boxes), scores, ember.tensor([0, 1, 0, 1]), 0.5)
    assert apart.tolist() == [0, 1, 3]
    assert O.batched_nms(ember.zeros(0, 4), ember.zeros(0), ember.zeros(0), 0.5).tolist() == []


def test_masks_to_boxes():
    masks = np.zeros((3, 6, 7), np.uint8)
    masks[0, 1:4, 2:6] = 1
    masks[1, 5, 0] = 1
    boxes = O.masks_to_boxes(ember.tensor(masks))
    assert boxes.dtype == ember.float32
    np.testing.assert_array_equal(boxes.numpy(), [[2, 1, 5, 3], [0, 5, 0, 5], [0, 0, 0, 0]])
    assert tuple(O.masks_to_boxes(ember.zeros(0, 4, 4)).shape) == (0, 4)


# ------------------------------------------------------------------ RoIAlign
ROIS = np.array([[0, 1.2, 0.5, 7.3, 8.9], [1, -2, -1.5, 4, 3], [0, 8, 6, 14, 12],
                 [1, 3, 3, 3.2, 3.1], [0, -5, -5, -2, -2]], np.float32)


@pytest.mark.parametrize("spatial_scale,sampling_ratio,aligned", [
    (1.0, -1, False), (0.5, 2, False), (1.0, 2, True), (0.7, -1, True)])
def test_roi_align_matches_the_kernel_rules(spatial_scale, sampling_ratio, aligned):
    features = RNG.standard_normal((2, 3, 10, 12)).astype(np.float32)

    def fn(lib, x, rois):
        if lib is ember:
            return O.roi_align(x, rois, (3, 4), spatial_scale, sampling_ratio, aligned)
        return torch_roi_align(x, rois, (3, 4), spatial_scale, sampling_ratio, aligned)
    check(fn, features, ROIS, atol=1e-5, grad_inputs=[0])


def test_roi_align_box_list_module_and_errors():
    features = ember.tensor(RNG.standard_normal((2, 2, 8, 8)).astype(np.float32))
    boxes = [ember.tensor(ROIS[ROIS[:, 0] == i, 1:]) for i in range(2)]
    as_list = O.roi_align(features, boxes, 2, aligned=True)
    rois = ember.tensor(np.concatenate([ROIS[ROIS[:, 0] == 0], ROIS[ROIS[:, 0] == 1]]))
    np.testing.assert_allclose(as_list.numpy(),
                               O.roi_align(features, rois, 2, aligned=True).numpy())
    module = O.RoIAlign((2, 2), spatial_scale=0.5, sampling_ratio=2)
    assert repr(module) == "RoIAlign(output_size=(2, 2), spatial_scale=0.5, sampling_ratio=2, " \
                           "aligned=False)"
    assert tuple(module(features, rois).shape) == (5, 2, 2, 2)
    assert tuple(O.roi_align(features, ember.zeros(0, 5), 3).shape) == (0, 2, 3, 3)
    with pytest.raises(AssertionError, match=r"The boxes tensor shape is not correct as "
                                             r"Tensor\[K, 5\]"):
        O.roi_align(features, ember.zeros(3, 4), 2)


# ------------------------------------------------------------------ losses
def torch_focal(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    p = torch.sigmoid(inputs)
    ce = torch.nn.functional.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * (1 - p_t) ** gamma
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


@pytest.mark.parametrize("alpha,gamma,reduction", [(0.25, 2, "none"), (-1, 1.5, "mean"),
                                                   (0.5, 0, "sum")])
def test_sigmoid_focal_loss_matches_torch(alpha, gamma, reduction):
    targets = (RNG.random((4, 3)) > 0.5).astype(np.float32)

    def fn(lib, inputs, t):
        if lib is ember:
            return O.sigmoid_focal_loss(inputs, t, alpha, gamma, reduction)
        return torch_focal(inputs, t, alpha, gamma, reduction)
    check(fn, (4, 3), targets, grad_inputs=[0])
    with pytest.raises(ValueError, match="Invalid alpha value: 2. alpha must be in the range"):
        O.sigmoid_focal_loss(ember.zeros(2), ember.zeros(2), alpha=2)
    with pytest.raises(ValueError, match="Invalid Value for arg 'reduction': 'max"):
        O.sigmoid_focal_loss(ember.zeros(2), ember.zeros(2), reduction="max")


@pytest.mark.parametrize("ours,pairwise", [(O.generalized_box_iou_loss, torch_giou),
                                           (O.distance_box_iou_loss, torch_diou),
                                           (O.complete_box_iou_loss, torch_ciou)])
def test_iou_losses_are_one_minus_the_paired_ious(ours, pairwise):
    b1, b2 = random_boxes(6, 8), random_boxes(6, 9)
    b2[0] = b1[0] + 100  # a disjoint pair

    def fn(lib, x, y):
        if lib is ember:
            return ours(x, y, reduction="mean")
        return (1 - torch.diagonal(pairwise(x, y))).mean()
    check(fn, b1, b2, atol=1e-5)
    assert ours(ember.zeros(0, 4), ember.zeros(0, 4), reduction="mean").item() == 0.0
    as_int = ours(ember.tensor([[0, 0, 2, 2]]), ember.tensor([[1, 1, 3, 3]]))
    assert as_int.dtype == ember.float32


# ------------------------------------------------------------------ layers
def test_drop_block():
    x = ember.ones(2, 3, 12, 12)
    assert O.drop_block2d(x, 0.3, 3, training=False) is x
    ember.manual_seed(0)
    out = O.DropBlock2d(0.3, 3)(x).numpy()
    kept = out != 0
    assert 0.5 < kept.mean() < 0.9
    np.testing.assert_allclose(out[kept], out.size / kept.sum(), rtol=1e-5)
    out3 = O.drop_block3d(ember.ones(1, 1, 6, 6, 6), 0.2, 3).numpy()
    assert set(np.unique(out3)) <= {0.0, float(out3.max())}
    assert repr(O.DropBlock3d(0.1, 5)) == "DropBlock3d(p=0.1, block_size=5, inplace=False)"
    with pytest.raises(ValueError, match="block size should be odd. Got 4 which is even."):
        O.drop_block2d(x, 0.1, 4)
    with pytest.raises(ValueError, match="input should be 4 dimensional. Got 3 dimensions."):
        O.drop_block2d(ember.ones(1, 4, 4), 0.1, 3)


def test_mlp_and_permute_match_torch_modules():
    mlp = O.MLP(6, [8, 4], norm_layer=ember.nn.LayerNorm, dropout=0.1)
    reference = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.LayerNorm(8),
                                    torch.nn.ReLU(), torch.nn.Dropout(0.1),
                                    torch.nn.Linear(8, 4), torch.nn.Dropout(0.1))
    assert list(mlp.state_dict()) == list(reference.state_dict())
    assert repr(mlp).split("\n")[1:] == repr(reference).split("\n")[1:]
    assert repr(mlp).startswith("MLP(")
    x = ember.randn(2, 3, 4, 5)
    assert tuple(O.Permute([0, 2, 3, 1])(x).shape) == (2, 4, 5, 3)


def test_frozen_batch_norm_matches_eval_batch_norm():
    bn = torch.nn.BatchNorm2d(3).eval()
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    frozen = O.FrozenBatchNorm2d(3)
    state = {k: ember.tensor(v.numpy()) for k, v in bn.state_dict().items()}
    frozen.load_state_dict(state)  # num_batches_tracked is dropped
    assert list(frozen.parameters()) == [] and repr(frozen) == "FrozenBatchNorm2d(3, eps=1e-05)"
    x = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(frozen(ember.tensor(x)).numpy(),
                               bn(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_conv_norm_activation_variants():
    conv3d = O.Conv3dNormActivation(2, 4, kernel_size=(3, 5, 1))
    assert conv3d[0].padding == (1, 2, 0) and isinstance(conv3d[1], ember.nn.BatchNorm3d)
    dilated = O.Conv2dNormActivation(2, 4, kernel_size=3, dilation=2)
    assert dilated[0].padding == (2, 2)
    with pytest.warns(UserWarning, match="Don't use ConvNormActivation directly"):
        O.misc.ConvNormActivation(2, 4)
