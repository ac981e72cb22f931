"""torchvision.models.detection.roi_heads: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["RoIHeads", "expand_boxes", "expand_masks", "expand_masks_tracing_scale",
          "fastrcnn_loss", "heatmaps_to_keypoints", "keypointrcnn_inference", "keypointrcnn_loss",
          "keypoints_to_heatmap", "maskrcnn_inference", "maskrcnn_loss", "paste_mask_in_image",
          "paste_masks_in_image", "project_masks_on_boxes"]
globals().update(stand_ins(__name__, _NAMES))
