"""ember.vision.ops: torchvision.ops, the operators and layers torchvision's models are
built from: box utilities and NMS, RoIAlign, the focal and box-IoU losses, DropBlock,
stochastic depth, and the conv-norm-activation / MLP / squeeze-excitation layers. The
operators ember does not implement (deformable convolution, RoIPool, position-sensitive
RoI ops, the multi-scale RoI pooler, the feature pyramid network) import and raise
NotImplementedError naming themselves when used."""
from .boxes import (batched_nms, box_area, box_convert, box_iou,  # noqa: F401
                    clip_boxes_to_image, complete_box_iou, distance_box_iou,
                    generalized_box_iou, masks_to_boxes, nms, remove_small_boxes)
from .ciou_loss import complete_box_iou_loss  # noqa: F401
from .deform_conv import DeformConv2d, deform_conv2d  # noqa: F401
from .diou_loss import distance_box_iou_loss  # noqa: F401
from .drop_block import DropBlock2d, DropBlock3d, drop_block2d, drop_block3d  # noqa: F401
from .feature_pyramid_network import FeaturePyramidNetwork  # noqa: F401
from .focal_loss import sigmoid_focal_loss  # noqa: F401
from .giou_loss import generalized_box_iou_loss  # noqa: F401
from .misc import (MLP, Conv2dNormActivation, Conv3dNormActivation,  # noqa: F401
                   FrozenBatchNorm2d, Permute, SqueezeExcitation)
from .poolers import MultiScaleRoIAlign  # noqa: F401
from .ps_roi_align import PSRoIAlign, ps_roi_align  # noqa: F401
from .ps_roi_pool import PSRoIPool, ps_roi_pool  # noqa: F401
from .roi_align import RoIAlign, roi_align  # noqa: F401
from .roi_pool import RoIPool, roi_pool  # noqa: F401
from .stochastic_depth import StochasticDepth, stochastic_depth  # noqa: F401

__all__ = ["masks_to_boxes", "deform_conv2d", "DeformConv2d", "nms", "batched_nms",
           "remove_small_boxes", "clip_boxes_to_image", "box_convert", "box_area", "box_iou",
           "generalized_box_iou", "distance_box_iou", "complete_box_iou", "roi_align",
           "RoIAlign", "roi_pool", "RoIPool", "ps_roi_align", "PSRoIAlign", "ps_roi_pool",
           "PSRoIPool", "MultiScaleRoIAlign", "FeaturePyramidNetwork", "sigmoid_focal_loss",
           "stochastic_depth", "StochasticDepth", "FrozenBatchNorm2d", "Conv2dNormActivation",
           "Conv3dNormActivation", "SqueezeExcitation", "MLP", "Permute",
           "generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss",
           "drop_block2d", "DropBlock2d", "drop_block3d", "DropBlock3d"]
